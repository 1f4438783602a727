#include "report/bisect.h"

#include <algorithm>
#include <cmath>

#include "report/regression.h"

namespace bb::report {

const char* to_string(StepOutcome o) {
  switch (o) {
    case StepOutcome::bad: return "bad";
    case StepOutcome::good: return "good";
    case StepOutcome::inconclusive: return "inconclusive";
    case StepOutcome::skipped: return "skipped";
  }
  return "inconclusive";
}

const char* to_string(BisectState s) {
  switch (s) {
    case BisectState::measure: return "measure";
    case BisectState::residual: return "residual";
    case BisectState::done: return "done";
    case BisectState::narrowed: return "narrowed";
  }
  return "measure";
}

namespace {

size_t log2_ceil(size_t n) {
  size_t k = 0;
  while ((size_t(1) << k) < n) ++k;
  return k;
}

}  // namespace

BisectPlan plan_bisection(const BisectRange& range, const std::vector<BisectStep>& steps) {
  const auto& c = range.commits;
  // Indices: -1 is `good`; c.size()-1 is the confirmed first bad.
  long lo = -1, hi = long(c.size()) - 1;
  auto index_of = [&](const std::string& sha) -> long {
    auto it = std::find(c.begin(), c.end(), sha);
    return it == c.end() ? -2 : long(it - c.begin());
  };
  auto commit_at = [&](long i) { return i < 0 ? range.good : c[size_t(i)]; };

  std::map<long, int> inconclusive;
  std::vector<bool> skipped(c.size(), false);
  BisectPlan plan;
  bool residual_measured = false;
  for (const auto& s : steps) {
    const long i = index_of(s.commit);
    if (i < 0) continue;  // not in the range (a stale step): ignore
    if (s.residual) {
      // Decided only for a final outcome; an inconclusive one is not a
      // second regression, and is not run again.
      residual_measured = s.outcome != StepOutcome::skipped;
      plan.second_regression = s.outcome == StepOutcome::bad;
      continue;
    }
    switch (s.outcome) {
      case StepOutcome::bad: hi = std::min(hi, i); break;
      case StepOutcome::good: lo = std::max(lo, i); break;
      case StepOutcome::skipped: skipped[size_t(i)] = true; break;
      case StepOutcome::inconclusive: ++inconclusive[i]; break;
    }
    if (lo >= hi) lo = hi - 1;  // contradictory steps: trust the newest bad
  }
  plan.good = commit_at(lo);
  plan.bad = commit_at(hi);
  plan.candidates = size_t(hi - lo);

  if (hi - lo == 1) {
    plan.culprit = c[size_t(hi)];
    if (hi == long(c.size()) - 1 || residual_measured) {
      plan.state = BisectState::done;
      return plan;
    }
    plan.state = BisectState::residual;
    plan.base = plan.culprit;
    plan.next = c.back();
    plan.steps_left = 1;
    return plan;
  }
  // A commit twice inconclusive: the change is too small to decide there.
  for (const auto& [i, n] : inconclusive) {
    if (n >= 2 && i > lo && i < hi) {
      plan.state = BisectState::narrowed;
      plan.reason = "too small to decide at " + c[size_t(i)] + " (inconclusive twice)";
      return plan;
    }
  }
  // An inconclusive commit not yet decided is measured once more.
  for (const auto& [i, n] : inconclusive) {
    if (n == 1 && i > lo && i < hi && !skipped[size_t(i)]) {
      plan.base = commit_at(lo);
      plan.next = c[size_t(i)];
      plan.steps_left = log2_ceil(plan.candidates);
      return plan;
    }
  }
  // The middle of (lo, hi), or the nearest commit to it that builds.
  const long mid = lo + (hi - lo) / 2;
  for (long d = 0; d < hi - lo; ++d) {
    for (long i : {mid - d, mid + d}) {
      if (i <= lo || i >= hi || skipped[size_t(i)]) continue;
      plan.base = commit_at(lo);
      plan.next = c[size_t(i)];
      plan.steps_left = log2_ceil(plan.candidates);
      return plan;
    }
  }
  plan.state = BisectState::narrowed;
  plan.reason = "every commit between " + plan.good + " and " + plan.bad + " was skipped (it does not build)";
  return plan;
}

double step_threshold(double confirmed_ratio) {
  // A regression is ratio > 1 for lower-is-better metrics and < 1 for
  // higher-is-better ones; either way its size is the distance from 1. A
  // threshold is a fraction below 1: a change of 3× or more is decided at
  // 90 %, which it still clears by far.
  return std::min(std::abs(confirmed_ratio - 1) / 2, 0.9);
}

StepOutcome step_outcome(const std::vector<compare::BenchmarkComparison>& rows, const std::vector<std::string>& keys,
                         std::string* detail) {
  bool any_bad = false, all_good = true;
  std::string first_bad;
  for (const auto& key : keys) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const compare::BenchmarkComparison& r) { return r.key.to_string() == key; });
    if (it == rows.end()) {
      all_good = false;
      continue;
    }
    switch (it->verdict) {
      case compare::Verdict::regressed:
        any_bad = true;
        if (first_bad.empty())
          first_bad = "`" + key + "` " + effect_phrase(it->ratio, it->ci_low, it->ci_high, it->key.metric,
                                                       it->higher_is_better);
        break;
      case compare::Verdict::unchanged:
      case compare::Verdict::improved: break;
      default: all_good = false;
    }
  }
  if (detail) *detail = first_bad;
  if (any_bad) return StepOutcome::bad;
  return all_good ? StepOutcome::good : StepOutcome::inconclusive;
}

}  // namespace bb::report
