// The box's health from its canary history: learning, steady, a shift and
// its end, a level that stays, and a band as wide as the box is noisy.
// Noise comes from std::mt19937_64 with the seed written in each case.
#include <catch2/catch.hpp>

#include <random>

#include "canary/health.h"

using namespace bb::canary;

namespace {

// Runs one minute apart from `t0`, each workload at `level` × its own
// multiplier × (1 + uniform noise within ±noise).
struct History {
  std::vector<Run> runs;
  std::mt19937_64 rng;
  int64_t t = 1000;
  explicit History(uint64_t seed) : rng(seed) {}
  void add(size_t n, double cpu, double memory, double noise) {
    std::uniform_real_distribution<double> u(-noise, noise);
    for (size_t i = 0; i < n; ++i) {
      Run r;
      r.time = t += 60;
      r.medians["canary/cpu"] = 0.069 * cpu * (1 + u(rng));
      r.medians["canary/memory"] = 0.166 * memory * (1 + u(rng));
      runs.push_back(r);
    }
  }
};

}  // namespace

TEST_CASE("canary health: learning until a few runs are known, then steady") {
  History h(20261206);
  CHECK(judge(h.runs).level == Level::learning);
  CHECK(judge(h.runs).since == 0);
  h.add(2, 1, 1, 0.005);
  Health two = judge(h.runs);
  CHECK(two.level == Level::learning);
  CHECK(two.describe() == "learning (2 canary runs so far)");
  h.add(1, 1, 1, 0.005);
  Health three = judge(h.runs);
  CHECK(three.level == Level::steady);
  CHECK(three.since == h.runs.back().time);
  h.add(20, 1, 1, 0.005);
  Health many = judge(h.runs);
  CHECK(many.level == Level::steady);
  CHECK(many.since == h.runs[2].time);  // steady since it learned
  CHECK(many.band == Approx(0.03).margin(1e-9));  // ±0.5 % noise: the floor
  // Said from the moment it is steady, and wide while only three runs are
  // known: Student's t with 2 degrees of freedom against 19.
  CHECK(three.band > 0.09);
  CHECK(many.describe().rfind("steady (last run ×", 0) == 0);
}

TEST_CASE("canary health: a 10 % slower box is a shift; back to its level, steady again") {
  History h(7);
  h.add(12, 1, 1, 0.005);
  h.add(1, 1.10, 1, 0.005);
  Health one = judge(h.runs);
  CHECK(one.level == Level::steady);  // one run outside may be the box's noise
  CHECK(one.outside == 1);
  CHECK(one.describe().rfind("steady, but the last run is outside: canary/cpu ×1.", 0) == 0);
  CHECK(one.describe().find("(1 of 2 in a row shift it)") != std::string::npos);
  h.add(1, 1.10, 1, 0.005);
  Health s = judge(h.runs);
  REQUIRE(s.level == Level::shifted);
  CHECK(s.since == h.runs[h.runs.size() - 2].time);  // from the first run outside
  CHECK(s.workload == "canary/cpu");
  CHECK(s.ratio == Approx(1.10).epsilon(0.02));
  CHECK(s.describe().rfind("shifted: canary/cpu ×1.", 0) == 0);
  const int64_t shifted_at = s.since;

  h.add(2, 1.10, 1.08, 0.005);  // the load stays, memory too now
  CHECK(judge(h.runs).level == Level::shifted);
  CHECK(judge(h.runs).since == shifted_at);

  h.add(1, 1, 1, 0.005);  // one run back: not yet
  CHECK(judge(h.runs).level == Level::shifted);
  h.add(1, 1, 1, 0.005);
  Health back = judge(h.runs);
  CHECK(back.level == Level::steady);
  CHECK_FALSE(back.new_level);
  CHECK(back.since == h.runs.back().time);
}

TEST_CASE("canary health: a slower level that stays becomes the box's level") {
  History h(11);
  h.add(10, 1, 1, 0.005);
  h.t += 3600;                   // an hour apart: a change that stays
  h.add(4, 0.90, 1.15, 0.005);  // faster cpu, slower memory: both out
  CHECK(judge(h.runs).level == Level::shifted);
  h.t += 1800;
  h.add(1, 0.90, 1.15, 0.005);  // the fifth that agrees, half an hour after the first
  Health n = judge(h.runs);
  CHECK(n.level == Level::steady);
  CHECK(n.new_level);
  CHECK(n.describe().rfind("steady at a new level", 0) == 0);
  // Judged against the new level from now on: going back is a shift again.
  h.add(2, 1, 1, 0.005);
  CHECK(judge(h.runs).level == Level::shifted);
}

TEST_CASE("canary health: a load that passes within half an hour is no new level, however steady") {
  History h(13);
  h.add(10, 1, 1, 0.005);
  h.add(12, 1.8, 1.3, 0.002);  // twelve minutes of a competing load, one run a minute
  Health s = judge(h.runs);
  CHECK(s.level == Level::shifted);
  CHECK_FALSE(s.new_level);
  h.add(2, 1, 1, 0.005);
  CHECK(judge(h.runs).level == Level::steady);
}

TEST_CASE("canary health: outside runs that disagree are no new level") {
  History h(3);
  h.add(10, 1, 1, 0.005);
  for (double cpu : {1.10, 1.25, 1.08, 1.30, 1.12, 1.40}) h.add(1, cpu, 1, 0.0);
  CHECK(judge(h.runs).level == Level::shifted);
}

TEST_CASE("canary health: the band is as wide as the box is noisy") {
  // ±6 % run to run (this project's shared VM moves 3-12 %): a 5 % step
  // is inside its band, a 40 % one is not.
  History noisy(20261206);
  noisy.add(10, 1, 1, 0.06);
  Health n = judge(noisy.runs);
  REQUIRE(n.level == Level::steady);
  CHECK(n.band > 0.05);
  noisy.add(1, 1.05, 1, 0.0);
  CHECK(judge(noisy.runs).level == Level::steady);
  noisy.add(2, 1.40, 1, 0.0);
  CHECK(judge(noisy.runs).level == Level::shifted);

  // A quiet box (±0.2 %) resolves a 4 % step.
  History quiet(5);
  quiet.add(10, 1, 1, 0.002);
  quiet.add(2, 1.04, 1, 0.0);
  CHECK(judge(quiet.runs).level == Level::shifted);
}

TEST_CASE("canary health: a workload the baseline does not know is not judged") {
  History h(9);
  h.add(5, 1, 1, 0.005);
  Run r = h.runs.back();
  r.time += 60;
  r.medians["canary/disk"] = 5.0;
  h.runs.push_back(r);
  CHECK(judge(h.runs).level == Level::steady);
}

TEST_CASE("canary health: three runs close by chance are no narrow band for a noisy box") {
  // The first three runs within ±0.2 %, then a box that moves ±9 % run to
  // run (seen on this project's VM after a load went): a baseline of three
  // gets a band wide enough for it, and the band learns the box's noise
  // as runs join.
  History h(20261207);
  h.add(3, 1, 1, 0.002);
  Health three = judge(h.runs);
  REQUIRE(three.level == Level::steady);
  CHECK(three.band > 0.09);  // the 3 % floor, widened for knowing only three runs
  h.add(30, 1, 1, 0.09);
  Health later = judge(h.runs);
  CHECK(later.level == Level::steady);
  CHECK(later.band > 0.08);
  // Still a shift when one is there: 40 % slower.
  h.add(2, 1.4, 1, 0.0);
  CHECK(judge(h.runs).level == Level::shifted);
}

TEST_CASE("canary health: how often a steady box is called shifted (seeds 1-300)") {
  // 300 histories of 40 runs of a box that does not change, ±3 % (uniform)
  // run to run: the fraction that is ever "shifted" is the canary's false
  // alarm rate for that box. Each holds regressions until it ends.
  size_t alarms = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    History h(seed);
    h.add(40, 1, 1, 0.03);
    bool shifted = false;
    (void)judge(h.runs, {}, [&](const Health& at) { shifted = shifted || at.level == Level::shifted; });
    alarms += shifted;
  }
  INFO("histories ever shifted: " << alarms << " of 300");
  WARN("canary false shifts, ±3 % box, 40 runs: " << alarms << " of 300");
  CHECK(alarms <= 15);  // at most 5 %
}

TEST_CASE("canary health: judging a series once tells each run's judgement, as judging up to it would") {
  History h(17);
  h.add(12, 1, 1, 0.01);
  h.add(3, 1.3, 1, 0.01);  // shifted
  h.add(3, 1, 1, 0.01);    // steady again
  std::vector<Health> each;
  const Health last = judge(h.runs, {}, [&](const Health& at) { each.push_back(at); });
  REQUIRE(each.size() == h.runs.size());
  for (size_t i = 0; i < h.runs.size(); ++i) {
    const Health alone = judge(std::vector<Run>(h.runs.begin(), h.runs.begin() + long(i) + 1));
    CHECK(each[i].level == alone.level);
    CHECK(each[i].since == alone.since);
    CHECK(each[i].describe() == alone.describe());
  }
  CHECK(last.describe() == each.back().describe());
  CHECK(each[13].level == Level::shifted);  // the second run outside
  CHECK(each[13].since == h.runs[12].time);  // dated from the first
}
