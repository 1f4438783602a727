#include "stats/changepoint.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/rng.h"

namespace bb::stats {

namespace {

// A segment's values as the energy statistic reads them. Every split's
// statistic is made of each point's summed distance to the points before
// it and to those after it. The distance matrix gives those in O(n^2);
// with the values sorted once they come in O(n log n): a point's distance
// to all others from prefix sums at its rank, to those before it from a
// Fenwick tree of the ranks seen so far. A permutation moves each value
// with its rank, so a segment is sorted once, not once per permutation.
// Values are kept relative to the segment's middle value, so that the
// sums cancel little (a benchmark's medians sit close together) and a
// constant segment is exactly zero.
struct Ranked {
  std::vector<double> value;  // in series order, minus the middle value
  std::vector<size_t> rank;   // each value's place in sorted order (ties by position)
  std::vector<double> below;  // below[r]: the sum of the r smallest values
};

Ranked ranked(const std::vector<double>& v) {
  const size_t n = v.size();
  Ranked r;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  const double middle = n ? v[order[n / 2]] : 0;
  r.value.resize(n);
  r.rank.resize(n);
  r.below.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) r.value[i] = v[i] - middle;
  for (size_t k = 0; k < n; ++k) {
    r.rank[order[k]] = k;
    r.below[k + 1] = r.below[k] + r.value[order[k]];
  }
  return r;
}

// q(tau) for every split (energy distance with exponent 1, scaled by
// m n / (m + n)); the best one.
ChangePoint best_split_of(const Ranked& r, size_t min_segment) {
  const size_t n = r.value.size();
  ChangePoint best;
  if (n < 2 * min_segment || min_segment == 0) return best;
  // col_left[t] = sum_{i<t} |v_i - v_t|; col_right[t] = sum_{j>t} |v_j - v_t|
  std::vector<double> col_left(n, 0), col_right(n, 0);
  std::vector<size_t> seen_count(n + 1, 0);  // Fenwick trees over ranks
  std::vector<double> seen_sum(n + 1, 0);
  double seen_total = 0;
  for (size_t t = 0; t < n; ++t) {
    const size_t k = r.rank[t];
    const double x = r.value[t];
    size_t less = 0;  // the points before t ranked below it, and their sum
    double less_sum = 0;
    for (size_t i = k; i > 0; i -= i & -i) {
      less += seen_count[i];
      less_sum += seen_sum[i];
    }
    const size_t more = t - less;
    col_left[t] = (x * double(less) - less_sum) + ((seen_total - less_sum) - x * double(more));
    const double to_all = (x * double(k) - r.below[k]) + ((r.below[n] - r.below[k + 1]) - x * double(n - k - 1));
    col_right[t] = to_all - col_left[t];
    for (size_t i = k + 1; i <= n; i += i & -i) {
      ++seen_count[i];
      seen_sum[i] += x;
    }
    seen_total += x;
  }
  const double total = std::accumulate(col_left.begin(), col_left.end(), 0.0);  // each pair once
  // within_left(tau) = sum of pairs inside [0, tau); within_right(tau) inside [tau, n)
  std::vector<double> within_left(n + 1, 0), within_right(n + 1, 0);
  for (size_t t = 1; t <= n; ++t) within_left[t] = within_left[t - 1] + col_left[t - 1];
  for (size_t t = n; t-- > 0;) within_right[t] = within_right[t + 1] + col_right[t];
  for (size_t tau = min_segment; tau + min_segment <= n; ++tau) {
    const double m = double(tau), k = double(n - tau);
    const double between = total - within_left[tau] - within_right[tau];
    const double e = 2 * between / (m * k) - (m > 1 ? within_left[tau] / (m * (m - 1) / 2) : 0) -
                     (k > 1 ? within_right[tau] / (k * (k - 1) / 2) : 0);
    const double q = m * k / (m + k) * e;
    if (q > best.statistic || best.index == 0) {
      best.statistic = q;
      best.index = tau;
    }
  }
  return best;
}

// Permutation p-value of the best split's statistic within v. It stops as
// soon as the split can no longer be significant (Besag and Clifford's
// sequential test): on a flat series, where half the permutations beat the
// observed split, a handful instead of all of them. The decision is the
// one the full test makes, with the same permutations; only a rejected
// split's p-value is then a lower bound (>= significance), and rejected
// splits are not reported.
double permutation_p(Ranked p, double observed, const ChangePointOptions& o, Rng& rng) {
  int as_large = 0;
  const double n = double(o.permutations + 1);
  for (int i = 0; i < o.permutations; ++i) {
    for (size_t k = p.value.size(); k > 1; --k) {
      const size_t j = rng.below(k);
      std::swap(p.value[k - 1], p.value[j]);
      std::swap(p.rank[k - 1], p.rank[j]);
    }
    if (best_split_of(p, o.min_segment).statistic >= observed) ++as_large;
    if (o.early_stop && double(as_large + 1) / n >= o.significance) break;
  }
  return double(as_large + 1) / n;
}

// A segment of the series, its values ranked once and its best split
// (index into the series): examined once, however many rounds it waits.
struct Segment {
  size_t begin = 0, end = 0;
  Ranked values;
  ChangePoint best;
};

Segment segment_of(const std::vector<double>& series, size_t begin, size_t end, size_t min_segment) {
  const std::vector<double> values(series.begin() + std::ptrdiff_t(begin), series.begin() + std::ptrdiff_t(end));
  Segment s{begin, end, ranked(values), {}};
  s.best = best_split_of(s.values, min_segment);
  if (s.best.index != 0) s.best.index += begin;
  return s;
}

// Hierarchical E-divisive on series[begin, end): adds accepted change points.
void divide(const std::vector<double>& series, size_t begin, size_t end, const ChangePointOptions& o,
            std::vector<ChangePoint>* out) {
  // Segments to examine; each round accepts the most significant split of
  // any segment (as the original algorithm does), until none is significant.
  std::vector<Segment> segments;
  segments.push_back(segment_of(series, begin, end, o.min_segment));
  for (;;) {
    size_t best_seg = segments.size();
    double best_q = -1;
    for (size_t s = 0; s < segments.size(); ++s) {
      const ChangePoint& cp = segments[s].best;
      if (cp.index != 0 && cp.statistic > best_q) {
        best_q = cp.statistic;
        best_seg = s;
      }
    }
    if (best_seg == segments.size()) return;
    Segment& sg = segments[best_seg];
    const size_t b = sg.begin, e = sg.end;
    // The seed depends on the segment, so the answer for a segment does not
    // depend on the order segments were examined in (or on earlier appends).
    Rng rng(o.seed ^ (uint64_t(b) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(e) << 32));
    ChangePoint best = sg.best;
    best.p_value = permutation_p(std::move(sg.values), best.statistic, o, rng);
    if (best.p_value >= o.significance) return;
    out->push_back(best);
    segments.erase(segments.begin() + std::ptrdiff_t(best_seg));
    segments.push_back(segment_of(series, b, best.index, o.min_segment));
    segments.push_back(segment_of(series, best.index, e, o.min_segment));
  }
}

}  // namespace

ChangePoint best_split(const std::vector<double>& series, size_t begin, size_t end, size_t min_segment) {
  if (end > series.size() || begin >= end) return {};
  return segment_of(series, begin, end, min_segment).best;
}

std::vector<ChangePoint> e_divisive(const std::vector<double>& series, const ChangePointOptions& options) {
  std::vector<ChangePoint> out;
  if (std::any_of(series.begin(), series.end(), [](double x) { return !std::isfinite(x); })) {
    // Non-finite points have no distance to anything: refuse to guess.
    return out;
  }
  divide(series, 0, series.size(), options, &out);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.index < b.index; });
  return out;
}

const std::vector<ChangePoint>& IncrementalChangePoints::append(const std::vector<double>& points) {
  series_.insert(series_.end(), points.begin(), points.end());
  const size_t begin = accepted_.empty() ? 0 : accepted_.back().index;
  last_examined_ = series_.size() - begin;
  std::vector<ChangePoint> found;
  divide(series_, begin, series_.size(), options_, &found);
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.index < b.index; });
  accepted_.insert(accepted_.end(), found.begin(), found.end());
  return accepted_;
}

}  // namespace bb::stats
