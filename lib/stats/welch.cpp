#include "stats/welch.h"

#include <algorithm>
#include <cmath>

#include "stats/describe.h"
#include "stats/distributions.h"

namespace bb::stats {

WelchTest welch_t_test(const std::vector<double>& x_in, const std::vector<double>& y_in) {
  const auto x = finite_only(x_in), y = finite_only(y_in);
  WelchTest w;
  if (x.size() < 2 || y.size() < 2) return w;
  const double vx = variance(x) / double(x.size()), vy = variance(y) / double(y.size());
  const double se2 = vx + vy;
  if (!(se2 > 0)) return w;
  w.t = (mean(x) - mean(y)) / std::sqrt(se2);
  w.df = se2 * se2 / (vx * vx / double(x.size() - 1) + vy * vy / double(y.size() - 1));
  w.p_value = std::min(1.0, 2 * student_t_cdf(-std::fabs(w.t), w.df));
  return w;
}

}  // namespace bb::stats
