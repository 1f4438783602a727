// The decision rules the detection benchmark compares, each applied to the
// same interleaved rounds: benchbox's engine (sequential and at a fixed n),
// asv's rule and a Welch t-test at 99 %.
#pragma once

#include <string>
#include <vector>

#include "compare/sequential.h"

namespace bb::detection {

// One trial's measurements, one entry per round (base and head ran adjacent).
struct Rounds {
  std::vector<double> base, head;            // the decision metric
  std::vector<double> base_wall, head_wall;  // wall seconds, to account time spent
};

struct Decision {
  bool regressed = false;
  bool unchanged = false;
  size_t rounds = 0;   // runs per side used
  double seconds = 0;  // wall time of the runs used
  double ratio = 1;    // benchbox's estimate (head / base), where it gives one
  bool agrees = true;  // benchbox_published: it says what the sampler decided
};

struct EngineConfig {
  std::string metric = "cpu_time";
  compare::Options options;  // benchbox's: thresholds and confidence
  compare::SequentialOptions sequential;
  size_t fixed_n = 30;  // runs a side for the fixed-sample methods
  double budget_seconds = 60;  // the sequential method stops when its runs took this long
};

// benchbox: asks the sequential sampler after every round. `rounds` may hold
// more rounds than it needs; fewer than max_rounds ends at the last one.
Decision benchbox_sequential(const Rounds& r, const EngineConfig& c);
// What is published: the sampler's run written as runnerd writes its result
// files (every round, the deciding look in extra.sequential), read back from
// JSON and judged by compare::compare(), the reporter's path.
Decision benchbox_published(const Rounds& r, const EngineConfig& c);
// benchbox's engine on the first fixed_n rounds, at 99 %.
Decision benchbox_fixed(const Rounds& r, const EngineConfig& c);
// asv: ratio of medians >= 1.1 and Mann-Whitney p < 0.002.
Decision asv_rule(const Rounds& r, const EngineConfig& c);
// Welch's t-test at 99 %: head mean above base mean with p < 0.01.
Decision welch99(const Rounds& r, const EngineConfig& c);
// The CI-gate use: two result files, no rounds to pair. benchbox's engine
// on the first fixed_n runs a side, unpaired (Mann-Whitney intervals) ...
Decision benchbox_fixed_unpaired(const Rounds& r, const EngineConfig& c);
// ... and the plain test it should at least match: one-sided Mann-Whitney
// (head slower) at p < 0.01.
Decision mann_whitney_one_sided(const Rounds& r, const EngineConfig& c);

}  // namespace bb::detection
