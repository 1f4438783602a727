#include "stats/bootstrap.h"

#include <cmath>

#include "stats/describe.h"

namespace bb::stats {

namespace {

std::vector<double> resample(const std::vector<double>& v, Rng& rng) {
  std::vector<double> out(v.size());
  for (auto& x : out) x = v[rng.below(v.size())];
  return out;
}

Interval from_replicates(double estimate, std::vector<double> reps, double confidence) {
  Interval iv;
  iv.estimate = estimate;
  const double alpha = 1 - confidence;
  iv.low = quantile(reps, alpha / 2);
  iv.high = quantile(std::move(reps), 1 - alpha / 2);
  return iv;
}

}  // namespace

Interval bootstrap_interval(const std::vector<double>& x_in,
                            const std::function<double(const std::vector<double>&)>& statistic,
                            double confidence, int resamples, Rng& rng) {
  const auto x = finite_only(x_in);
  if (x.empty()) return {std::nan(""), -INFINITY, INFINITY};
  std::vector<double> reps;
  reps.reserve(size_t(resamples));
  for (int i = 0; i < resamples; ++i) reps.push_back(statistic(resample(x, rng)));
  return from_replicates(statistic(x), std::move(reps), confidence);
}

Interval bootstrap_interval2(const std::vector<double>& x_in, const std::vector<double>& y_in,
                             const std::function<double(const std::vector<double>&, const std::vector<double>&)>& statistic,
                             double confidence, int resamples, Rng& rng) {
  const auto x = finite_only(x_in), y = finite_only(y_in);
  if (x.empty() || y.empty()) return {std::nan(""), -INFINITY, INFINITY};
  std::vector<double> reps;
  reps.reserve(size_t(resamples));
  for (int i = 0; i < resamples; ++i) reps.push_back(statistic(resample(x, rng), resample(y, rng)));
  return from_replicates(statistic(x, y), std::move(reps), confidence);
}

}  // namespace bb::stats
