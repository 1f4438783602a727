#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "stats/bootstrap.h"
#include "stats/describe.h"
#include "stats/distributions.h"
#include "stats/sequential.h"
#include "stats/welch.h"

using namespace bb::stats;

TEST_CASE("alpha spending: looks grow geometrically and spend exactly alpha") {
  const SequentialDesign d = make_sequential_design(0.01, 10, 300, 1.5, 1.0);
  REQUIRE(d.looks.front() == 10);
  REQUIRE(d.looks.back() == 300);
  for (size_t i = 1; i < d.looks.size(); ++i) CHECK(d.looks[i] > d.looks[i - 1]);
  CHECK(std::accumulate(d.look_alpha.begin(), d.look_alpha.end(), 0.0) == Approx(0.01));
  for (double a : d.look_alpha) CHECK(a > 0);
  CHECK(look_index(d, 10) == 0);
  CHECK(look_index(d, 11) == -1);
  // Hwang-Shih-DeCani: gamma -> 0 is linear spending; spent(1) = alpha.
  CHECK(hsd_spending(0.3, 0.01, 0) == Approx(0.003));
  CHECK(hsd_spending(1, 0.05, -4) == Approx(0.05));
  CHECK(hsd_spending(0.5, 0.05, -4) < hsd_spending(0.5, 0.05, 1));  // O'Brien-Fleming-like spends later
  // A budget below the first look is a single look.
  const SequentialDesign one = make_sequential_design(0.05, 10, 5);
  CHECK(one.looks == std::vector<size_t>{10});
  CHECK(one.look_alpha[0] == Approx(0.05));
}

TEST_CASE("Welch t-test: R's t.test(1:5, 6:10)") {
  // t = -5, df = 8, p-value = 0.001053
  const WelchTest w = welch_t_test({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  CHECK(w.t == Approx(-5));
  CHECK(w.df == Approx(8));
  CHECK(w.p_value == Approx(0.001053).margin(5e-7));
  // Student t table: P(T <= 2.306) = 0.975 at 8 df; P(T <= 1.96) -> 0.975 as df grows.
  CHECK(student_t_cdf(2.306004135, 8) == Approx(0.975).epsilon(1e-6));
  CHECK(student_t_cdf(1.959963985, 1e7) == Approx(0.975).epsilon(1e-6));
  CHECK(student_t_cdf(0, 3) == Approx(0.5));
  // Degenerate: constant or too small samples are "no evidence".
  CHECK(welch_t_test({1, 1, 1}, {1, 1, 1}).p_value == 1);
  CHECK(welch_t_test({1}, {2, 3}).p_value == 1);
}

TEST_CASE("bootstrap intervals are seeded and cover the truth") {
  Rng rng(11);
  std::vector<double> x;
  for (int i = 0; i < 200; ++i) x.push_back(10 + rng.normal());
  auto med = [](const std::vector<double>& v) { return median(v); };
  Rng a(5), b(5);
  const Interval i1 = bootstrap_interval(x, med, 0.95, 500, a);
  const Interval i2 = bootstrap_interval(x, med, 0.95, 500, b);
  CHECK(i1.low == i2.low);
  CHECK(i1.high == i2.high);
  CHECK(i1.low < 10);
  CHECK(i1.high > 10);
  CHECK(i1.high - i1.low < 0.5);
  Rng c(6);
  const Interval r = bootstrap_interval2(
      x, x, [](const std::vector<double>& p, const std::vector<double>& q) { return median(p) - median(q); }, 0.95,
      300, c);
  CHECK(r.estimate == 0);
  CHECK(r.low < 0);
  CHECK(r.high > 0);
  Rng d(7);
  CHECK(std::isinf(bootstrap_interval({}, med, 0.95, 10, d).high));
}

TEST_CASE("seeded generator: reproducible, uniform, unbiased below()") {
  Rng a(42), b(42), c(43);
  CHECK(a.next() == b.next());
  CHECK(a.next() != c.next());
  std::vector<int> hist(3);
  for (int i = 0; i < 30000; ++i) ++hist[a.below(3)];
  for (int h : hist) CHECK(std::abs(h - 10000) < 400);
  double s = 0, s2 = 0;
  for (int i = 0; i < 20000; ++i) {
    const double z = a.normal();
    s += z;
    s2 += z * z;
  }
  CHECK(std::fabs(s / 20000) < 0.03);
  CHECK(std::fabs(s2 / 20000 - 1) < 0.05);
}
