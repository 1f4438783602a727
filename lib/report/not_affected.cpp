#include "report/not_affected.h"

#include <cstdio>
#include <set>

#include "report/history.h"
#include "util/text.h"

namespace bb::report {

namespace {

bool not_affected(const model::SuiteOutcome& o) {
  return o.status == model::BenchmarkStatus::skipped && o.reason.rfind(model::kNotAffected, 0) == 0;
}

std::string value_of(const model::Benchmark& b) {
  if (b.samples.empty()) return "not measured there either";
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s", spread_of(b.samples).median, b.unit.c_str());
  return text;
}

}  // namespace

bool has_not_affected(const model::JobResult& result) {
  for (const auto& [name, o] : result.head.suites)
    if (not_affected(o)) return true;
  return false;
}

void add_not_affected(model::JobResult& result, const std::optional<model::ResultSet>& branch_run) {
  for (auto& [suite, outcome] : result.head.suites) {
    if (!not_affected(outcome)) continue;
    if (!branch_run) {
      outcome.reason += "; the base branch has no earlier run to show";
      continue;
    }
    // The metrics the suite shows there are the ones it shows here.
    if (auto it = branch_run->suites.find(suite); it != branch_run->suites.end() && outcome.metrics.empty()) {
      outcome.metrics = it->second.metrics;
      if (result.base) result.base->suites[suite].metrics = it->second.metrics;
    }
    std::set<std::string> seen;
    for (const auto& last : branch_run->benchmarks) {
      if (last.key.suite != suite || !seen.insert(last.key.to_string()).second) continue;
      model::Benchmark b;
      b.key = last.key;
      b.unit = last.unit;
      b.direction = last.direction;
      b.status = model::BenchmarkStatus::skipped;
      b.reason = outcome.reason + "; last on " + branch_run->ref + ": " + value_of(last) + " at " +
                 short_sha(branch_run->commit) + " (not re-measured)";
      result.head.benchmarks.push_back(b);
      if (result.base) result.base->benchmarks.push_back(b);
    }
  }
}

}  // namespace bb::report
