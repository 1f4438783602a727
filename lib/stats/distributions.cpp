#include "stats/distributions.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace bb::stats {

namespace {

namespace bm = boost::math;
// Every error as a value: a domain error (NaN argument, p outside [0, 1])
// is NaN, an overflow (the quantile at 0 or 1) is ±inf. The arguments are
// checked below first, so these are the last line, not the contract.
using NoThrow = bm::policies::policy<bm::policies::domain_error<bm::policies::ignore_error>,
                                     bm::policies::overflow_error<bm::policies::ignore_error>,
                                     bm::policies::evaluation_error<bm::policies::ignore_error>,
                                     bm::policies::pole_error<bm::policies::ignore_error>>;
using Normal = bm::normal_distribution<double, NoThrow>;
using StudentT = bm::students_t_distribution<double, NoThrow>;
using ChiSquared = bm::chi_squared_distribution<double, NoThrow>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

double normal_cdf(double z) {
  if (std::isnan(z)) return kNaN;
  if (std::isinf(z)) return z > 0 ? 1 : 0;
  return bm::cdf(Normal(), z);
}

double normal_quantile(double p) {
  if (!(p >= 0 && p <= 1)) return kNaN;
  if (p == 0) return -kInfinity;
  if (p == 1) return kInfinity;
  return bm::quantile(Normal(), p);
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(df)) return normal_cdf(t);
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  return bm::cdf(StudentT(df), t);
}

double student_t_quantile(double p, double df) {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return kNaN;
  if (std::isinf(df)) return normal_quantile(p);
  if (p == 0) return -kInfinity;
  if (p == 1) return kInfinity;
  return bm::quantile(StudentT(df), p);
}

double chi_square_upper(double x, double df) {
  if (std::isnan(x) || !(df > 0)) return kNaN;
  if (!(x > 0)) return 1;
  if (std::isinf(x)) return 0;
  return bm::cdf(bm::complement(ChiSquared(df), x));
}

}  // namespace bb::stats
