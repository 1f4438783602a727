// Whether the box delivers what it did: the canary's history judged as a
// series (docs/canary.md, "The box's health"). Pure.
//
// One pair of canary runs says little: on a shared machine the level moves
// run to run by more than any one run's spread. So each run is judged
// against the box's own recent history: its baseline is the median of the
// last steady runs' medians, its band the larger of a floor and a multiple
// of their run-to-run spread (the MAD of their logs), widened while fewer
// than baseline_runs are known, as Student's t is for a small sample. A run outside the
// band in any workload shifts the box; it is steady again after runs back
// inside, or, when the runs outside agree with each other, at their new
// level (a microcode or firmware change that stays). Until a few runs are
// known it is learning, and holds nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bb::canary {

// One canary run: each workload's median ("canary/cpu" -> seconds).
struct Run {
  int64_t time = 0;  // unix seconds it finished
  std::map<std::string, double> medians;
  std::map<std::string, double> cv;  // each workload's coefficient of variation in the run (shown, not judged)
};

struct HealthOptions {
  size_t baseline_runs = 20;   // the newest steady runs the level is taken from
  size_t min_baseline = 3;     // fewer steady runs known: learning
  double min_band = 0.03;      // a shift under 3 % is never one
  double spread_k = 4;         // the band: spread_k × the baseline's robust spread (log scale)
  size_t shift_runs = 2;       // runs outside in a row that shift a steady box
  size_t back_runs = 2;        // runs back inside the band that end a shift
  size_t new_level_runs = 5;   // runs outside that agree with each other: the new level ...
  int64_t new_level_seconds = 1800;  // ... over at least this long: a passing load is not a level
};

enum class Level { learning, steady, shifted };
const char* to_string(Level l);

struct Health {
  Level level = Level::learning;
  int64_t since = 0;        // when this level began (the run that began it); 0 = no run yet
  // shifted: the workload furthest out, its ratio (run / baseline) and the
  // band it left; steady: the last run's largest ratio and the band.
  std::string workload;
  double ratio = 1;
  double band = 0;          // as a fraction: 0.05 = ±5 %
  size_t runs = 0;          // runs judged
  bool new_level = false;   // steady at a level it shifted to (a baseline started over)
  // steady: the runs outside the band in a row so far (fewer than
  // shift_runs; the last run's ratio and band are then that run's).
  size_t outside = 0;
  size_t shift_runs = 2;    // HealthOptions::shift_runs, for describe()
  std::string describe() const;  // one line for benchboxctl status and the journal
};

// `runs` oldest first. `each`, when given, hears the judgement as it
// stands after each run, in order: the series' change points in one pass
// (each is what judge() of the runs up to it returns).
Health judge(const std::vector<Run>& runs, const HealthOptions& options = {},
             const std::function<void(const Health&)>& each = nullptr);

}  // namespace bb::canary
