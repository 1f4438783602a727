#include "stats/stratified.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/describe.h"
#include "stats/distributions.h"

namespace bb::stats {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double mad_of(const std::vector<double>& z, size_t lo, size_t hi) {
  return mad(std::vector<double>(z.begin() + std::ptrdiff_t(lo), z.begin() + std::ptrdiff_t(hi)));
}

struct Cut {
  double ratio = 0;
  size_t segment = 0, at = 0;  // the gap between z[at] and z[at + 1]
};

}  // namespace

std::vector<double> speed_state_cuts(std::vector<double> z, const StrataOptions& o) {
  z = finite_only(z);
  std::sort(z.begin(), z.end());
  const size_t n = z.size();
  const size_t least = std::max<size_t>(
      {o.min_stratum, size_t(std::ceil(o.min_stratum_share * double(n))), 1});
  std::vector<std::pair<size_t, size_t>> segments{{0, n}};  // [lo, hi) of z
  std::vector<double> cuts;
  while (cuts.size() + 1 < o.max_strata) {
    Cut best;
    for (size_t s = 0; s < segments.size(); ++s) {
      const auto [lo, hi] = segments[s];
      if (hi - lo < 2 * least) continue;
      // Left part [lo, i], right part [i + 1, hi), each at least `least`.
      for (size_t i = lo + least - 1; i + least < hi; ++i) {
        const double gap = z[i + 1] - z[i];
        if (gap < o.min_gap) continue;  // rare: the spreads are computed only here
        const double scale = std::max(mad_of(z, lo, i + 1), mad_of(z, i + 1, hi));
        const double ratio = scale > 0 ? gap / scale : kInfinity;
        if (ratio > best.ratio) best = {ratio, s, i};
      }
    }
    if (best.ratio < o.min_gap_ratio) break;
    cuts.push_back((z[best.at] + z[best.at + 1]) / 2);
    const auto [lo, hi] = segments[best.segment];
    segments[best.segment] = {lo, best.at + 1};
    segments.push_back({best.at + 1, hi});
  }
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

size_t stratum_of(double v, const std::vector<double>& cuts) {
  return size_t(std::lower_bound(cuts.begin(), cuts.end(), v) - cuts.begin());
}

StratifiedTest stratified_shift_test(const std::vector<double>& x_in, const std::vector<double>& y_in,
                                     const std::vector<double>& cuts, double confidence, double x_offset) {
  StratifiedTest out;
  RankTest& r = out.test;
  r.confidence = confidence;
  const size_t k_count = cuts.size() + 1;
  std::vector<std::vector<double>> xs(k_count), ys(k_count);
  for (double v : finite_only(x_in)) xs[stratum_of(v - x_offset, cuts)].push_back(v);
  for (double v : finite_only(y_in)) ys[stratum_of(v, cuts)].push_back(v);

  struct Pair {
    double d, w;
  };
  std::vector<Pair> pairs;
  double total = 0, var = 0, t0 = 0;
  size_t nx = 0, ny = 0;
  for (size_t k = 0; k < k_count; ++k) {
    out.x_counts.push_back(xs[k].size());
    out.y_counts.push_back(ys[k].size());
    nx += xs[k].size();
    ny += ys[k].size();
    const double m = double(xs[k].size()), n = double(ys[k].size());
    if (m == 0 || n == 0) continue;  // a cluster one side never reached says nothing about the shift
    const double big_n = m + n, w = 1 / (big_n + 1);
    std::vector<double> pooled(xs[k]);
    pooled.insert(pooled.end(), ys[k].begin(), ys[k].end());
    const double tie_sum = rank_with_ties(pooled).tie_sum;
    var += w * w * (m * n / 12) * ((big_n + 1) - tie_sum / (big_n * (big_n - 1)));
    total += w * m * n;
    double u = 0;
    for (double a : xs[k])
      for (double b : ys[k]) {
        pairs.push_back({a - b, w});
        u += a > b ? 1 : (a == b ? 0.5 : 0);
      }
    t0 += w * (u - m * n / 2);
  }
  r.n = nx + ny;
  r.statistic = t0;
  if (pairs.empty()) {
    r.estimate = std::nan("");
    r.ci_low = -kInfinity;
    r.ci_high = kInfinity;
    return out;
  }
  const double sigma = std::sqrt(var);
  r.p_value = sigma > 0 ? std::min(1.0, 2 * (1 - normal_cdf(std::fabs(t0) / sigma))) : (t0 == 0 ? 1.0 : 0.0);

  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.d < b.d; });
  // Weighted Hodges-Lehmann: where half the weight of the differences lies below.
  // Exactly half below (an even count in one cluster): the midpoint, as the median.
  double c = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    c += pairs[i].w;
    if (c >= total / 2 * (1 - 1e-12)) {
      const bool half = std::fabs(c - total / 2) <= 1e-12 * total && i + 1 < pairs.size();
      r.estimate = half ? (pairs[i].d + pairs[i + 1].d) / 2 : pairs[i].d;
      break;
    }
  }
  // The interval: T(delta) = total/2 - weight(d <= delta) must stay within
  // +-z sigma. As Hollander & Wolfe's order statistic (which this is for one
  // cluster), take the difference just before the one that reaches the
  // target, from each end; none before it: too few values, infinite.
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double target = total / 2 - z * sigma;
  auto bound_from = [&](auto first, auto last) {
    double acc = 0;
    for (auto it = first; it != last; ++it) {
      acc += it->w;
      if (acc >= target * (1 - 1e-12)) return it == first ? std::nan("") : std::prev(it)->d;
    }
    return std::nan("");
  };
  if (target <= 0) {
    r.ci_low = -kInfinity;
    r.ci_high = kInfinity;
  } else {
    const double lo = bound_from(pairs.begin(), pairs.end());
    const double hi = bound_from(pairs.rbegin(), pairs.rend());
    r.ci_low = std::isnan(lo) ? -kInfinity : lo;
    r.ci_high = std::isnan(hi) ? kInfinity : hi;
  }

  // Same proportions in each cluster? Chi-square on the 2 x K table.
  int df = -1;
  double chi = 0;
  const double all = double(nx + ny);
  for (size_t k = 0; k < k_count; ++k) {
    const double col = double(xs[k].size() + ys[k].size());
    if (col == 0) continue;
    ++df;
    for (auto [o, row] : {std::pair{double(xs[k].size()), double(nx)}, std::pair{double(ys[k].size()), double(ny)}}) {
      const double e = row * col / all;
      if (e > 0) chi += (o - e) * (o - e) / e;
    }
  }
  out.balance_p = df >= 1 ? chi_square_upper(chi, df) : 1.0;
  return out;
}

}  // namespace bb::stats
