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

// Regularized incomplete beta function I_x(a, b) and Student's t
// distribution function, for the test above.
double incomplete_beta(double x, double a, double b);
double student_t_cdf(double t, double df);

}  // namespace bb::stats
