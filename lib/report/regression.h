// A branch's regression, from the push that shows it until a push shows it
// gone, and the issue that tells maintainers about it. Pure: the reporter
// loads and stores (HistoryStore) and posts (the outbox).
//
// A push whose comparison with the run before it regressed opens one (or
// adds its benchmarks to the branch's open one), with the commit range:
// the last good commit (that run) and the first bad (this push). Each later
// push is compared with the last good run of every benchmark still open:
// a benchmark back inside its threshold (unchanged, or improved) is
// resolved; when none is left, the regression is closed with that commit.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "compare/compare.h"
#include "report/history.h"
#include "report/job_report.h"

namespace bb::report {

struct RegressionStep {
  std::optional<Regression> regression;  // the branch's regression after this push, if any
  bool opened = false, grew = false, closed = false;
  bool changed() const { return opened || grew || closed || regression.has_value(); }
};

// `open`: the branch's open regression before this push. `push`: its report
// (comparison against the previous run). `against_last_good`: verdicts of
// this push against each open benchmark's last good run (key -> verdict).
RegressionStep step_regression(std::optional<Regression> open, const JobReport& push,
                               const std::map<std::string, compare::BenchmarkComparison>& against_last_good,
                               int64_t now);

// "1.23× ± 0.03 more wall time", "0.81× ± 0.02 less items_per_second":
// ratio (head / base) with the half-width of its interval, and which way.
std::string effect_phrase(double ratio, double ci_low, double ci_high, const std::string& metric,
                          bool higher_is_better);

// The bisection that confirms `r` before it is filed: its last good and
// first bad commits, the benchmarks still regressed, fetched from
// `clone_url`. Not yet saved (id 0).
Bisection confirmation_of(const Regression& r, const std::string& clone_url);

struct IssueLinks {
  std::string site_url;  // "" = no links
  std::string clone_url;
  std::string config_text;  // .benchbox.yml of the first bad run (for the reproduce commands)
};

std::string regression_issue_title(const Regression& r);
std::string regression_issue_body(const Regression& r, const IssueLinks& links);
// Posted once when it closes.
std::string regression_closing_comment(const Regression& r);

}  // namespace bb::report
