#include <catch2/catch.hpp>

#include <cmath>

#include "stats/distributions.h"
#include "stats/rng.h"
#include "stats/stratified.h"

using namespace bb::stats;

namespace {

// n log run times: a share `slow` of them in a state `gap` slower, each
// with log-normal noise `sd`, shifted by `shift`.
std::vector<double> runs(Rng& rng, size_t n, double slow, double gap, double sd, double shift = 0) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(std::log(0.08) + shift + (double(i) < slow * double(n) ? gap : 0) + sd * rng.normal());
  return v;
}

std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("speed states: one cluster is never cut") {
  // Normal noise, and a right tail of preempted runs, over many seeds.
  int cut = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Rng rng(seed);
    auto v = runs(rng, 60, 0, 0, 0.01);
    for (int i = 0; i < 4; ++i) v[size_t(i)] += 0.2 + 0.3 * rng.uniform();  // a few outliers: no state
    cut += !speed_state_cuts(v).empty();
  }
  CHECK(cut == 0);
  // A coarse timer's steps (76 and 77 ms) are not states.
  std::vector<double> coarse;
  for (int i = 0; i < 60; ++i) coarse.push_back(std::log(i % 2 ? 0.076 : 0.077));
  CHECK(speed_state_cuts(coarse).empty());
  CHECK(speed_state_cuts({}).empty());
}

TEST_CASE("speed states: two and three clusters are found between them") {
  Rng rng(2);
  const auto two = runs(rng, 60, 0.3, std::log(1.33), 0.01);
  const auto cuts = speed_state_cuts(two);
  REQUIRE(cuts.size() == 1);
  CHECK(cuts[0] > std::log(0.08) + 0.05);
  CHECK(cuts[0] < std::log(0.08) + std::log(1.33) - 0.05);
  auto three = joined(runs(rng, 40, 0.25, std::log(1.33), 0.01), runs(rng, 20, 0, std::log(2.0), 0.01, std::log(2.0)));
  CHECK(speed_state_cuts(three).size() == 2);
  StrataOptions one;
  one.max_strata = 1;
  CHECK(speed_state_cuts(three, one).empty());
}

TEST_CASE("stratified test with one cluster is the normal-approximation Mann-Whitney interval") {
  Rng rng(3);
  const auto x = runs(rng, 60, 0, 0, 0.02, 0.01), y = runs(rng, 60, 0, 0, 0.02);
  const auto plain = mann_whitney_test(x, y, 0.99);  // 60 a side: the normal approximation
  const auto s = stratified_shift_test(x, y, {}, 0.99);
  CHECK(s.test.estimate == Approx(plain.estimate));
  CHECK(s.test.ci_low == Approx(plain.ci_low));
  CHECK(s.test.ci_high == Approx(plain.ci_high));
  CHECK(s.test.p_value == Approx(plain.p_value).margin(0.01));
  CHECK(s.balance_p == 1);
}

TEST_CASE("stratified test: the shares of slow runs do not move the estimate") {
  Rng rng(4);
  const double gap = std::log(1.33);
  // Base 12 of 30 runs slow, head 18 of 30: no change in the code.
  const auto base = runs(rng, 30, 0.4, gap, 0.01), head = runs(rng, 30, 0.6, gap, 0.01);
  const auto plain = mann_whitney_test(head, base, 0.99);
  INFO("plain " << plain.ci_low << " .. " << plain.ci_high);
  CHECK(plain.ci_high - plain.ci_low > 0.1);  // the rank test's noise is the flip
  const auto cuts = speed_state_cuts(joined(base, head));
  REQUIRE(cuts.size() == 1);
  const auto s = stratified_shift_test(head, base, cuts, 0.99);
  CHECK(std::fabs(s.test.estimate) < 0.01);
  CHECK(s.test.ci_low < 0);
  CHECK(s.test.ci_high > 0);
  CHECK(s.test.ci_high - s.test.ci_low < 0.02);
  CHECK(s.x_counts == std::vector<size_t>{12, 18});
  CHECK(s.y_counts == std::vector<size_t>{18, 12});
  CHECK(s.balance_p == Approx(chi_square_upper(2.4, 1)));

  // A real 5 % slowdown is bounded away from zero, and the interval holds it.
  Rng rng2(5);
  const auto b2 = runs(rng2, 30, 0.4, gap, 0.01), h2 = runs(rng2, 30, 0.5, gap, 0.01, std::log(1.05));
  const auto s2 = stratified_shift_test(h2, b2, speed_state_cuts(joined(b2, h2)), 0.99, std::log(1.05));
  CHECK(s2.test.ci_low > std::log(1.02));
  CHECK(s2.test.ci_low < std::log(1.05));
  CHECK(s2.test.ci_high > std::log(1.05));
}

TEST_CASE("stratified test keeps its level on a flipping host") {
  // 2000 A/A trials (seed 6), 30 runs a side, each side's slow share drawn
  // at random: the 99 % interval misses 0 about 1 % of the time.
  Rng rng(6);
  int missed = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x, y;
    for (int i = 0; i < 30; ++i) {
      x.push_back((rng.uniform() < 0.4 ? 0.3 : 0) + 0.01 * rng.normal());
      y.push_back((rng.uniform() < 0.4 ? 0.3 : 0) + 0.01 * rng.normal());
    }
    const auto cuts = speed_state_cuts(joined(x, y));
    const auto s = stratified_shift_test(x, y, cuts, 0.99);
    missed += s.test.ci_low > 0 || s.test.ci_high < 0;
  }
  CHECK(missed <= trials * 0.015);
  CHECK(missed >= trials * 0.003);  // an interval that never misses is too wide to be a 99 % one
}
