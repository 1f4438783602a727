#include "stats/welch.h"

#include <cmath>

#include "stats/describe.h"

namespace bb::stats {

namespace {

// Continued fraction for the incomplete beta (modified Lentz's method).
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

}  // namespace

double incomplete_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(x, a, b) / a;
  return 1 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double df) {
  if (std::isinf(df)) return normal_cdf(t);
  const double tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

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
