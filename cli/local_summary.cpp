#include "local_summary.h"

#include <cmath>
#include <cstdio>

#include "compare/compare.h"
#include "stats/describe.h"
#include "util/text.h"

namespace bb::cli {

namespace {

// "±1.2 %": the median absolute deviation, scaled as a standard deviation,
// relative to the median; what `compare` calls the noise.
std::string spread(const std::vector<double>& samples, double median) {
  if (samples.size() < 2) return "one sample: no spread";
  if (median == 0) return "±" + std::to_string(stats::mad(samples));
  char buf[32];
  std::snprintf(buf, sizeof buf, "±%.1f %%", 100 * stats::mad(samples) / std::fabs(median));
  return buf;
}

std::string row(const model::Benchmark& b) {
  std::string out = "| " + b.key.suite + " | " + b.key.name + " | " + b.key.metric + " | ";
  if (b.status != model::BenchmarkStatus::ok)
    return out + std::string(model::to_string(b.status)) + ": " + b.reason + " | | |\n";
  if (b.samples.empty()) return out + "no samples | | |\n";
  const double m = stats::median(b.samples);
  return out + compare::format_value(m, b.unit) + " | " + spread(b.samples, m) + " | " +
         std::to_string(b.samples.size()) + " |\n";
}

}  // namespace

std::string render_local_summary(const model::ResultSet& rs) {
  std::string out = "## " + short_sha(rs.commit) + (rs.commit_info.subject.empty() ? "" : " " + rs.commit_info.subject) +
                    "\n\n";
  for (const auto& [name, suite] : rs.suites)
    if (suite.status == model::BenchmarkStatus::failed) out += "Suite **" + name + "** failed: " + suite.reason + "\n\n";
  if (rs.benchmarks.empty()) return out + "No benchmark was measured.\n";
  out += "| suite | benchmark | metric | median | noise | samples |\n|---|---|---|--:|--:|--:|\n";
  for (const auto& b : rs.benchmarks) out += row(b);
  return out;
}

bool local_summary_failed(const model::ResultSet& rs) {
  for (const auto& [name, suite] : rs.suites)
    if (suite.status == model::BenchmarkStatus::failed) return true;
  for (const auto& b : rs.benchmarks)
    if (b.status == model::BenchmarkStatus::failed) return true;
  return rs.benchmarks.empty();
}

}  // namespace bb::cli
