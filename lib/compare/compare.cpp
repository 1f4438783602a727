// The comparison engine: pairing, the rank tests on log ratios, the
// three-way verdict against a threshold, and the bookkeeping for benchmarks
// that were not measured on both sides. Rendering is in render.cpp.
#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "compare/unpaired.h"
#include "model/environment.h"
#include "stats/describe.h"
#include "stats/distributions.h"
#include "stats/fdr.h"
#include "stats/rank_tests.h"

namespace bb::compare {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Positive finite samples (log ratios need them) with their rounds.
struct Clean {
  std::vector<double> values;
  std::vector<int64_t> rounds;  // empty when the benchmark has none (or a mismatch)
  size_t dropped = 0;
};

Clean clean(const model::Benchmark& b) {
  Clean c;
  const bool have_rounds = !b.rounds.empty() && b.rounds.size() == b.samples.size();
  for (size_t i = 0; i < b.samples.size(); ++i) {
    const double x = b.samples[i];
    if (!std::isfinite(x) || x <= 0) {
      ++c.dropped;
      continue;
    }
    c.values.push_back(x);
    if (have_rounds) c.rounds.push_back(b.rounds[i]);
  }
  return c;
}

// Pairs of (base, head) samples that ran in the same round. Empty when the
// rounds are missing, not unique on a side, or match too few samples to be
// worth pairing (then the unpaired test is the honest one).
std::vector<std::pair<double, double>> pair_by_round(const Clean& base, const Clean& head) {
  std::vector<std::pair<double, double>> pairs;
  if (base.rounds.empty() || head.rounds.empty()) return pairs;
  std::map<int64_t, double> base_by_round;
  for (size_t i = 0; i < base.values.size(); ++i)
    if (!base_by_round.emplace(base.rounds[i], base.values[i]).second) return {};
  std::set<int64_t> seen;
  for (size_t i = 0; i < head.values.size(); ++i) {
    if (!seen.insert(head.rounds[i]).second) return {};
    auto it = base_by_round.find(head.rounds[i]);
    if (it != base_by_round.end()) pairs.emplace_back(it->second, head.values[i]);
  }
  const size_t smaller = std::min(base.values.size(), head.values.size());
  if (pairs.size() < 2 || double(pairs.size()) < 0.8 * double(smaller)) return {};
  return pairs;
}

double relative_spread(const std::vector<double>& v, double med) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return med > 0 ? (*hi - *lo) / med : kInf;
}

std::vector<double> logs(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(std::log(x));
  return out;
}

// Smallest true change that would be called a regression with 80 % power:
// the estimate must clear half the interval (so that the interval excludes
// no change) and the threshold less half the interval (so that it is not
// inside the band), and its standard error is the half-width over
// z(1 - alpha/2).
double detectable(double half, double se, double threshold) {
  return std::exp(std::max(std::log1p(threshold) - half, half) + stats::normal_quantile(0.8) * se) - 1;
}

double min_detectable(double ci_low, double ci_high, double threshold, double confidence) {
  if (!(ci_low > 0) || !std::isfinite(ci_high)) return kInf;
  const double half = (std::log(ci_high) - std::log(ci_low)) / 2;
  const double z = stats::normal_quantile(1 - (1 - confidence) / 2);
  return detectable(half, z > 0 ? half / z : 0, threshold);
}

// Runs per side to add until an interval of the same centre, narrowing as
// 1/sqrt(n), decides: it decides once it excludes no change (a half-width
// below |e|: regressed or improved, or unchanged if it then fits in the
// band) or once it fits in the band (below t - |e|), whichever comes first.
size_t more_runs_to_decide(double ratio, double ci_low, double ci_high, double threshold, size_t n) {
  if (!(ci_low > 0) || !std::isfinite(ci_high) || !(ratio > 0) || n == 0) return 0;
  const double e = std::fabs(std::log(ratio)), h = (std::log(ci_high) - std::log(ci_low)) / 2;
  const double t = std::log1p(threshold);
  const double d = std::max(e, t - e);
  if (d < 1e-9 || h <= d) return 0;
  const double needed = std::ceil(double(n) * (h / d) * (h / d));
  return needed > 1e7 ? size_t(1e7) : size_t(needed) - std::min(size_t(needed), n);
}

BenchmarkComparison unmeasured(const model::BenchmarkKey& key, Verdict v, std::string note) {
  BenchmarkComparison row;
  row.key = key;
  row.verdict = v;
  row.note = std::move(note);
  row.method = "";
  row.p_value = row.p_adjusted = std::nan("");
  row.ratio = row.ci_low = row.ci_high = std::nan("");
  row.base_median = row.head_median = std::nan("");
  row.noise = row.min_detectable = std::nan("");
  return row;
}

// A benchmark the base measured and the head did not: removed when the head
// no longer declares it, missing when the head should have produced it.
std::pair<Verdict, std::string> vanished(const model::Benchmark& bm, const model::ResultSet& head) {
  if (head.suites.empty())  // a result set from before suites were recorded
    return {Verdict::removed, "absent from the head"};
  auto it = head.suites.find(bm.key.suite);
  if (it == head.suites.end())
    return {Verdict::removed, "suite '" + bm.key.suite + "' is no longer in the head's .benchbox.yml"};
  const model::SuiteOutcome& s = it->second;
  if (s.status == model::BenchmarkStatus::failed)
    return {Verdict::missing, "suite '" + bm.key.suite + "' failed on head" + (s.reason.empty() ? "" : ": " + s.reason)};
  if (s.declared)
    return s.declares(bm.key)
               ? std::pair{Verdict::missing, "still declared on head (" + s.declared_by + ") but not measured"}
               : std::pair{Verdict::removed, "no longer declared on head (" + s.declared_by + ")"};
  if (!s.list_error.empty())
    return {Verdict::missing, "not measured on head, and its list command failed, so it may have been lost: " +
                                  s.list_error};
  return {Verdict::removed, "not in the head's results (the suite declares no list: to tell a removal from a loss)"};
}

bool has_test(const BenchmarkComparison& r) {
  switch (r.verdict) {
    case Verdict::improved:
    case Verdict::regressed:
    case Verdict::unchanged:
    case Verdict::inconclusive: return !std::isnan(r.p_value);
    default: return false;
  }
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::improved: return "improved";
    case Verdict::regressed: return "regressed";
    case Verdict::unchanged: return "unchanged";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::added: return "new";
    case Verdict::removed: return "removed";
    case Verdict::skipped: return "skipped";
    case Verdict::failed: return "failed";
    case Verdict::missing: return "missing";
    case Verdict::not_comparable: return "not comparable";
  }
  return "inconclusive";
}

double Options::threshold_for(const model::BenchmarkKey& key) const {
  if (auto it = overrides.find(key.metric); it != overrides.end()) return it->second;
  if (auto it = overrides.find(""); it != overrides.end()) return it->second;
  if (auto s = suite_thresholds.find(key.suite); s != suite_thresholds.end()) {
    if (auto it = s->second.find(key.metric); it != s->second.end()) return it->second;
    // "": every metric of the suite (a compare job's threshold).
    if (auto it = s->second.find(""); it != s->second.end()) return it->second;
  }
  auto it = thresholds.find(key.metric);
  return it == thresholds.end() ? default_threshold : it->second;
}

Verdict verdict_for(double ratio, double ci_low, double ci_high, double threshold, bool higher_is_better) {
  if (std::isnan(ratio) || std::isnan(ci_low) || std::isnan(ci_high)) return Verdict::inconclusive;
  const double up = 1 + threshold, down = 1 - threshold;
  // A change beyond chance that is not shown to be smaller than the
  // threshold: the threshold is the change that must be caught (at the
  // threshold itself the interval's far end lies beyond it almost always),
  // and no change is called one at most at the interval's one-sided level.
  if (ci_low > 1 && ci_high > up) return higher_is_better ? Verdict::improved : Verdict::regressed;
  if (ci_high < 1 && ci_low < down) return higher_is_better ? Verdict::regressed : Verdict::improved;
  if (ci_low >= down && ci_high <= up) return Verdict::unchanged;
  return Verdict::inconclusive;
}

BenchmarkComparison compare_benchmark(const model::Benchmark& base, const model::Benchmark& head,
                                      const Options& options) {
  BenchmarkComparison row;
  row.key = head.key;
  row.unit = head.unit;
  row.n_base = base.samples.size();
  row.n_head = head.samples.size();
  row.threshold = options.threshold_for(head.key);
  // The parser's direction; Options::higher_is_better can only add metrics.
  row.higher_is_better = head.direction == model::Direction::higher_is_better ||
                         contains(options.higher_is_better, head.key.metric);
  row.p_value = row.p_adjusted = std::nan("");

  if (base.unit != head.unit) {
    row.verdict = Verdict::not_comparable;
    row.note = "unit differs: base " + base.unit + ", head " + head.unit;
    return row;
  }
  if (base.direction != head.direction && !contains(options.higher_is_better, head.key.metric)) {
    row.verdict = Verdict::not_comparable;
    row.note = std::string("direction differs: base ") + model::to_string(base.direction) + ", head " +
               model::to_string(head.direction);
    return row;
  }
  if (base.summary_only || head.summary_only) {
    auto med = [](const model::Benchmark& b) {
      auto it = b.summary.find("median");
      return it != b.summary.end() ? it->second : std::nan("");
    };
    row.base_median = med(base);
    row.head_median = med(head);
    row.ratio = row.head_median / row.base_median;
    row.ci_low = -kInf;
    row.ci_high = kInf;
    row.min_detectable = kInf;
    row.verdict = Verdict::inconclusive;
    row.note = "the harness reported summaries only: no raw samples to test";
    return row;
  }

  const Clean b = clean(base), h = clean(head);
  if (b.dropped + h.dropped > 0)
    row.note = std::to_string(b.dropped + h.dropped) + " non-positive or non-finite samples ignored";
  if (b.values.empty() || h.values.empty()) {
    row.verdict = Verdict::inconclusive;
    row.ci_low = -kInf;
    row.ci_high = kInf;
    row.min_detectable = kInf;
    row.ratio = std::nan("");
    row.note = b.values.empty() ? "no valid samples on base" : "no valid samples on head";
    return row;
  }
  row.base_median = stats::median(b.values);
  row.head_median = stats::median(h.values);

  const double spread_b = relative_spread(b.values, row.base_median);
  const double spread_h = relative_spread(h.values, row.head_median);
  if (contains(options.deterministic_metrics, head.key.metric) && spread_b <= options.exact_tolerance &&
      spread_h <= options.exact_tolerance) {
    // Deterministic counts: the ranges say everything there is to say.
    auto [bmin, bmax] = std::minmax_element(b.values.begin(), b.values.end());
    auto [hmin, hmax] = std::minmax_element(h.values.begin(), h.values.end());
    row.method = "exact";
    row.n_used = std::min(b.values.size(), h.values.size());
    row.ratio = row.head_median / row.base_median;
    row.ci_low = *hmin / *bmax;
    row.ci_high = *hmax / *bmin;
    row.p_value = (row.ci_low > 1 || row.ci_high < 1) ? 0.0 : 1.0;
    row.noise = std::max(spread_b, spread_h);
    row.min_detectable = row.threshold + spread_b + spread_h;
    row.verdict = verdict_for(row.ratio, row.ci_low, row.ci_high, row.threshold, row.higher_is_better);
    return row;
  }

  stats::RankTest test;
  const auto pairs = options.pair_rounds ? pair_by_round(b, h) : std::vector<std::pair<double, double>>{};
  if (!pairs.empty()) {
    std::vector<double> d;
    d.reserve(pairs.size());
    for (auto [x, y] : pairs) d.push_back(std::log(y) - std::log(x));
    test = stats::signed_rank_test(d, options.confidence);
    row.paired = true;
    row.method = "wilcoxon-signed-rank";
    row.n_used = pairs.size();
    row.noise = stats::mad(d);
  } else {
    auto u = unpaired_test(logs(b.values), logs(h.values), options.confidence);
    test = u.test;
    row.method = std::move(u.method);
    row.n_used = b.values.size() + h.values.size();
    row.noise = u.noise;
    if (!u.note.empty()) row.note += (row.note.empty() ? "" : "; ") + u.note;
  }
  row.noise = std::expm1(row.noise);
  row.ratio = std::exp(test.estimate);
  row.ci_low = std::exp(test.ci_low);
  row.ci_high = std::exp(test.ci_high);
  row.p_value = test.p_value;
  row.min_detectable = min_detectable(row.ci_low, row.ci_high, row.threshold, options.confidence);
  row.verdict = verdict_for(row.ratio, row.ci_low, row.ci_high, row.threshold, row.higher_is_better);
  if (row.verdict == Verdict::inconclusive) {
    const size_t per_side = row.paired ? row.n_used : std::min(b.values.size(), h.values.size());
    row.more_runs = more_runs_to_decide(row.ratio, row.ci_low, row.ci_high, row.threshold, per_side);
    // Beyond any sane budget the advice is a threshold the noise allows,
    // said once for all such rows (render.cpp), not a run count per row.
    row.too_noisy = row.more_runs > 0 && per_side + row.more_runs > kMaxAdvisedRuns;
    if (row.more_runs > 0 && !row.too_noisy) {
      if (!row.note.empty()) row.note += "; ";
      row.note += "about " + std::to_string(row.more_runs) + " more runs per side would likely decide it";
    }
  }
  if (!std::isfinite(test.ci_low) || !std::isfinite(test.ci_high)) {
    if (!row.note.empty()) row.note += "; ";
    row.note += "too few samples for a " + std::to_string(int(std::lround(options.confidence * 100))) +
                " % interval";
  }
  return row;
}

namespace {

// "99.6 %": an interval's level, to as many digits as it has.
std::string format_level(double confidence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g %%", confidence * 100);
  return buf;
}

// The first n samples (and their rounds) of a benchmark: what a sequential
// look read.
model::Benchmark first_samples(model::Benchmark b, size_t n) {
  b.samples.resize(std::min(n, b.samples.size()));
  if (b.rounds.size() > b.samples.size()) b.rounds.resize(b.samples.size());
  return b;
}

// A benchmark the runner sampled sequentially is published as the sampler
// decided: on the samples its deciding look read, at that look's interval
// level (runnerd records both in extra.sequential). Its error rate then
// holds under the stopping rule that was used, which a fixed-level test
// of every sample taken after a data-dependent stop does not. The p-value
// that goes into the false-discovery control is the repeated p-value
// p · alpha / alpha_look: the look rejects at total level a' exactly when
// p <= alpha_look · a' / alpha, and over all looks that happens with
// probability at most a' (their alphas add up to alpha), whenever the
// sampling stopped. Anything else gets the fixed-sample test.
BenchmarkComparison judged(const model::Benchmark& base, const model::Benchmark& head, const Options& options) {
  const nlohmann::json* seq = head.extra.is_object() && head.extra.contains("sequential")
                                  ? &head.extra["sequential"]
                                  : nullptr;
  if (!seq || !seq->is_object() || !seq->contains("look_samples") || !seq->contains("look_confidence"))
    return compare_benchmark(base, head, options);
  const nlohmann::json& n = (*seq)["look_samples"];
  const nlohmann::json& level = (*seq)["look_confidence"];
  const double alpha = 1 - options.confidence;
  if (!n.is_array() || n.size() != 2 || !n[0].is_number_unsigned() || !n[1].is_number_unsigned() ||
      !level.is_number() || !(alpha > 0))
    return compare_benchmark(base, head, options);
  const double look_alpha = 1 - level.get<double>();
  // A look spends part of the budget, never more than all of it.
  if (!(look_alpha > 0) || look_alpha > alpha * (1 + 1e-9)) return compare_benchmark(base, head, options);
  const size_t nb = n[0].get<size_t>(), nh = n[1].get<size_t>();
  if (nb == 0 || nh == 0 || nb > base.samples.size() || nh > head.samples.size())
    return compare_benchmark(base, head, options);
  Options at_look = options;
  at_look.confidence = level.get<double>();
  BenchmarkComparison row = compare_benchmark(first_samples(base, nb), first_samples(head, nh), at_look);
  row.p_value = std::min(1.0, row.p_value * alpha / look_alpha);
  row.sequential_level = at_look.confidence;
  const size_t later = std::min(base.samples.size() - nb, head.samples.size() - nh);
  if (!row.note.empty()) row.note += "; ";
  row.note += "decided by sequential sampling after " + std::to_string(std::min(nb, nh)) + " runs a side, at its " +
              format_level(at_look.confidence) + " repeated interval" +
              (later ? " (" + std::to_string(later) + " later runs a side not judged)" : std::string());
  return row;
}

}  // namespace

Comparison compare(const model::ResultSet& base, const model::ResultSet& head, const Options& given) {
  // The suites' thresholds travel in the result sets: the head's (its
  // .benchbox.yml is the one under review), else the base's; a caller's
  // suite_thresholds entry stays.
  Options options = given;
  for (const auto* rs : {&head, &base})
    for (const auto& [suite, metrics] : rs->thresholds) options.suite_thresholds.emplace(suite, metrics);
  Comparison c;
  c.repository = head.repository.empty() ? base.repository : head.repository;
  c.base_commit = base.commit;
  c.head_commit = head.commit;
  c.seed = options.seed;
  c.confidence = options.confidence;
  c.across_jobs = base.job_id != head.job_id;
  c.base_job = base.job_id;
  c.head_job = head.job_id;
  // Only samples of one job ran side by side (Options::pair_rounds).
  if (c.across_jobs) options.pair_rounds = false;

  std::string incomparable;
  if (!base.environment_key.empty() && !head.environment_key.empty() &&
      base.environment_key != head.environment_key) {
    // Say which input changed when both sets carry their inputs.
    std::string what;
    for (const auto& line : model::environment_changes(base.environment, head.environment))
      what += (what.empty() ? "" : "; ") + line;
    incomparable = "environment differs: " + (what.empty() ? "base " + base.environment_key.substr(0, 12) + ", head " +
                                                                 head.environment_key.substr(0, 12)
                                                           : what);
  }
  else if (!base.machine_fingerprint.empty() && !head.machine_fingerprint.empty() &&
           base.machine_fingerprint != head.machine_fingerprint)
    incomparable = "machine fingerprint differs";

  std::map<model::BenchmarkKey, const model::Benchmark*> base_by_key, head_by_key;
  for (const auto& bm : base.benchmarks) base_by_key.emplace(bm.key, &bm);  // first one wins
  for (const auto& bm : head.benchmarks) head_by_key.emplace(bm.key, &bm);
  const std::set<model::BenchmarkKey> expected(options.expected.begin(), options.expected.end());

  std::set<model::BenchmarkKey> done;
  // Lost benchmarks first: whatever a side holds of them, they are missing.
  for (const auto& lost : options.lost) {
    model::SuiteOutcome names;
    names.declared = lost.names;
    std::set<std::string> seen;
    auto add = [&](const model::Benchmark& bm) {
      if (bm.key.suite != lost.suite || !names.declares(bm.key) || !done.insert(bm.key).second) return;
      seen.insert(bm.key.name);
      auto row = unmeasured(bm.key, Verdict::missing, lost.reason);
      row.unit = bm.unit;
      row.higher_is_better = bm.direction == model::Direction::higher_is_better;
      c.rows.push_back(std::move(row));
    };
    for (const auto& bm : head.benchmarks) add(bm);
    for (const auto& bm : base.benchmarks) add(bm);
    for (const auto& name : lost.names) {
      bool listed = seen.count(name) > 0;
      for (const auto& s : seen) listed = listed || s.rfind(name + "/", 0) == 0 || s.rfind(name + "[", 0) == 0;
      if (listed) continue;
      model::BenchmarkKey key{lost.suite, name, {}, "wall_time"};
      for (const auto* rs : {&head, &base})
        if (auto it = rs->suites.find(lost.suite); it != rs->suites.end() && !it->second.metrics.empty()) {
          key.metric = it->second.metrics.front();
          break;
        }
      if (done.insert(key).second) c.rows.push_back(unmeasured(key, Verdict::missing, lost.reason));
    }
  }
  // A metric its suite does not show (`metrics:`) is recorded, not judged.
  for (const auto& b : head.benchmarks)
    if (!model::shown(head, b.key)) done.insert(b.key);
  for (const auto& b : base.benchmarks)
    if (!model::shown(head.suites.count(b.key.suite) ? head : base, b.key)) done.insert(b.key);
  for (const auto& hb : head.benchmarks) {
    if (!done.insert(hb.key).second) continue;
    auto it = base_by_key.find(hb.key);
    const model::Benchmark* bb = it == base_by_key.end() ? nullptr : it->second;
    BenchmarkComparison row;
    if (hb.status == model::BenchmarkStatus::failed) {
      row = unmeasured(hb.key, Verdict::failed, hb.reason.empty() ? "failed on head" : hb.reason);
    } else if (hb.status == model::BenchmarkStatus::skipped) {
      row = unmeasured(hb.key, Verdict::skipped, hb.reason);
    } else if (!bb) {
      row = unmeasured(hb.key, Verdict::added, "");
      row.n_head = hb.samples.size();
      row.head_median = stats::median(stats::finite_only(hb.samples));
    } else if (bb->status == model::BenchmarkStatus::failed) {
      row = unmeasured(hb.key, Verdict::failed,
                       "failed on base" + (bb->reason.empty() ? std::string() : ": " + bb->reason));
    } else if (bb->status == model::BenchmarkStatus::skipped) {
      row = unmeasured(hb.key, Verdict::skipped,
                       "skipped on base" + (bb->reason.empty() ? std::string() : ": " + bb->reason));
    } else if (!incomparable.empty()) {
      row = unmeasured(hb.key, Verdict::not_comparable, incomparable);
    } else {
      row = judged(*bb, hb, options);
    }
    if (row.unit.empty()) row.unit = hb.unit;
    row.higher_is_better = row.higher_is_better || hb.direction == model::Direction::higher_is_better;
    c.rows.push_back(std::move(row));
  }
  for (const auto& bm : base.benchmarks) {
    if (!done.insert(bm.key).second) continue;
    auto [v, why] = expected.count(bm.key) ? std::pair{Verdict::missing, std::string("expected but absent on head")}
                                           : vanished(bm, head);
    auto row = unmeasured(bm.key, v, why);
    row.unit = bm.unit;
    row.higher_is_better = bm.direction == model::Direction::higher_is_better;
    row.n_base = bm.samples.size();
    row.base_median = stats::median(stats::finite_only(bm.samples));
    c.rows.push_back(std::move(row));
  }
  for (const auto& key : options.expected) {
    if (!done.insert(key).second) continue;
    c.rows.push_back(unmeasured(key, Verdict::missing, "expected but absent on both sides"));
  }

  // Benjamini-Hochberg over every benchmark that was tested.
  std::vector<double> p;
  std::vector<size_t> tested;
  for (size_t i = 0; i < c.rows.size(); ++i)
    if (has_test(c.rows[i])) {
      tested.push_back(i);
      p.push_back(c.rows[i].p_value);
    }
  const std::vector<double> adjusted = stats::benjamini_hochberg(p);
  for (size_t k = 0; k < tested.size(); ++k) {
    auto& row = c.rows[tested[k]];
    row.p_adjusted = adjusted[k];
    row.fdr_significant = adjusted[k] <= options.fdr_q;
    if (options.fdr_gate && !row.fdr_significant &&
        (row.verdict == Verdict::regressed || row.verdict == Verdict::improved)) {
      row.verdict = Verdict::inconclusive;
      if (!row.note.empty()) row.note += "; ";
      row.note += "did not clear the false-discovery-rate control";
    }
  }
  return c;
}

double min_detectable_one_side(const std::vector<double>& samples, double threshold, double confidence) {
  std::vector<double> logs;
  for (double x : samples)
    if (std::isfinite(x) && x > 0) logs.push_back(std::log(x));
  if (logs.size() < 3) return kInf;
  // Two samples of n with this spread each: the Hodges-Lehmann shift has
  // about the variance of a difference of means over 3/pi, its efficiency
  // under normal noise.
  const double n = double(logs.size());
  const double se = stats::mad(logs) * std::sqrt(2 / n) / std::sqrt(3 / M_PI);
  const double z = stats::normal_quantile(1 - (1 - confidence) / 2);
  return detectable(z * se, se, threshold);
}

void hold_for_confirmation(Comparison& c) {
  if (!c.across_jobs) return;
  for (auto& row : c.rows) {
    if (row.verdict != Verdict::regressed && row.verdict != Verdict::improved) continue;
    // Counts that repeat exactly (callgrind's) do not move with the host's
    // load or clock: two jobs' counts differ only where the code does.
    if (row.method == "exact") continue;
    row.held = row.verdict;
    row.verdict = Verdict::inconclusive;
    if (!row.note.empty()) row.note += "; ";
    row.note += std::string(to_string(*row.held)) +
                " against another job's run: held until a job measures both commits side by side";
  }
}

bool flags_regression(const BenchmarkComparison& row) {
  return row.verdict == Verdict::regressed || row.held == Verdict::regressed;
}

bool any_regression(const Comparison& c) {
  return std::any_of(c.rows.begin(), c.rows.end(), [](const auto& r) { return r.verdict == Verdict::regressed; });
}

bool any_problem(const Comparison& c) {
  return std::any_of(c.rows.begin(), c.rows.end(), [](const auto& r) {
    return r.verdict == Verdict::regressed || r.verdict == Verdict::failed || r.verdict == Verdict::missing;
  });
}

}  // namespace bb::compare
