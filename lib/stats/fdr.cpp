#include "stats/fdr.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bb::stats {

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  std::vector<double> out(p.size(), std::nan(""));
  std::vector<size_t> idx;
  for (size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) idx.push_back(i);
  const double m = double(idx.size());
  // Largest p first; adjusted = min over j >= i of p_(j) * m / j, capped at 1.
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });
  double running = 1;
  for (size_t r = 0; r < idx.size(); ++r) {
    const double rank = m - double(r);  // 1-based rank in ascending order
    running = std::min(running, p[idx[r]] * m / rank);
    out[idx[r]] = std::min(1.0, std::max(0.0, running));
  }
  return out;
}

}  // namespace bb::stats
