// Change points of main-branch series: where a benchmark's level moved, as a
// commit range with the size of the move and its interval. Pure.
//
// The series values are the per-run medians history.db keeps (one point per
// push), not the raw samples: E-divisive works on the sequence of runs, and a
// run's median is what moves when a commit changes the code. Only points
// with status "ok" take part. A Series is already one environment key
// (HistoryStore::series() groups by benchmark and environment), so a change
// of machine or toolchain starts a new series instead of a false step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "report/history.h"
#include "stats/changepoint.h"

namespace bb::report {

struct ChangeOptions {
  // Its seed is replaced by series_seed(). Significance 0.01 rather than the
  // detector's 0.05: the hierarchical search tests every segment again; on 50
  // simulated 40-run series with a 10 % step and +-0.5 % noise, 11 grew a
  // spurious second split at 0.05 and none at 0.01 (every step still found).
  // A false alarm on main costs more than a step found a run later.
  stats::ChangePointOptions detector{.significance = 0.01};
  double confidence = 0.95;            // of the effect's interval (segments can be 4 points)
  size_t max_points = 100;             // only the newest points are examined: bounded cost
};

struct SeriesChange {
  size_t index = 0;            // into Series::points: the first point after the change
  std::string commit_before;   // last commit measured before the change
  std::string commit_after;    // first commit measured after it
  int64_t job_before = 0, job_after = 0;
  // Effect: exp(Hodges-Lehmann shift of log medians), after / before, from
  // the Mann-Whitney test of the segments either side (each bounded by the
  // neighbouring change points); the interval by test inversion.
  double ratio = 1, ci_low = 0, ci_high = 0, confidence = 0;
  double p_value = 1;          // the permutation test's p-value of the split
  uint64_t seed = 0;           // permutation seed (series_seed): replayable
  bool worse = false;          // a step the wrong way for the series' direction


  std::string range() const;     // "abc123456789..def456789012"
  std::string describe() const;  // "abc..def ×1.120 [1.080, 1.160] worse"
  nlohmann::json to_json() const;
};

// Deterministic seed of a series: FNV-1a of repository, key and environment
// (low 53 bits).
uint64_t series_seed(const Series& series);

// Every change point of the series (of its newest max_points ok points),
// oldest first.
std::vector<SeriesChange> detect_changes(const Series& series, const ChangeOptions& options = {});

// Memoises detect_changes per series while it does not grow: the reporter
// re-renders the dashboard after every job, and only the series that job
// touched changed. (Batch detection is recomputed on a grown series rather
// than kept incrementally, so the answer never depends on the daemon's uptime.)
class ChangeCache {
 public:
  explicit ChangeCache(ChangeOptions options = {}) : options_(options) {}
  const std::vector<SeriesChange>& changes(const Series& series);

 private:
  struct Entry {
    bool valid = false;
    uint64_t fingerprint = 0;
    std::vector<SeriesChange> changes;
  };
  ChangeOptions options_;
  std::map<std::string, Entry> entries_;
};

}  // namespace bb::report
