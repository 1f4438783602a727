#include "report/change_points.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "stats/rank_tests.h"
#include "util/text.h"

namespace bb::report {

namespace {

std::string series_id(const Series& s) {
  return s.repository + '\0' + s.key + '\0' + s.environment_key;
}

}  // namespace

std::string SeriesChange::range() const { return short_sha(commit_before) + ".." + short_sha(commit_after); }

std::string SeriesChange::describe() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, " ×%.3f [%.3f, %.3f] %s", ratio, ci_low, ci_high, worse ? "worse" : "better");
  return range() + buf;
}

nlohmann::json SeriesChange::to_json() const {
  auto finite_or_null = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"index", index},
          {"commit_before", commit_before},
          {"commit_after", commit_after},
          {"job_before", job_before},
          {"job_after", job_after},
          {"ratio", finite_or_null(ratio)},
          {"ci_low", finite_or_null(ci_low)},
          {"ci_high", finite_or_null(ci_high)},
          {"confidence", confidence},
          {"p_value", p_value},
          {"seed", seed},
          {"worse", worse}};
}

uint64_t series_seed(const Series& series) {
  const uint64_t h = fnv1a64(series_id(series));
  // 53 bits: the seed is in the JSON report, and any JSON reader keeps
  // integers up to 2^53 exact.
  return h & ((uint64_t(1) << 53) - 1);
}

std::vector<SeriesChange> detect_changes(const Series& series, const ChangeOptions& options) {
  // Positions (into series.points) of the usable points, newest max_points.
  std::vector<size_t> at;
  for (size_t i = 0; i < series.points.size(); ++i) {
    const SeriesPoint& p = series.points[i];
    if (p.status == "ok" && p.samples > 0 && p.median > 0 && std::isfinite(p.median)) at.push_back(i);
  }
  if (at.size() > options.max_points) at.erase(at.begin(), at.end() - std::ptrdiff_t(options.max_points));
  // Logarithms: a step is a ratio, whatever the benchmark's scale.
  std::vector<double> logs;
  for (size_t i : at) logs.push_back(std::log(series.points[i].median));

  stats::ChangePointOptions detector = options.detector;
  detector.seed = series_seed(series);
  const std::vector<stats::ChangePoint> found = stats::e_divisive(logs, detector);

  std::vector<SeriesChange> out;
  for (size_t k = 0; k < found.size(); ++k) {
    // The effect compares the segments either side, up to the neighbouring
    // change points, so an earlier step does not blur this one.
    const size_t begin = k == 0 ? 0 : found[k - 1].index;
    const size_t split = found[k].index;
    const size_t end = k + 1 < found.size() ? found[k + 1].index : logs.size();
    const std::vector<double> before(logs.begin() + std::ptrdiff_t(begin), logs.begin() + std::ptrdiff_t(split));
    const std::vector<double> after(logs.begin() + std::ptrdiff_t(split), logs.begin() + std::ptrdiff_t(end));
    const stats::RankTest mw = stats::mann_whitney_test(after, before, options.confidence);

    SeriesChange c;
    c.index = at[split];
    const SeriesPoint& prev = series.points[at[split - 1]];
    const SeriesPoint& next = series.points[at[split]];
    c.commit_before = prev.commit;
    c.commit_after = next.commit;
    c.job_before = prev.job_id;
    c.job_after = next.job_id;
    c.ratio = std::exp(mw.estimate);
    c.ci_low = std::exp(mw.ci_low);
    c.ci_high = std::exp(mw.ci_high);
    c.confidence = mw.confidence;
    c.p_value = found[k].p_value;
    c.seed = detector.seed;
    c.worse = series.direction == model::Direction::higher_is_better ? c.ratio < 1 : c.ratio > 1;
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<SeriesChange>& ChangeCache::changes(const Series& series) {
  // Fingerprint of everything detection reads, so a re-ingested job (same
  // length, new medians) is recomputed too.
  uint64_t fp = 0xcbf29ce484222325ull;
  auto mix = [&fp](uint64_t v) { fp = (fp ^ v) * 0x100000001b3ull; };
  for (const auto& p : series.points) {
    uint64_t bits = 0;
    std::memcpy(&bits, &p.median, sizeof bits);
    mix(uint64_t(p.job_id));
    mix(bits);
    mix(p.samples);
    mix(p.status == "ok");
  }
  Entry& e = entries_[series_id(series)];
  if (!e.valid || e.fingerprint != fp) {
    e.valid = true;
    e.fingerprint = fp;
    e.changes = detect_changes(series, options_);
  }
  return e.changes;
}

}  // namespace bb::report
