// The probability distributions the tests and intervals in lib/stats need,
// from Boost.Math. Errors come back as values, never as exceptions (lib/stats
// runs inside sd-event callbacks, which no exception may cross): a
// probability outside [0, 1] or a NaN argument gives NaN.
#pragma once

namespace bb::stats {

// Standard normal distribution function and its inverse; the inverse is
// -inf at 0 and +inf at 1.
double normal_cdf(double z);
double normal_quantile(double p);

// Student's t distribution function with df > 0 degrees of freedom (an
// infinite df is the normal).
double student_t_cdf(double t, double df);
// Its inverse: ±inf at 0 and 1.
double student_t_quantile(double p, double df);

// Upper tail P(X > x) of the chi-square distribution with df > 0 degrees of
// freedom; 1 for x <= 0.
double chi_square_upper(double x, double df);

}  // namespace bb::stats
