// E-divisive means change-point detection (Matteson & James 2014, as used by
// MongoDB's signal processing and by Hunter/Otava): the split that maximises
// the energy distance between "before" and "after", accepted when a
// permutation test says such a split is unlikely by chance; then the same on
// each segment, hierarchically, until no significant split is left.
//
// Incremental: a series only grows at its end on the main branch, so the
// detector keeps the change points it has accepted and, when points are
// appended, re-examines only the segment after the last accepted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bb::stats {

struct ChangePointOptions {
  double significance = 0.05;  // permutation p-value below which a split is accepted
  int permutations = 199;
  size_t min_segment = 4;      // fewest points on either side of a split
  uint64_t seed = 1;           // permutations are seeded: same input, same answer
  // Stop permuting once a split can no longer be significant (the same
  // decisions; a rejected split's p-value is then only a lower bound).
  bool early_stop = true;
};

struct ChangePoint {
  size_t index = 0;       // first point of the new segment
  double statistic = 0;   // scaled energy distance q(tau)
  double p_value = 1;     // permutation p-value
};

// All accepted change points of `series`, sorted by index.
std::vector<ChangePoint> e_divisive(const std::vector<double>& series, const ChangePointOptions& options);

// The best split of series[begin, end) and its statistic (no test); index 0
// if the range is too short.
ChangePoint best_split(const std::vector<double>& series, size_t begin, size_t end, size_t min_segment);

class IncrementalChangePoints {
 public:
  explicit IncrementalChangePoints(ChangePointOptions options) : options_(options) {}
  // Appends points and updates the change points; returns them all.
  const std::vector<ChangePoint>& append(const std::vector<double>& points);
  const std::vector<ChangePoint>& change_points() const { return accepted_; }
  // Points re-examined by the last append (what "incremental" saves).
  size_t last_examined() const { return last_examined_; }

 private:
  ChangePointOptions options_;
  std::vector<double> series_;
  std::vector<ChangePoint> accepted_;
  size_t last_examined_ = 0;
};

}  // namespace bb::stats
