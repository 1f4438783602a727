// Welch's two-sample t-test (unequal variances), the "plain" test the
// detection benchmark holds benchbox's engine against.
#pragma once

#include <vector>

namespace bb::stats {

struct WelchTest {
  double t = 0;        // (mean(x) - mean(y)) / se
  double df = 0;       // Welch-Satterthwaite degrees of freedom
  double p_value = 1;  // two-sided
};

WelchTest welch_t_test(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace bb::stats
