// The comparison engine's entry point: two canonical result sets in, a
// verdict per benchmark and metric out. Pure and deterministic given the seed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/result_set.h"

namespace bb::compare {

enum class Verdict {
  improved, regressed, unchanged, inconclusive,  // both sides measured
  added, removed,                                // present on one side only ("new"/"removed")
  skipped, failed, missing,                      // not measured; never counted as success
  not_comparable,                                // environment or unit differs
};
const char* to_string(Verdict v);

struct Options {
  // Level of the two-sided interval every verdict reads. At 0.98 each end
  // is a one-sided 99 % bound, so "regressed" (low end above 1, see
  // verdict_for) and "improved" are one-sided tests at 1 %, the level of the Mann-Whitney
  // p < 0.01 CI gates use, and "unchanged" (inside +-threshold) is two
  // one-sided tests at 1 % (TOST). The sequential sampler spends 1 - confidence
  // over its looks: at most 1 % false regressions.
  double confidence = 0.98;
  // Relative threshold: the change to catch; an interval inside ±threshold
  // is "unchanged". Which
  // one applies, first match wins: `overrides` (the caller's, e.g.
  // benchboxctl compare --threshold; "" = every metric), the suite's own
  // (`suite_thresholds`, which compare() fills from the result sets), then
  // these defaults per metric, then default_threshold.
  std::map<std::string, double> thresholds = {
      {"wall_time", 0.01}, {"cpu_time", 0.005}, {"instructions", 0.0005}, {"memory", 0.01}};
  double default_threshold = 0.01;
  std::map<std::string, std::map<std::string, double>> suite_thresholds;  // suite -> metric ("" = all) -> t
  std::map<std::string, double> overrides;                                 // metric ("" = all) -> t
  double fdr_q = 0.05;                      // Benjamini-Hochberg level over a run
  // A regressed/improved verdict whose p-value does not clear Benjamini-
  // Hochberg at fdr_q over the whole run is downgraded to inconclusive.
  bool fdr_gate = true;
  uint64_t seed = 0;                        // bootstrap etc.; recorded in the result
  // Pair base and head samples by round. Only samples that ran side by side
  // in one job are paired: compare() turns this off when the two result sets
  // come from different jobs (round 3 of a job an hour ago ran next to
  // nothing of this one), whatever the caller set.
  bool pair_rounds = true;
  std::vector<model::BenchmarkKey> expected;  // benchmarks that must be present
  // Benchmarks known to be lost, with why: those of a shard job that never
  // finished (report/shard_merge.h). Each is missing with its reason,
  // whatever either side holds of it; one neither side has is listed under
  // its suite's first shown metric.
  struct Lost {
    std::string suite;
    std::vector<std::string> names;  // matched as SuiteOutcome::declares matches
    std::string reason;
  };
  std::vector<Lost> lost;
  // Metrics that can repeat exactly (callgrind's and iai-callgrind's event
  // counts, allocation counts): compared exactly when each side's samples
  // agree within exact_tolerance (relative), statistically otherwise.
  std::vector<std::string> deterministic_metrics = {
      "instructions", "data_reads", "data_writes", "l1i_misses", "l1d_read_misses", "l1d_write_misses",
      "ll_instruction_misses", "ll_data_read_misses", "ll_data_write_misses", "conditional_branches",
      "conditional_branch_misses", "indirect_branches", "indirect_branch_misses",  // callgrind's events
      "l1_hits", "ll_hits", "ram_hits", "total_rw", "estimated_cycles",            // iai-callgrind's
      "alloc_bytes", "allocs"};  // iai-callgrind's DHAT, Julia's BenchmarkTools
  double exact_tolerance = 1e-4;
  // Metrics where a larger value is better (throughput); all others: smaller is better.
  std::vector<std::string> higher_is_better;

  double threshold_for(const model::BenchmarkKey& key) const;
};

struct BenchmarkComparison {
  model::BenchmarkKey key;
  Verdict verdict = Verdict::inconclusive;
  std::string unit;
  double ratio = 1.0;          // head / base estimate (Hodges-Lehmann on log ratios)
  double ci_low = 1.0;         // confidence interval of the ratio
  double ci_high = 1.0;
  double p_value = 1.0;
  double p_adjusted = 1.0;     // Benjamini-Hochberg
  bool fdr_significant = false;
  size_t n_base = 0, n_head = 0;
  bool paired = false;
  std::string method;          // "wilcoxon-signed-rank", "mann-whitney", "exact"
  double noise = 0;            // relative noise estimate (robust CV)
  double min_detectable = 0;   // minimum detectable relative change at these samples
  // Inconclusive: runs per side to add that would likely decide it (the
  // interval narrows as 1/sqrt(n) around the same estimate); 0 = unknown,
  // e.g. the estimate sits on the threshold.
  size_t more_runs = 0;
  // Inconclusive, and deciding it would take more than kMaxAdvisedRuns runs
  // a side: the threshold is out of the noise's reach.
  bool too_noisy = false;
  double base_median = 0, head_median = 0;
  std::string note;            // why not comparable/failed/inconclusive
  double threshold = 0;        // the relative threshold the verdict used
  size_t n_used = 0;           // pairs (paired) or samples used in the test
  bool higher_is_better = false;
  // Sampled sequentially: the interval level of the look that decided it
  // (its repeated interval; compare() publishes that look's decision). 0:
  // a fixed-sample test at the comparison's confidence.
  double sequential_level = 0;
  // Across jobs (hold_for_confirmation): regressed or improved, as the test
  // read it, held as inconclusive until a job measures both commits side by
  // side; unset otherwise.
  std::optional<Verdict> held;
};

// Runs a side beyond which more runs is no advice: the report suggests a
// threshold the noise allows, or a quieter way to measure, instead.
inline constexpr size_t kMaxAdvisedRuns = 1000;

struct Comparison {
  std::string repository;
  std::string base_commit, head_commit;
  uint64_t seed = 0;
  double confidence = 0.98;
  // Base and head ran in different jobs (their job ids differ): nothing was
  // paired, and what changed between the two jobs (the host's load, its
  // clock) is not told apart from what changed in the code.
  bool across_jobs = false;
  int64_t base_job = 0, head_job = 0;
  std::vector<BenchmarkComparison> rows;
};

Comparison compare(const model::ResultSet& base, const model::ResultSet& head, const Options& options);

// A value in its unit, scaled for reading ("1.234 ms", "12.5 MiB"); "–"
// when not finite. The reports' tables use it.
std::string format_value(double v, const std::string& unit);

// One benchmark (both sides measured, status ok), without FDR: the building
// block of compare() and of the sequential sampler.
BenchmarkComparison compare_benchmark(const model::Benchmark& base, const model::Benchmark& head,
                                      const Options& options);

// The smallest change that a later comparison of as many samples against
// these would call regressed 80 % of the time, from one side alone (a
// branch's first run): unpaired, with these samples' robust spread on both
// sides, at `threshold` and `confidence`. Interleaved, paired rounds
// usually do better. inf with fewer than 3 positive samples.
double min_detectable_one_side(const std::vector<double>& samples, double threshold, double confidence);

// The three-way verdict from a ratio's estimate and interval against a
// relative threshold: regressed (improved) when the interval lies above
// (below) 1, a one-sided test at the interval's level, and does not lie
// inside the band [1 - threshold, 1 + threshold] (the change is not shown
// to be smaller than the threshold); unchanged when it lies inside the
// band; else inconclusive. The threshold is the change to catch: a change
// of exactly the threshold is called unchanged at most at the interval's
// one-sided level, as no change is called regressed.
Verdict verdict_for(double ratio, double ci_low, double ci_high, double threshold, bool higher_is_better);

// A comparison across jobs cannot tell a change of the code from a change
// of the host between the two jobs (its load, its clock). So its regressed
// and improved rows become inconclusive, the verdict they read kept in
// `held`, with a note: what is published never calls them so until a
// confirmation has measured both commits in one job. Rows compared exactly
// (deterministic counts, e.g. callgrind's) are kept. No-op within a job.
void hold_for_confirmation(Comparison& c);
// Regressed, or held as regressed for a confirmation: what starts one.
bool flags_regression(const BenchmarkComparison& row);

// True when a benchmark regressed.
bool any_regression(const Comparison& c);
// True when a benchmark regressed, failed or is missing: what a CI gate
// must not pass (a failed or missing benchmark is never a success).
bool any_problem(const Comparison& c);
std::string render_markdown(const Comparison& c);
nlohmann::json to_json(const Comparison& c);

}  // namespace bb::compare
