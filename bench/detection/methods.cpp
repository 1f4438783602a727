#include "methods.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "stats/describe.h"
#include "stats/rank_tests.h"
#include "stats/sequential.h"
#include "stats/welch.h"

namespace bb::detection {

namespace {

model::Benchmark as_benchmark(const std::vector<double>& v, size_t n, const std::string& metric,
                              bool rounds = true) {
  model::Benchmark b;
  b.key.suite = "detection";
  b.key.name = "workload";
  b.key.metric = metric;
  b.unit = metric == "instructions" ? "count" : "s";
  b.samples.assign(v.begin(), v.begin() + std::ptrdiff_t(n));
  if (rounds)
    for (size_t i = 0; i < n; ++i) b.rounds.push_back(int64_t(i));
  return b;
}

double seconds(const Rounds& r, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += r.base_wall[i] + r.head_wall[i];
  return s;
}

std::vector<double> prefix(const std::vector<double>& v, size_t n) {
  return {v.begin(), v.begin() + std::ptrdiff_t(std::min(n, v.size()))};
}

// The sampler as runnerd drives it: asked at its looks, stopped by its
// verdict, by the time budget or by the last recorded round. Returns the
// deciding look's samples a side (0: never stopped) and its level.
std::pair<size_t, double> sample(const Rounds& r, const EngineConfig& c, Decision& d) {
  compare::SequentialSampler sampler(c.options, c.sequential);
  const auto& design = sampler.design();
  const size_t available = r.base.size();
  double elapsed = 0;
  for (size_t n = 1; n <= available; ++n) {
    elapsed += r.base_wall[n - 1] + r.head_wall[n - 1];
    // The runner's clock: out of time, or out of recorded rounds, ends the run.
    const bool out_of_time = elapsed >= c.budget_seconds || n == available;
    if (!out_of_time && stats::look_index(design, n) < 0 && n < design.looks.back()) continue;
    auto step = sampler.update(as_benchmark(r.base, n, c.metric), as_benchmark(r.head, n, c.metric), out_of_time);
    if (step.stop) {
      d.regressed = step.result.verdict == compare::Verdict::regressed;
      d.unchanged = step.result.verdict == compare::Verdict::unchanged;
      d.ratio = step.result.ratio;
      d.rounds = n;
      d.seconds = seconds(r, n);
      return {n, step.look_confidence};
    }
  }
  return {0, 0};
}

// One side's result set as runnerd writes it after a sequential run: every
// round it ran, and on the head the deciding look (extra.sequential).
model::ResultSet result_set(const std::vector<double>& v, const std::string& commit, const std::string& metric) {
  model::ResultSet rs;
  rs.repository = "bench/detection";
  rs.commit = commit;
  rs.job_id = 1;  // both sides ran in one job, interleaved
  rs.benchmarks.push_back(as_benchmark(v, v.size(), metric));
  return rs;
}

}  // namespace

Decision benchbox_sequential(const Rounds& r, const EngineConfig& c) {
  Decision d;
  sample(r, c, d);
  return d;
}

Decision benchbox_published(const Rounds& r, const EngineConfig& c) {
  Decision d;
  const auto [look_samples, look_confidence] = sample(r, c, d);
  const Decision sampler = d;
  model::ResultSet base = result_set(r.base, "base", c.metric), head = result_set(r.head, "head", c.metric);
  if (look_samples)
    head.benchmarks[0].extra["sequential"] = {{"look_samples", {look_samples, look_samples}},
                                              {"look_confidence", look_confidence}};
  // Through the files' JSON, as reporterd reads them.
  auto base_read = model::result_set_from_json(nlohmann::json::parse(model::to_json(base).dump()));
  auto head_read = model::result_set_from_json(nlohmann::json::parse(model::to_json(head).dump()));
  if (!base_read || !head_read) {
    d.regressed = d.unchanged = false;
    d.agrees = false;
    return d;
  }
  const auto c_read = compare::compare(*base_read, *head_read, c.options);
  const auto v = c_read.rows.at(0).verdict;
  d.regressed = v == compare::Verdict::regressed;
  d.unchanged = v == compare::Verdict::unchanged;
  d.ratio = c_read.rows.at(0).ratio;
  d.agrees = d.regressed == sampler.regressed && d.unchanged == sampler.unchanged;
  return d;
}

Decision benchbox_fixed(const Rounds& r, const EngineConfig& c) {
  const size_t n = std::min(c.fixed_n, r.base.size());
  const auto row = compare::compare_benchmark(as_benchmark(r.base, n, c.metric), as_benchmark(r.head, n, c.metric), {});
  return {row.verdict == compare::Verdict::regressed, row.verdict == compare::Verdict::unchanged, n, seconds(r, n)};
}

Decision asv_rule(const Rounds& r, const EngineConfig& c) {
  const size_t n = std::min(c.fixed_n, r.base.size());
  const auto b = prefix(r.base, n), h = prefix(r.head, n);
  const double ratio = stats::median(h) / stats::median(b);
  const double p = stats::mann_whitney_test(h, b, 0.99).p_value;
  return {ratio >= 1.1 && p < 0.002, false, n, seconds(r, n)};
}

Decision welch99(const Rounds& r, const EngineConfig& c) {
  const size_t n = std::min(c.fixed_n, r.base.size());
  const auto w = stats::welch_t_test(prefix(r.head, n), prefix(r.base, n));
  return {w.t > 0 && w.p_value < 0.01, false, n, seconds(r, n)};
}

Decision benchbox_fixed_unpaired(const Rounds& r, const EngineConfig& c) {
  const size_t n = std::min(c.fixed_n, r.base.size());
  const auto row = compare::compare_benchmark(as_benchmark(r.base, n, c.metric, false),
                                              as_benchmark(r.head, n, c.metric, false), {});
  return {row.verdict == compare::Verdict::regressed, row.verdict == compare::Verdict::unchanged, n, seconds(r, n)};
}

Decision mann_whitney_one_sided(const Rounds& r, const EngineConfig& c) {
  const size_t n = std::min(c.fixed_n, r.base.size());
  const auto t = stats::mann_whitney_test(prefix(r.head, n), prefix(r.base, n), 0.99);
  const double one_sided = t.estimate > 0 ? t.p_value / 2 : 1 - t.p_value / 2;
  return {one_sided < 0.01, false, n, seconds(r, n)};
}

}  // namespace bb::detection
