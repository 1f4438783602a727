#include "stats/rank_tests.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "stats/describe.h"
#include "stats/distributions.h"

namespace bb::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// R's wilcox.test switches to the normal approximation at 50 observations.
constexpr size_t kExactLimit = 50;

// P(V = v) for v = 0 .. n(n+1)/2: each rank i is in the positive set with
// probability 1/2, independently.
std::vector<double> signed_rank_pmf(size_t n) {
  const size_t max = n * (n + 1) / 2;
  std::vector<double> p(max + 1, 0.0);
  p[0] = 1;
  size_t top = 0;
  for (size_t i = 1; i <= n; ++i) {
    top += i;
    for (size_t v = top + 1; v-- > 0;) p[v] = (p[v] + (v >= i ? p[v - i] : 0.0)) / 2;
  }
  return p;
}

// Counts of W = w for samples of m and n, by the recurrence
// c(w; m, n) = c(w - n; m - 1, n) + c(w; m, n - 1), normalised to probabilities.
std::vector<double> mann_whitney_pmf(size_t m, size_t n) {
  // row[j] = distribution for (i, j), built for i = 0 .. m.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>{1.0});
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1);
    next[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> c(i * j + 1, 0.0);
      const auto& left = row[j];       // (i - 1, j), shifted by j
      const auto& down = next[j - 1];  // (i, j - 1)
      for (size_t w = 0; w < left.size(); ++w) c[w + j] += left[w];
      for (size_t w = 0; w < down.size(); ++w) c[w] += down[w];
      next[j] = std::move(c);
    }
    row = std::move(next);
  }
  std::vector<double> p = row[n];
  double total = 0;
  for (double c : p) total += c;
  for (double& c : p) c /= total;
  return p;
}

double cdf_from_pmf(const std::vector<double>& pmf, double v) {
  if (v < 0) return 0;
  const size_t top = std::min(pmf.size() - 1, static_cast<size_t>(std::floor(v + 1e-7)));
  double s = 0;
  for (size_t k = 0; k <= top; ++k) s += pmf[k];
  return std::min(s, 1.0);
}

size_t quantile_from_pmf(const std::vector<double>& pmf, double p) {
  p -= 10 * DBL_EPSILON;  // as R does, so that exact lattice points are hit
  double s = 0;
  for (size_t k = 0; k < pmf.size(); ++k) {
    s += pmf[k];
    if (s >= p) return k;
  }
  return pmf.size() - 1;
}

// Two-sided exact p-value from a symmetric discrete null with mean `centre`.
double exact_two_sided(const std::vector<double>& pmf, double stat, double centre) {
  double p = stat > centre ? 1 - cdf_from_pmf(pmf, stat - 1) : cdf_from_pmf(pmf, stat);
  return std::min(1.0, 2 * p);
}

double normal_two_sided(double z_centered, double sigma) {
  if (sigma <= 0) return 1;
  const double correction = z_centered > 0 ? 0.5 : (z_centered < 0 ? -0.5 : 0.0);
  const double z = (z_centered - correction) / sigma;
  return std::min(1.0, 2 * std::min(normal_cdf(z), 1 - normal_cdf(z)));
}

// Sets ci_low/ci_high to the k-th smallest and k-th largest of values
// (k 1-based); an infinite interval if k < 1.
void order_interval(std::vector<double>& values, double k, RankTest* r) {
  if (values.empty() || k < 1) {
    r->ci_low = -kInf;
    r->ci_high = kInf;
    return;
  }
  const size_t m = values.size();
  const size_t lo = std::min(m - 1, static_cast<size_t>(k) - 1);
  const size_t hi = m - 1 - lo;
  r->ci_low = kth_smallest(values, lo);
  r->ci_high = kth_smallest(values, hi);
}

}  // namespace

double signed_rank_cdf(double v, size_t n) { return cdf_from_pmf(signed_rank_pmf(n), v); }
size_t signed_rank_quantile(double p, size_t n) { return quantile_from_pmf(signed_rank_pmf(n), p); }
double mann_whitney_cdf(double w, size_t m, size_t n) { return cdf_from_pmf(mann_whitney_pmf(m, n), w); }
size_t mann_whitney_quantile(double p, size_t m, size_t n) {
  return quantile_from_pmf(mann_whitney_pmf(m, n), p);
}

RankTest signed_rank_test(const std::vector<double>& d_in, double confidence) {
  const std::vector<double> all = finite_only(d_in);
  RankTest r;
  r.confidence = confidence;
  const double alpha = 1 - confidence;
  if (all.empty()) {
    r.estimate = std::numeric_limits<double>::quiet_NaN();
    r.ci_low = -kInf;
    r.ci_high = kInf;
    return r;
  }

  // Test: zero differences dropped, ranks of |d|.
  std::vector<double> nz, absd;
  for (double x : all)
    if (x != 0) {
      nz.push_back(x);
      absd.push_back(std::fabs(x));
    }
  const size_t n = nz.size();
  r.n = n;
  const bool zeros = n != all.size();
  bool ties = false;
  if (n > 0) {
    const Ranks ranks = rank_with_ties(absd);
    ties = ranks.tie_sum > 0;
    for (size_t i = 0; i < n; ++i)
      if (nz[i] > 0) r.statistic += ranks.rank[i];
    const double dn = double(n);
    const double centre = dn * (dn + 1) / 4;
    if (n < kExactLimit && !ties && !zeros) {
      r.exact = true;
      r.p_value = exact_two_sided(signed_rank_pmf(n), r.statistic, centre);
    } else {
      const double sigma = std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24 - ranks.tie_sum / 48);
      r.p_value = normal_two_sided(r.statistic - centre, sigma);
    }
  }

  // Estimate and interval: Walsh averages of all differences.
  const size_t na = all.size();
  std::vector<double> walsh;
  walsh.reserve(na * (na + 1) / 2);
  for (size_t i = 0; i < na; ++i)
    for (size_t j = i; j < na; ++j) walsh.push_back(all[i] / 2 + all[j] / 2);
  r.estimate = median(walsh);
  bool all_equal = std::all_of(all.begin(), all.end(), [&](double x) { return x == all[0]; });
  if (all_equal && na >= 2) {
    // No spread at all: the data say exactly this (e.g. a coarse timer).
    r.ci_low = r.ci_high = all[0];
    return r;
  }
  if (na < kExactLimit && !ties && !zeros) {
    const size_t qu = signed_rank_quantile(alpha / 2, na);
    if (qu > 0) r.confidence = 1 - 2 * signed_rank_cdf(double(qu) - 1, na);
    order_interval(walsh, double(qu), &r);
  } else {
    const double dn = double(na);
    const double z = normal_quantile(1 - alpha / 2);
    const double k = std::floor(dn * (dn + 1) / 4 - z * std::sqrt(dn * (dn + 1) * (2 * dn + 1) / 24));
    order_interval(walsh, k, &r);
  }
  return r;
}

RankTest mann_whitney_test(const std::vector<double>& x_in, const std::vector<double>& y_in,
                           double confidence) {
  const std::vector<double> x = finite_only(x_in), y = finite_only(y_in);
  RankTest r;
  r.confidence = confidence;
  const double alpha = 1 - confidence;
  const size_t m = x.size(), n = y.size();
  r.n = m + n;
  if (m == 0 || n == 0) {
    r.estimate = std::numeric_limits<double>::quiet_NaN();
    r.ci_low = -kInf;
    r.ci_high = kInf;
    return r;
  }
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  const Ranks ranks = rank_with_ties(pooled);
  double rank_sum = 0;
  for (size_t i = 0; i < m; ++i) rank_sum += ranks.rank[i];
  const double dm = double(m), dn = double(n);
  r.statistic = rank_sum - dm * (dm + 1) / 2;
  const bool ties = ranks.tie_sum > 0;
  const bool exact = m < kExactLimit && n < kExactLimit && !ties;
  if (exact) {
    r.exact = true;
    r.p_value = exact_two_sided(mann_whitney_pmf(m, n), r.statistic, dm * dn / 2);
  } else {
    const double sigma = std::sqrt((dm * dn / 12) *
                                   ((dm + dn + 1) - ranks.tie_sum / ((dm + dn) * (dm + dn - 1))));
    r.p_value = normal_two_sided(r.statistic - dm * dn / 2, sigma);
  }

  std::vector<double> diffs;
  diffs.reserve(m * n);
  for (double a : x)
    for (double b : y) diffs.push_back(a - b);
  r.estimate = median(diffs);
  if (std::all_of(pooled.begin(), pooled.end(), [&](double v) { return v == pooled[0]; }) && m + n >= 3) {
    r.ci_low = r.ci_high = 0;
    return r;
  }
  if (exact) {
    const size_t qu = mann_whitney_quantile(alpha / 2, m, n);
    if (qu > 0) r.confidence = 1 - 2 * mann_whitney_cdf(double(qu) - 1, m, n);
    order_interval(diffs, double(qu), &r);
  } else {
    const double z = normal_quantile(1 - alpha / 2);
    const double k = std::floor(dm * dn / 2 - z * std::sqrt(dm * dn * (dm + dn + 1) / 12));
    order_interval(diffs, k, &r);
  }
  return r;
}

}  // namespace bb::stats
