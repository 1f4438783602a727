// Reference values: R's documented wilcox.test() examples (?wilcox.test),
// exact distributions checked against brute-force enumeration, and the
// defining property of the Hodges-Lehmann interval (it is the set of shifts
// the test does not reject).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "stats/describe.h"
#include "stats/rank_tests.h"

using namespace bb::stats;

namespace {

// P(V <= v) by enumerating all 2^n sign patterns.
double brute_signed_rank_cdf(int v, int n) {
  long hits = 0;
  for (long mask = 0; mask < (1L << n); ++mask) {
    int sum = 0;
    for (int i = 0; i < n; ++i)
      if (mask & (1L << i)) sum += i + 1;
    hits += sum <= v;
  }
  return double(hits) / double(1L << n);
}

// P(W <= w) by enumerating which m of the m+n ranks belong to x.
double brute_mann_whitney_cdf(int w, int m, int n) {
  long hits = 0, total = 0;
  for (long mask = 0; mask < (1L << (m + n)); ++mask) {
    if (__builtin_popcountl(mask) != m) continue;
    int rank_sum = 0;
    for (int i = 0; i < m + n; ++i)
      if (mask & (1L << i)) rank_sum += i + 1;
    ++total;
    hits += rank_sum - m * (m + 1) / 2 <= w;
  }
  return double(hits) / double(total);
}

const std::vector<double> kDepressionX = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
const std::vector<double> kDepressionY = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};

}  // namespace

TEST_CASE("signed-rank exact distribution matches enumeration") {
  for (int n : {1, 2, 5, 9, 12})
    for (int v = -1; v <= n * (n + 1) / 2; ++v)
      REQUIRE(signed_rank_cdf(v, n) == Approx(brute_signed_rank_cdf(v, n)).epsilon(1e-12));
  // Table value: n = 10, P(V <= 8) = 25/1024, so the two-sided 5 % critical value is 8.
  CHECK(signed_rank_cdf(8, 10) == Approx(25.0 / 1024));
  CHECK(signed_rank_quantile(0.025, 10) == 9);
  CHECK(signed_rank_quantile(0.5, 4) == 5);
}

TEST_CASE("Mann-Whitney exact distribution matches enumeration") {
  for (auto [m, n] : {std::pair{1, 1}, {3, 4}, {5, 5}, {4, 7}, {10, 5}})
    for (int w = -1; w <= m * n; ++w)
      REQUIRE(mann_whitney_cdf(w, m, n) == Approx(brute_mann_whitney_cdf(w, m, n)).epsilon(1e-12));
  // qwilcox(0.025, 5, 5) = 3: P(W <= 2) = 4/252 < 0.025 <= P(W <= 3) = 7/252.
  CHECK(mann_whitney_quantile(0.025, 5, 5) == 3);
}

TEST_CASE("signed-rank test: R's depression example") {
  // wilcox.test(x, y, paired = TRUE, alternative = "greater"): V = 40, p = 0.01953.
  std::vector<double> d;
  for (size_t i = 0; i < kDepressionX.size(); ++i) d.push_back(kDepressionX[i] - kDepressionY[i]);
  const RankTest r = signed_rank_test(d, 0.95);
  CHECK(r.statistic == 40);
  CHECK(r.exact);
  CHECK(r.p_value == Approx(2 * 0.01953125));  // two-sided = 2 * 10/512
  // The estimate is the median of the 45 Walsh averages.
  std::vector<double> walsh;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  CHECK(r.estimate == Approx(median(walsh)));
  // qsignrank(0.025, 9) = 6: the interval is the 6th smallest and 6th largest Walsh average.
  std::sort(walsh.begin(), walsh.end());
  CHECK(r.ci_low == Approx(walsh[5]));
  CHECK(r.ci_high == Approx(walsh[39]));
  CHECK(r.confidence == Approx(1 - 2 * 10.0 / 512).epsilon(1e-12));  // 1 - 2 P(V <= 5)
}

TEST_CASE("Mann-Whitney test: R's example") {
  // wilcox.test(x, y, alternative = "greater"): W = 35, p-value = 0.1272.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const RankTest r = mann_whitney_test(x, y, 0.95);
  CHECK(r.statistic == 35);
  CHECK(r.exact);
  CHECK(r.p_value / 2 == Approx(0.1272).margin(0.00005));
  std::vector<double> diffs;
  for (double a : x)
    for (double b : y) diffs.push_back(a - b);
  CHECK(r.estimate == Approx(median(diffs)));
  // R: difference in location 0.305.
  CHECK(r.estimate == Approx(0.305).margin(1e-9));
}

TEST_CASE("Hodges-Lehmann interval is the set of shifts the test does not reject") {
  const std::vector<double> d = {0.31, -0.12, 0.57, 0.08, 0.44, 0.93, -0.27, 0.15, 0.71, 0.22, 0.05, 0.38};
  for (double conf : {0.9, 0.95, 0.99}) {
    const RankTest r = signed_rank_test(d, conf);
    const double alpha = 1 - conf;
    auto p_at = [&](double mu) {
      std::vector<double> shifted;
      for (double x : d) shifted.push_back(x - mu);
      return signed_rank_test(shifted, conf).p_value;
    };
    CHECK(p_at(r.ci_low - 1e-9) <= alpha);
    CHECK(p_at(r.ci_low + 1e-9) > alpha);
    CHECK(p_at(r.ci_high + 1e-9) <= alpha);
    CHECK(p_at(r.ci_high - 1e-9) > alpha);
  }
  const std::vector<double> x = {3.1, 2.7, 3.9, 3.4, 2.2, 4.1, 3.3}, y = {2.1, 2.6, 1.8, 2.9, 2.45, 1.5};
  const RankTest r = mann_whitney_test(x, y, 0.95);
  auto p_at = [&](double mu) {
    std::vector<double> shifted;
    for (double v : x) shifted.push_back(v - mu);
    return mann_whitney_test(shifted, y, 0.95).p_value;
  };
  CHECK(p_at(r.ci_low - 1e-9) <= 0.05);
  CHECK(p_at(r.ci_low + 1e-9) > 0.05);
  CHECK(p_at(r.ci_high + 1e-9) <= 0.05);
  CHECK(p_at(r.ci_high - 1e-9) > 0.05);
}

TEST_CASE("normal approximation with ties and continuity correction") {
  // 60 differences 1..60, the first 20 negative: V = 1620, mean 915,
  // sd sqrt(60*61*121/24); R: z = (705 - 0.5) / sd.
  std::vector<double> d;
  for (int i = 1; i <= 60; ++i) d.push_back(i <= 20 ? -i : i);
  const RankTest r = signed_rank_test(d, 0.99);
  CHECK_FALSE(r.exact);
  CHECK(r.statistic == 1620);
  const double z = 704.5 / std::sqrt(60.0 * 61 * 121 / 24);
  CHECK(r.p_value == Approx(std::erfc(z / std::sqrt(2.0))).epsilon(1e-9));

  // Ties: |d| = 1,1,2,2,2,3 with one negative 2 -> ranks 1.5,1.5,4,4,4,6; V = 17;
  // tie sum = (8-2) + (27-3) = 30; sd = sqrt(6*7*13/24 - 30/48).
  const RankTest t = signed_rank_test({1, 1, 2, -2, 2, 3}, 0.95);
  CHECK_FALSE(t.exact);
  CHECK(t.statistic == 17);
  const double zt = (17 - 10.5 - 0.5) / std::sqrt(6.0 * 7 * 13 / 24 - 30.0 / 48);
  CHECK(t.p_value == Approx(std::erfc(zt / std::sqrt(2.0))).epsilon(1e-9));
}

TEST_CASE("degenerate input gets a defined answer") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  SECTION("empty and all-NaN") {
    for (const auto& v : {std::vector<double>{}, std::vector<double>{nan, nan}}) {
      const RankTest r = signed_rank_test(v, 0.99);
      CHECK(r.p_value == 1);
      CHECK(std::isinf(r.ci_low));
      CHECK(std::isinf(r.ci_high));
    }
    const RankTest m = mann_whitney_test({}, {1, 2}, 0.99);
    CHECK(m.p_value == 1);
    CHECK(std::isinf(m.ci_high));
  }
  SECTION("one sample: no interval at 99 %") {
    const RankTest r = signed_rank_test({0.05}, 0.99);
    CHECK(r.estimate == Approx(0.05));
    CHECK(r.ci_low == -inf);
    CHECK(r.ci_high == inf);
  }
  SECTION("all equal") {
    const RankTest r = signed_rank_test({0, 0, 0, 0, 0}, 0.99);
    CHECK(r.p_value == 1);
    CHECK(r.estimate == 0);
    CHECK(r.ci_low == 0);
    CHECK(r.ci_high == 0);
    const RankTest m = mann_whitney_test({3, 3, 3}, {3, 3, 3}, 0.99);
    CHECK(m.p_value == 1);
    CHECK(m.estimate == 0);
  }
  SECTION("NaN and infinities are dropped") {
    const RankTest a = signed_rank_test({0.1, nan, 0.2, inf, 0.3, -inf}, 0.5);
    const RankTest b = signed_rank_test({0.1, 0.2, 0.3}, 0.5);
    CHECK(a.estimate == b.estimate);
    CHECK(a.p_value == b.p_value);
  }
  SECTION("huge values do not overflow") {
    const RankTest r = signed_rank_test({1e308, 1.5e308, 1.7e308, 1.2e308, 1.1e308, 1.3e308, 1.4e308, 1.6e308}, 0.95);
    CHECK(std::isfinite(r.estimate));
    CHECK(r.estimate == Approx(1.35e308));
  }
  SECTION("large n stays fast and sane") {
    std::vector<double> d;
    for (int i = 0; i < 2000; ++i) d.push_back(std::sin(i * 1.7));
    const RankTest r = signed_rank_test(d, 0.99);
    CHECK(r.ci_low < r.estimate);
    CHECK(r.estimate < r.ci_high);
  }
}

TEST_CASE("descriptive statistics") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(std::isnan(median({})));
  CHECK(quantile({1, 2, 3, 4, 5}, 0.25) == 2);  // R: quantile(1:5, 0.25) = 2
  CHECK(quantile({1, 2, 3, 4}, 0.5) == 2.5);
  CHECK(mad({1, 2, 3, 4, 100}) == Approx(1.4826));  // R: mad(c(1,2,3,4,100)) = 1.4826
  const Ranks r = rank_with_ties({10, 20, 20, 30});
  CHECK(r.rank == std::vector<double>{1, 2.5, 2.5, 4});
  CHECK(r.tie_sum == 6);
}
