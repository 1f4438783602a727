// Bisecting a confirmed regression to its first bad commit. Pure: which
// commit to measure next, given the steps so far; the reporter stores the
// steps (history.db) and turns each into an interleaved comparison job.
//
// The range is the first-parent commits after the last good commit up to
// the first bad one (confirmed bad). Each step measures a commit inside it
// against the nearest commit known good, on the benchmarks that regressed,
// and says bad (any of them regressed), good (none regressed, none
// undecided), inconclusive, or skipped (the commit does not build, as
// `git bisect skip`). An inconclusive step is run once more; a second one
// ends the bisection with the range narrowed so far. When one commit is
// left it is the culprit, and, if it is not the range's last commit, one
// more step measures the range's last commit against the culprit: a
// regression there is a second one, noted, not chased.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compare/compare.h"

namespace bb::report {

enum class StepOutcome { bad, good, inconclusive, skipped };
const char* to_string(StepOutcome o);

struct BisectStep {
  std::string base;  // the commit it was measured against (known good)
  std::string commit;
  StepOutcome outcome = StepOutcome::inconclusive;
  int64_t job_id = 0;
  std::string detail;  // "1.21× ± 0.02 more wall time", or why it was skipped
  // The check after the culprit: the range's last commit against it.
  bool residual = false;
};

struct BisectRange {
  std::string good;                  // the last good commit
  std::vector<std::string> commits;  // after `good`, oldest first; the last one is the confirmed first bad
};

enum class BisectState {
  measure,   // run `next`
  residual,  // culprit named; measure the range's last commit against it (next)
  done,      // culprit named (and the residual checked, when there is one)
  narrowed,  // stopped early (undecidable or unbuildable); the culprit is in (good, bad]
};
const char* to_string(BisectState s);

struct BisectPlan {
  BisectState state = BisectState::measure;
  std::string base, next;  // measure: next against base
  // The narrowest range known: the last good commit and the first bad one,
  // with how many commits lie in (good, bad].
  std::string good, bad;
  size_t candidates = 0;
  std::string culprit;        // done/residual: the first bad commit
  bool second_regression = false;  // the residual step regressed too
  std::string reason;         // narrowed: why it stopped
  // Steps still to go at most, for "step 3 of ~6" (log2 of the candidates).
  size_t steps_left = 0;
};

// What to do next. `range.commits` must not be empty.
BisectPlan plan_bisection(const BisectRange& range, const std::vector<BisectStep>& steps);

// The threshold a step of the bisection decides with: half the confirmed
// change (ratio head/base of the confirmation), so that "unchanged" means
// "the confirmed change is not here" and "regressed" means "it is". The
// metric's own threshold (0.5 % for CPU time) would ask a question
// noise can rarely answer: is the change below 0.5 %?
double step_threshold(double confirmed_ratio);

// A step's outcome from its comparison's rows, over the benchmark keys
// that regressed ("suite/name:metric"); a key absent from the rows counts
// as undecided.
StepOutcome step_outcome(const std::vector<compare::BenchmarkComparison>& rows, const std::vector<std::string>& keys,
                         std::string* detail);

}  // namespace bb::report
