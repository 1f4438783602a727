// A regression confirmed and bisected by the box itself: the record the
// reporter keeps in history.db while its jobs run, and the pure steps that
// move it on. Each job is a compare job (model::JobKind::compare) in the
// bisection's job group; the reporter queues next_job(), feeds each
// finished job to advance(), and files or updates the issue from
// markdown().
//
//   confirming: the last good against the first bad, at the suite's own
//               thresholds. Regressed: confirmed (the issue is filed). Else
//               refuted, with the interval that refuted it (never filed).
//   bisecting:  report/bisect.h's plan over the first-parent commits the
//               confirmation recorded, each step at half the confirmed
//               change; a step that fails (the commit does not build) is
//               skipped.
//   done, narrowed, refuted, failed: finished.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compare/compare.h"
#include "model/job.h"
#include "model/result_set.h"
#include "report/bisect.h"
#include "util/result.h"

namespace bb::report {

enum class BisectionState { confirming, bisecting, done, narrowed, refuted, failed };
const char* to_string(BisectionState s);

struct Bisection {
  int64_t id = 0;
  int64_t group_id = 0;  // the queue's group of its jobs; 0 until made
  BisectionState state = BisectionState::confirming;
  std::string repository, ref, clone_url, suite;
  int64_t regression_id = 0;      // 0: asked for by an operator
  std::string requested_by;
  std::string good, bad;          // as asked: last good, first bad
  // The benchmarks followed ("suite/name:metric"). An operator's are kept
  // as asked; a regression's grow, once confirmed, by every other
  // benchmark the confirmation found regressed. Empty: whatever it finds.
  std::vector<std::string> keys;
  int64_t waiting_job = 0;        // the job in flight; 0: the next one is still to be queued
  double confirmed_ratio = 1;     // the confirmation's effect on its first regressed benchmark
  std::string confirm_detail;     // "`key` 1.21× ± 0.02 more cpu time [1.19, 1.23] (job 12)"
  std::vector<model::RangeCommit> range;  // after good up to bad, oldest first
  std::vector<BisectStep> steps;
  std::string culprit;
  bool second_regression = false;
  // A job that failed for something other than its commit (an expired
  // lease, a failed fetch, one crash) is run once more: the commit (or
  // "confirmation") -> the first failure. A build that fails, or a
  // failure that repeats, skips the commit, saying why.
  std::map<std::string, std::string> failed_once;
  std::string outcome;            // in words, once finished
  int64_t created = 0, updated = 0;

  bool finished() const {
    return state != BisectionState::confirming && state != BisectionState::bisecting;
  }
};

nlohmann::json to_json(const Bisection& b);
Result<Bisection> bisection_from_json(const nlohmann::json& j);

// The job to queue next (without group_id), or nullopt: finished, or a job
// is in flight.
std::optional<model::JobSpec> next_job(const Bisection& b);

struct Advance {
  bool used = false;       // the job was the one awaited
  bool confirmed = false;  // the confirmation just confirmed it
  bool refuted = false;    // ... or refuted it
  bool finished = false;   // the bisection ended with this job
};

// A finished job of the bisection's group, with its comparison (nullptr
// when it measured nothing: failed or cancelled) and, for a confirmation,
// the range its result recorded.
Advance advance(Bisection& b, const model::Job& job, const compare::Comparison* comparison,
                const std::vector<model::RangeCommit>& range);

// What a compare job's report says of the bisection it served: a
// "## Confirmation and bisection" section for the Markdown, and
// json["bisection"] ({state, outcome, step, culprit, regression_id}) for
// the dashboard's run page.
void add_to_report(const Bisection& b, std::string& markdown, nlohmann::json& json);

// "confirming", "step 3 of ~6: 12 commits left", "done: a1b2c3d4e5f6": the
// group's step on the bus.
std::string step_text(const Bisection& b);

// What the confirmation and the bisection found, for the issue and the
// report: the culprit with its author, pull request and effect, the steps,
// or why it stopped.
std::string markdown(const Bisection& b);

// What the dashboard shows of it beside its regression: {state, outcome,
// step, confirmation (the interval in words), confirmed_ratio, culprit
// ({commit, subject, author, pull_request, effect, job_id}) or null}.
nlohmann::json site_json(const Bisection& b);

// The pull request a commit's subject names: "Merge pull request #12 from
// ..." (a merge) or "Title (#12)" (a squash). 0 when none.
int64_t pull_request_of(const std::string& subject);

}  // namespace bb::report
