// The distributions from Boost.Math (#29), held to reference values computed
// with mpmath 1.3 at 30 digits, to R where R's value is a textbook one, and
// to the hand-written versions they replaced: those are kept below, only as
// the reference, so a change of library or policy that moves a p-value or
// a quantile by more than 1e-9 fails here first.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "stats/distributions.h"

using namespace bb::stats;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

namespace replaced {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Acklam's rational approximation and one Halley step against the cdf.
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double plow = 0.02425;
  double x;
  if (p < plow) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - plow) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// The incomplete beta by its continued fraction (modified Lentz).
double beta_continued_fraction(double x, double a, double b) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return h;
}

double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(x, a, b) / a;
  return 1 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

// Closed forms, 1 to 3 degrees of freedom (all the stratified test used).
double chi_square_upper(double x, int df) {
  switch (df) {
    case 1: return std::erfc(std::sqrt(x / 2));
    case 2: return std::exp(-x / 2);
    default: return std::erfc(std::sqrt(x / 2)) + std::sqrt(2 * x / M_PI) * std::exp(-x / 2);
  }
}

}  // namespace replaced

}  // namespace

TEST_CASE("normal distribution: reference values and the inverse") {
  // mpmath: sqrt(2) * erfinv(2p - 1) and ncdf(z); R's qnorm(0.975), qnorm(0.995).
  CHECK(normal_quantile(1e-10) == Approx(-6.3613409024040562).epsilon(1e-12));
  CHECK(normal_quantile(0.001) == Approx(-3.0902323061678135).epsilon(1e-12));
  CHECK(normal_quantile(0.8) == Approx(0.84162123357291421).epsilon(1e-12));
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(normal_quantile(0.995) == Approx(2.575829303548901).epsilon(1e-12));
  CHECK(normal_quantile(0.5) == 0);
  CHECK(normal_cdf(-8) == Approx(6.2209605742717841e-16).epsilon(1e-9));
  CHECK(normal_cdf(-3) == Approx(0.0013498980316300945).epsilon(1e-12));
  CHECK(normal_cdf(2.5) == Approx(0.99379033467422386).epsilon(1e-12));
  for (double p : {1e-12, 0.001, 0.005, 0.025, 0.3, 0.5, 0.8, 0.975, 0.995, 1 - 1e-9})
    CHECK(normal_cdf(normal_quantile(p)) == Approx(p).epsilon(1e-12));
}

TEST_CASE("Student's t: reference values") {
  // mpmath: the regularized incomplete beta, as the t distribution is defined.
  CHECK(student_t_cdf(-8, 1) == Approx(0.039583424160565542).epsilon(1e-12));
  CHECK(student_t_cdf(2.306004135, 8) == Approx(0.9749999999920322).epsilon(1e-12));
  CHECK(student_t_cdf(-2.5, 3.7) == Approx(0.035911011455913386).epsilon(1e-12));
  CHECK(student_t_cdf(1.5, 30) == Approx(0.927967035435677).epsilon(1e-12));
  CHECK(student_t_cdf(-4, 1000) == Approx(3.4004959604390789e-5).epsilon(1e-10));
  CHECK(student_t_cdf(0.3, 2) == Approx(0.60375716957991119).epsilon(1e-12));
  CHECK(student_t_cdf(0, 3) == 0.5);
  CHECK(student_t_cdf(1.7, kInfinity) == normal_cdf(1.7));
  // The quantile: textbook t tables, and the inverse of the cdf.
  CHECK(student_t_quantile(0.975, 8) == Approx(2.306004135).epsilon(1e-9));
  CHECK(student_t_quantile(0.995, 2) == Approx(9.924843201).epsilon(1e-9));
  CHECK(student_t_quantile(0.5, 3) == Approx(0).margin(1e-12));
  for (double df : {1.0, 2.0, 4.5, 9.0, 100.0})
    for (double p : {0.001, 0.2, 0.9, 0.9965})
      CHECK(student_t_cdf(student_t_quantile(p, df), df) == Approx(p).epsilon(1e-10));
  CHECK(student_t_quantile(0.9, kInfinity) == normal_quantile(0.9));
  CHECK(std::isinf(student_t_quantile(1, 3)));
  CHECK(std::isnan(student_t_quantile(1.5, 3)));
  CHECK(std::isnan(student_t_quantile(0.5, 0)));
}

TEST_CASE("chi-square upper tail: reference values, any degrees of freedom") {
  // mpmath: the regularized upper incomplete gamma Q(k/2, x/2).
  CHECK(chi_square_upper(3.841459, 1) == Approx(0.049999994653195766).epsilon(1e-12));
  CHECK(chi_square_upper(5.991465, 2) == Approx(0.049999988677700836).epsilon(1e-12));
  CHECK(chi_square_upper(7.814728, 3) == Approx(0.049999997831966144).epsilon(1e-12));
  CHECK(chi_square_upper(1, 4) == Approx(0.90979598956895014).epsilon(1e-12));
  CHECK(chi_square_upper(12.5, 7) == Approx(0.085269275158269275).epsilon(1e-12));
  CHECK(chi_square_upper(40, 10) == Approx(1.6944743930067384e-5).epsilon(1e-10));
}

TEST_CASE("the Boost.Math values agree with the hand-written ones they replaced, within 1e-9") {
  for (double p = 1e-8; p < 1; p = p < 0.01 || p > 0.99 ? p * 1.7 : p + 0.01) {
    if (p >= 1) break;
    INFO("p = " << p);
    CHECK(normal_quantile(p) == Approx(replaced::normal_quantile(p)).epsilon(1e-9).margin(1e-12));
  }
  for (double z = -8; z <= 8; z += 0.25) {
    INFO("z = " << z);
    CHECK(normal_cdf(z) == Approx(replaced::normal_cdf(z)).epsilon(1e-9));
  }
  for (double df : {1.0, 2.0, 3.7, 8.0, 30.0, 250.0, 1e4}) {
    for (double t = -6; t <= 6; t += 0.5) {
      INFO("t = " << t << ", df = " << df);
      CHECK(student_t_cdf(t, df) == Approx(replaced::student_t_cdf(t, df)).epsilon(1e-9));
    }
  }
  for (int df = 1; df <= 3; ++df) {
    for (double x = 0.05; x < 60; x *= 1.5) {
      INFO("x = " << x << ", df = " << df);
      CHECK(chi_square_upper(x, df) == Approx(replaced::chi_square_upper(x, df)).epsilon(1e-9));
    }
  }
}

TEST_CASE("distributions: errors are values, never exceptions") {
  CHECK(normal_quantile(0) == -kInfinity);
  CHECK(normal_quantile(1) == kInfinity);
  CHECK(std::isnan(normal_quantile(-0.1)));
  CHECK(std::isnan(normal_quantile(1.1)));
  CHECK(std::isnan(normal_quantile(std::nan(""))));
  CHECK(normal_cdf(-kInfinity) == 0);
  CHECK(normal_cdf(kInfinity) == 1);
  CHECK(std::isnan(normal_cdf(std::nan(""))));
  CHECK(std::isnan(student_t_cdf(1, 0)));
  CHECK(std::isnan(student_t_cdf(1, -2)));
  CHECK(student_t_cdf(kInfinity, 5) == 1);
  CHECK(chi_square_upper(0, 1) == 1);
  CHECK(chi_square_upper(-3, 2) == 1);
  CHECK(chi_square_upper(kInfinity, 2) == 0);
  CHECK(std::isnan(chi_square_upper(1, 0)));
}
