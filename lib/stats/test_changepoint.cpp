#include <catch2/catch.hpp>

#include <cmath>

#include "stats/changepoint.h"
#include "stats/rng.h"

using namespace bb::stats;

namespace {

std::vector<double> steps(Rng& rng, std::vector<std::pair<size_t, double>> segments, double sd = 1) {
  std::vector<double> v;
  for (auto [n, mean] : segments)
    for (size_t i = 0; i < n; ++i) v.push_back(mean + sd * rng.normal());
  return v;
}

// The energy statistic's best split straight from the distance matrix, in
// O(n^2): what best_split computes in O(n log n).
ChangePoint matrix_split(const std::vector<double>& v, size_t min_segment) {
  const size_t n = v.size();
  ChangePoint best;
  if (n < 2 * min_segment) return best;
  for (size_t tau = min_segment; tau + min_segment <= n; ++tau) {
    double between = 0, left = 0, right = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const double d = std::fabs(v[i] - v[j]);
        (j < tau ? left : i >= tau ? right : between) += d;
      }
    const double m = double(tau), k = double(n - tau);
    const double e = 2 * between / (m * k) - (m > 1 ? left / (m * (m - 1) / 2) : 0) - (k > 1 ? right / (k * (k - 1) / 2) : 0);
    const double q = m * k / (m + k) * e;
    if (q > best.statistic || best.index == 0) best = {tau, q, 1};
  }
  return best;
}

}  // namespace

TEST_CASE("the best split from sorted sums is the distance matrix's") {
  // Seed 8: noise, steps, ties, and a level far from zero (1e9 + noise),
  // where sums of values would cancel if they were not taken about the
  // middle value.
  Rng rng(8);
  for (int t = 0; t < 300; ++t) {
    const size_t n = 8 + size_t(rng.below(120));
    std::vector<double> v;
    const double level = t % 4 == 3 ? 1e9 : 0;
    for (size_t i = 0; i < n; ++i) {
      const double step = i >= n / 3 && t % 2 ? 2.0 : 0.0;
      const double x = level + step + rng.normal();
      v.push_back(t % 5 == 4 ? std::round(x) : x);  // ties
    }
    const ChangePoint fast = best_split(v, 0, n, 4), slow = matrix_split(v, 4);
    INFO("trial " << t << ", " << n << " points");
    CHECK(fast.index == slow.index);
    CHECK(fast.statistic == Approx(slow.statistic).epsilon(1e-9).margin(1e-9));
  }
  // A constant segment has no distance anywhere: every split scores 0.
  CHECK(best_split(std::vector<double>(30, 0.1), 0, 30, 4).statistic == 0);
}

TEST_CASE("E-divisive: the Nile (annual flow at Aswan, 1871-1970) changes in 1899") {
  // R's datasets::Nile; the textbook change point is after 1898 (the first
  // Aswan dam), i.e. the segment starting at index 28.
  const std::vector<double> nile = {
      1120, 1160, 963, 1210, 1160, 1160, 813, 1230, 1370, 1140, 995, 935, 1110, 994, 1020, 960, 1180, 799, 958, 1140,
      1100, 1210, 1150, 1250, 1260, 1220, 1030, 1100, 774, 840, 874, 694, 940, 833, 701, 916, 692, 1020, 1050, 969,
      831, 726, 456, 824, 702, 1120, 1100, 832, 764, 821, 768, 845, 864, 862, 698, 845, 744, 796, 1040, 759,
      781, 865, 845, 944, 984, 897, 822, 1010, 771, 676, 649, 846, 812, 742, 801, 1040, 860, 874, 848, 890,
      744, 749, 838, 1050, 918, 986, 797, 923, 975, 815, 1020, 906, 901, 1170, 912, 746, 919, 718, 714, 740};
  REQUIRE(nile.size() == 100);
  const auto cps = e_divisive(nile, {});
  REQUIRE(!cps.empty());
  CHECK(cps.front().index == 28);
  CHECK(cps.front().p_value < 0.01);
  CHECK(best_split(nile, 0, nile.size(), 4).index == 28);
}

TEST_CASE("E-divisive: simulated steps are found where they are") {
  Rng rng(3);
  const auto one = steps(rng, {{30, 0}, {30, 3}});
  const auto cps = e_divisive(one, {});
  REQUIRE(cps.size() == 1);
  CHECK(cps[0].index == 30);
  const auto two = steps(rng, {{40, 0}, {40, 2.5}, {40, 0}});
  const auto cps2 = e_divisive(two, {});
  REQUIRE(cps2.size() == 2);
  CHECK(std::abs(int(cps2[0].index) - 40) <= 2);
  CHECK(std::abs(int(cps2[1].index) - 80) <= 2);
}

TEST_CASE("E-divisive: no change, no change point (most of the time), never on constants") {
  Rng rng(4);
  int false_alarms = 0;
  for (int t = 0; t < 60; ++t) false_alarms += !e_divisive(steps(rng, {{50, 0}}), {}).empty();
  CHECK(false_alarms <= 8);  // significance 0.05: expect about 3
  CHECK(e_divisive(std::vector<double>(40, 7.0), {}).empty());
  CHECK(e_divisive({}, {}).empty());
  CHECK(e_divisive({1, 2, 3}, {}).empty());
  CHECK(e_divisive({1, 2, std::nan(""), 4, 5, 6, 7, 8, 9}, {}).empty());
}

TEST_CASE("E-divisive: deterministic for a seed") {
  Rng rng(5);
  const auto v = steps(rng, {{25, 0}, {25, 1.2}});
  const auto a = e_divisive(v, {}), b = e_divisive(v, {});
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].p_value == b[i].p_value);
}

TEST_CASE("incremental detection re-examines only the tail and finds the same shifts") {
  // Incremental keeps what it accepted and looks only after the last change
  // point, so it can differ from a batch run on marginal splits; the real
  // shifts must be found by both.
  Rng rng(6);
  const auto v = steps(rng, {{40, 0}, {40, 3}, {40, 0}});
  IncrementalChangePoints inc({});
  for (size_t i = 0; i < v.size(); i += 10) inc.append(std::vector<double>(v.begin() + long(i), v.begin() + long(i + 10)));
  auto near = [](const std::vector<ChangePoint>& cps, int where) {
    for (const auto& c : cps)
      if (std::abs(int(c.index) - where) <= 2) return true;
    return false;
  };
  const auto batch = e_divisive(v, {});
  CHECK(near(batch, 40));
  CHECK(near(batch, 80));
  CHECK(near(inc.change_points(), 40));
  CHECK(near(inc.change_points(), 80));
  // After the last change point only the tail is looked at again.
  CHECK(inc.last_examined() < v.size() - 60);
}

TEST_CASE("stopping the permutations early changes no decision") {
  // 200 series (seed 7): flat, one step, two steps, small and large; each
  // found with every permutation and with the sequential stop.
  Rng rng(7);
  ChangePointOptions full, early;
  full.early_stop = false;
  full.significance = early.significance = 0.01;
  size_t found = 0;
  for (int t = 0; t < 200; ++t) {
    const double shift = (t % 5) * 0.5;
    const auto v = t % 3 == 0   ? steps(rng, {{40, 0}})
                   : t % 3 == 1 ? steps(rng, {{20, 0}, {20, shift}})
                                : steps(rng, {{15, 0}, {15, shift}, {15, 0}});
    const auto a = e_divisive(v, full), b = e_divisive(v, early);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].index == b[i].index);
      CHECK(a[i].p_value == b[i].p_value);  // accepted splits ran every permutation
    }
    found += a.size();
  }
  CHECK(found > 30);  // the comparison covered real change points (39 with this seed)
}
