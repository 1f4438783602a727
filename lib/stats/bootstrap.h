// Percentile bootstrap intervals, seeded so every interval can be replayed.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "stats/rng.h"

namespace bb::stats {

struct Interval {
  double estimate = 0, low = 0, high = 0;
};

// Percentile interval of statistic(resample of x) over `resamples` resamples.
Interval bootstrap_interval(const std::vector<double>& x,
                            const std::function<double(const std::vector<double>&)>& statistic,
                            double confidence, int resamples, Rng& rng);

// Two-sample version: x and y are resampled independently; statistic(x*, y*).
Interval bootstrap_interval2(const std::vector<double>& x, const std::vector<double>& y,
                             const std::function<double(const std::vector<double>&, const std::vector<double>&)>& statistic,
                             double confidence, int resamples, Rng& rng);

}  // namespace bb::stats
