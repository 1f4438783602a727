#include "report/regression.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "report/reproduce.h"
#include "report/site_paths.h"
#include "util/text.h"

namespace bb::report {

namespace {

std::string metric_words(const std::string& metric) {
  std::string out = metric;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

}  // namespace

std::string effect_phrase(double ratio, double ci_low, double ci_high, const std::string& metric,
                          bool higher_is_better) {
  const double half = std::max(std::fabs(ci_high - ratio), std::fabs(ratio - ci_low));
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2f× ± %.2f ", ratio, std::isfinite(half) ? half : 0.0);
  (void)higher_is_better;  // "less" throughput is the regression; the words say which way it went
  return std::string(buf) + (ratio >= 1 ? "more " : "less ") + metric_words(metric);
}

RegressionStep step_regression(std::optional<Regression> open, const JobReport& push,
                               const std::map<std::string, compare::BenchmarkComparison>& against_last_good,
                               int64_t now) {
  RegressionStep step;
  const model::Job& job = push.job;
  const std::string& head = push.head_commit;
  if (open) {
    // Benchmarks back where they were before the regression are resolved.
    size_t resolved = 0;
    for (auto& b : open->benchmarks) {
      if (!b.resolved_by.empty()) continue;
      auto it = against_last_good.find(b.key);
      if (it != against_last_good.end() && (it->second.verdict == compare::Verdict::unchanged ||
                                            it->second.verdict == compare::Verdict::improved)) {
        b.resolved_by = head;
        ++resolved;
      }
    }
    open->latest_job = job.id;
    open->latest_commit = head;
    open->latest_status = resolved ? std::to_string(resolved) + " benchmark(s) back at their last good level"
                                   : "still regressed";
  }
  // New regressions against the run before this push.
  if (push.comparison) {
    for (const auto& row : push.comparison->rows) {
      if (!compare::flags_regression(row)) continue;
      const std::string key = row.key.to_string();
      if (open && std::any_of(open->benchmarks.begin(), open->benchmarks.end(), [&](const RegressedBenchmark& b) {
            return b.key == key && b.resolved_by.empty();
          }))
        continue;
      if (!open) {
        open = Regression{};
        open->repository = job.spec.repository;
        open->ref = job.spec.ref;
        open->opened = now;
        open->latest_job = job.id;
        open->latest_commit = head;
        open->latest_status = "regressed";
        step.opened = true;
      } else {
        step.grew = true;
      }
      RegressedBenchmark b;
      b.key = key;
      b.unit = row.unit;
      b.metric = row.key.metric;
      b.higher_is_better = row.higher_is_better;
      b.ratio = row.ratio;
      b.ci_low = row.ci_low;
      b.ci_high = row.ci_high;
      b.last_good = push.comparison->base_commit;
      b.first_bad = head;
      // The baseline's job: the report names it. A push's base is its
      // previous head measured in the same job, or its previous run.
      b.last_good_job = push.baseline_job;
      b.last_good_role = push.baseline_job == job.id ? "base" : "";
      b.first_bad_job = job.id;
      if (auto diffs = push.json.find("profile_diffs"); diffs != push.json.end() && diffs->is_array())
        for (const auto& d : *diffs)
          if (d.value("benchmark", "") == key && d.contains("flame")) b.flame_page = d.value("flame_page", "");
      open->benchmarks.push_back(std::move(b));
    }
  }
  if (open && std::all_of(open->benchmarks.begin(), open->benchmarks.end(),
                          [](const RegressedBenchmark& b) { return !b.resolved_by.empty(); })) {
    open->open = false;
    open->closed = now;
    open->fixed_by = head;
    open->fixed_by_job = job.id;
    open->latest_status = "back to the last good level";
    step.closed = true;
  }
  step.regression = std::move(open);
  return step;
}

Bisection confirmation_of(const Regression& r, const std::string& clone_url) {
  Bisection b;
  b.repository = r.repository;
  b.ref = r.ref;
  b.clone_url = clone_url;
  b.regression_id = r.id;
  b.good = r.last_good();
  b.bad = r.first_bad();
  for (const auto& rb : r.benchmarks)
    if (rb.resolved_by.empty()) b.keys.push_back(rb.key);
  return b;
}

std::string regression_issue_title(const Regression& r) {
  std::string title = "Performance regression on " + site::ref_name(r.ref) + ": ";
  if (r.benchmarks.size() == 1) {
    const auto& b = r.benchmarks.front();
    title += "`" + b.key + "` " + effect_phrase(b.ratio, b.ci_low, b.ci_high, b.metric, b.higher_is_better);
  } else {
    title += std::to_string(r.benchmarks.size()) + " benchmarks";
  }
  return title + " (" + short_sha(r.last_good()) + ".." + short_sha(r.first_bad()) + ")";
}

std::string regression_issue_body(const Regression& r, const IssueLinks& links) {
  std::string out = "benchbox measured a performance regression on `" + site::ref_name(r.ref) + "`.\n\n";
  out += "- **Last good:** `" + r.last_good() + "`\n- **First bad:** `" + r.first_bad() + "`\n";
  if (links.clone_url.find("github.com") != std::string::npos || links.clone_url.empty())
    out += "- **Commits:** https://github.com/" + r.repository + "/compare/" + r.last_good() + "..." + r.first_bad() +
           "\n";
  out += "\n| benchmark | effect (interval) | last good → first bad | trend |\n|:--|:--|:--|:--|\n";
  std::set<std::string> suites;
  for (const auto& b : r.benchmarks) {
    char interval[64];
    std::snprintf(interval, sizeof interval, "[%.3f, %.3f]", b.ci_low, b.ci_high);
    std::string trend = links.site_url.empty()
                            ? "–"
                            : "[trend](" + links.site_url +
                                  site::trend_page(r.repository, site::series_id(r.ref, b.key)) + ")";
    if (!links.site_url.empty() && !b.flame_page.empty())
      trend += " · [flame graph](" + links.site_url + b.flame_page + ")";
    out += "| `" + b.key + "`" + (b.resolved_by.empty() ? "" : " (back at `" + short_sha(b.resolved_by) + "`)") +
           " | " + effect_phrase(b.ratio, b.ci_low, b.ci_high, b.metric, b.higher_is_better) + " " + interval +
           " | `" + short_sha(b.last_good) + "` → `" + short_sha(b.first_bad) + "` (job " +
           std::to_string(b.first_bad_job) + ") | " + trend + " |\n";
    suites.insert(b.key.substr(0, b.key.find('/')));
  }
  out += "\nLatest: " + r.latest_status + " at `" + short_sha(r.latest_commit) + "` (job " +
         std::to_string(r.latest_job) + ").\n";
  if (!links.site_url.empty())
    out += "Report of the first bad run: " + links.site_url + site::run_page(r.repository, r.benchmarks.empty() ? r.latest_job : r.benchmarks.front().first_bad_job) + "\n";
  model::ResultSet head;
  head.repository = r.repository;
  head.commit = r.first_bad();
  head.config_text = links.config_text;
  const RegressedBenchmark* first = r.benchmarks.empty() ? nullptr : &r.benchmarks.front();
  const std::string base_file = first && !links.site_url.empty()
                                    ? links.site_url + site::run_result_download(r.repository, first->last_good_job)
                                    : "";
  const std::string head_file = first && !links.site_url.empty()
                                    ? links.site_url + site::run_result_download(r.repository, first->first_bad_job)
                                    : "";
  head.job_id = first ? first->first_bad_job : r.latest_job;
  if (!r.investigation.empty()) out += "\n### Confirmation and bisection\n\n" + r.investigation;
  out += "\n" + reproduce_markdown(reproduce_commands(head, links.clone_url, r.last_good(), suites, base_file, head_file));
  out += "\nbenchbox updates this issue as new commits are measured and closes it when a run shows the "
         "regression gone.\n";
  return out;
}

std::string regression_closing_comment(const Regression& r) {
  return "The regression is gone: `" + r.fixed_by + "` (job " + std::to_string(r.fixed_by_job) +
         ") measures every benchmark of this issue back at its last good level (unchanged or better within its "
         "threshold). Closing.";
}

}  // namespace bb::report
