#include "stats/sequential.h"

#include <algorithm>
#include <cmath>

namespace bb::stats {

double hsd_spending(double t, double alpha, double gamma) {
  t = std::clamp(t, 0.0, 1.0);
  if (std::fabs(gamma) < 1e-12) return alpha * t;
  return alpha * (1 - std::exp(-gamma * t)) / (1 - std::exp(-gamma));
}

SequentialDesign make_sequential_design(double alpha, size_t min_rounds, size_t max_rounds, double growth,
                                        double gamma) {
  SequentialDesign d;
  d.alpha = alpha;
  d.gamma = gamma;
  min_rounds = std::max<size_t>(1, min_rounds);
  max_rounds = std::max(max_rounds, min_rounds);
  growth = std::max(growth, 1.01);
  double n = double(min_rounds);
  while (size_t(std::lround(n)) < max_rounds) {
    const size_t look = size_t(std::lround(n));
    if (d.looks.empty() || look > d.looks.back()) d.looks.push_back(look);
    n *= growth;
  }
  // A last look too close to the budget adds little: merge it into the final one.
  if (!d.looks.empty() && double(max_rounds) < double(d.looks.back()) * (1 + (growth - 1) / 2) &&
      d.looks.size() > 1)
    d.looks.pop_back();
  d.looks.push_back(max_rounds);
  double spent = 0;
  for (size_t look : d.looks) {
    const double now = hsd_spending(double(look) / double(max_rounds), alpha, gamma);
    d.look_alpha.push_back(now - spent);
    spent = now;
  }
  return d;
}

int look_index(const SequentialDesign& d, size_t rounds) {
  auto it = std::find(d.looks.begin(), d.looks.end(), rounds);
  return it == d.looks.end() ? -1 : int(it - d.looks.begin());
}

}  // namespace bb::stats
