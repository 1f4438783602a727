// Descriptive statistics: the small pieces every other routine in lib/stats
// builds on (the distributions are in stats/distributions.h). Inputs are taken by value where the
// routine must sort or partition a copy anyway.
#pragma once

#include <cstddef>
#include <vector>

namespace bb::stats {

// The finite values of v, in order (NaN and ±inf removed).
std::vector<double> finite_only(const std::vector<double>& v);

// Median; NaN for an empty vector.
double median(std::vector<double> v);
// Quantile p in [0, 1] by linear interpolation between order statistics
// (R's type 7, the default of R's quantile()). NaN for an empty vector.
double quantile(std::vector<double> v, double p);
// Median absolute deviation scaled by 1.4826, so it estimates the standard
// deviation of normal data (R's mad()). 0 for fewer than two values.
double mad(const std::vector<double>& v);
double mean(const std::vector<double>& v);
// Sample variance (n - 1 denominator); 0 for fewer than two values.
double variance(const std::vector<double>& v);

// k-th smallest (0-based) of v; v is partially reordered.
double kth_smallest(std::vector<double>& v, size_t k);

// Mid-ranks (1-based; ties get the mean of the ranks they span) and the
// tie correction sum over groups of (t^3 - t).
struct Ranks {
  std::vector<double> rank;
  double tie_sum = 0;
};
Ranks rank_with_ties(const std::vector<double>& v);

}  // namespace bb::stats
