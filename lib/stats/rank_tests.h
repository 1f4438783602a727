// Wilcoxon signed-rank (paired) and Mann-Whitney U (unpaired) tests with
// Hodges-Lehmann estimates and their confidence intervals by test inversion.
//
// P-values follow R's wilcox.test(): the exact null distribution when there
// are fewer than 50 observations (per sample) and no ties (nor zero
// differences), otherwise the normal approximation with tie and continuity
// corrections. Intervals: the exact inversion R uses for small samples;
// above that, the normal-approximation order statistic of Hollander & Wolfe
// (R solves for the root of the asymptotic statistic instead: the two agree
// to within one Walsh average / pairwise difference).
//
// Non-finite input values are dropped. Too few observations for the
// requested confidence give an infinite interval, never a made-up one.
#pragma once

#include <cstddef>
#include <vector>

namespace bb::stats {

// Exact null distribution of the signed-rank statistic V for n observations.
double signed_rank_cdf(double v, size_t n);     // P(V <= v)
size_t signed_rank_quantile(double p, size_t n);  // smallest v with P(V <= v) >= p (R's qsignrank)

// Exact null distribution of the Mann-Whitney statistic W for samples of m and n.
double mann_whitney_cdf(double w, size_t m, size_t n);
size_t mann_whitney_quantile(double p, size_t m, size_t n);  // R's qwilcox

struct RankTest {
  size_t n = 0;           // observations used (signed rank: non-zero differences)
  double statistic = 0;   // V (signed rank) or W (Mann-Whitney), as R reports them
  double p_value = 1;     // two-sided
  bool exact = false;     // p-value from the exact distribution
  double estimate = 0;    // Hodges-Lehmann: pseudomedian / location shift
  double ci_low = 0, ci_high = 0;
  double confidence = 0;  // achieved coverage of [ci_low, ci_high] (exact) or nominal
};

// Signed-rank test of the differences d against 0. The estimate is the median
// of the Walsh averages (d_i + d_j)/2, i <= j, over all differences; the
// test drops zero differences as Wilcoxon (and R) do.
RankTest signed_rank_test(const std::vector<double>& d, double confidence);

// Mann-Whitney test of x against y; the estimate is the median of x_i - y_j
// (location shift of x relative to y).
RankTest mann_whitney_test(const std::vector<double>& x, const std::vector<double>& y,
                           double confidence);

}  // namespace bb::stats
