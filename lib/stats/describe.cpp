#include "stats/describe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bb::stats {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

double kth_smallest(std::vector<double>& v, size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

double median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  const size_t n = v.size();
  const double upper = kth_smallest(v, n / 2);
  if (n % 2 == 1) return upper;
  // The lower middle is the largest of the first half after nth_element.
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2));
  return lower / 2 + upper / 2;
}

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return kNaN;
  p = std::clamp(p, 0.0, 1.0);
  std::sort(v.begin(), v.end());
  const double h = (double(v.size()) - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - double(lo)) * (v[hi] - v[lo]);
}

double mad(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * median(std::move(dev));
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double variance(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss / double(v.size() - 1);
}

Ranks rank_with_ties(const std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  Ranks r;
  r.rank.assign(n, 0);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && v[order[j + 1]] == v[order[i]]) ++j;
    const double mid = (double(i) + double(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r.rank[order[k]] = mid;
    const double t = double(j - i + 1);
    r.tie_sum += t * t * t - t;
    i = j + 1;
  }
  return r;
}

}  // namespace bb::stats
