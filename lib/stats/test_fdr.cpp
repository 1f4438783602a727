#include <catch2/catch.hpp>

#include <cmath>

#include "stats/fdr.h"

using bb::stats::benjamini_hochberg;

TEST_CASE("Benjamini-Hochberg: the 15 p-values of the 1995 paper") {
  // Benjamini & Hochberg (1995), section 4: at q = 0.05 the first four are rejected.
  const std::vector<double> p = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                                 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000};
  const std::vector<double> want = {0.0015,   0.003,    0.0095,   0.035625, 0.0603,
                                    0.063857142857, 0.063857142857, 0.0645, 0.0765, 0.486,
                                    0.58118181818, 0.71487500, 0.75323076923, 0.81321428571, 1.0};
  const auto adj = benjamini_hochberg(p);
  REQUIRE(adj.size() == want.size());
  int rejected = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    CHECK(adj[i] == Approx(want[i]).epsilon(1e-9));
    rejected += adj[i] <= 0.05;
  }
  CHECK(rejected == 4);
}

TEST_CASE("Benjamini-Hochberg: order, NaN and edge cases") {
  // R: p.adjust(c(0.05, 0.01, 0.04, 0.03, 0.02), "BH") is 0.05 everywhere.
  for (double a : benjamini_hochberg({0.05, 0.01, 0.04, 0.03, 0.02})) CHECK(a == Approx(0.05));
  const auto adj = benjamini_hochberg({0.01, std::nan(""), 0.04});
  CHECK(adj[0] == Approx(0.02));
  CHECK(std::isnan(adj[1]));
  CHECK(adj[2] == Approx(0.04));
  CHECK(benjamini_hochberg({}).empty());
  CHECK(benjamini_hochberg({0.9, 0.95})[1] == Approx(0.95));
}
