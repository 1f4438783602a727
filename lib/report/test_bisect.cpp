// plan_bisection driven by an oracle that knows the culprit: every range
// size the issue names, every culprit position, unbuildable commits, a
// change too small to decide and two regressions in one range.
#include <catch2/catch.hpp>

#include <functional>
#include <set>

#include "report/bisect.h"

using namespace bb;
using namespace bb::report;

namespace {

BisectRange make_range(size_t n) {
  BisectRange r;
  r.good = "g";
  for (size_t i = 0; i < n; ++i) r.commits.push_back("c" + std::to_string(i));
  return r;
}

size_t index_of(const BisectRange& r, const std::string& c) {
  for (size_t i = 0; i < r.commits.size(); ++i)
    if (r.commits[i] == c) return i;
  return size_t(-1);
}

struct Run {
  BisectPlan plan;
  std::vector<BisectStep> steps;
};

// Runs the bisection to its end; `outcome(base, commit)` plays the box.
Run bisect(const BisectRange& range, const std::function<StepOutcome(const std::string&, const std::string&)>& outcome) {
  Run run;
  for (int guard = 0; guard < 200; ++guard) {
    run.plan = plan_bisection(range, run.steps);
    if (run.plan.state == BisectState::done || run.plan.state == BisectState::narrowed) return run;
    BisectStep s;
    s.base = run.plan.base;
    s.commit = run.plan.next;
    s.residual = run.plan.state == BisectState::residual;
    s.outcome = outcome(s.base, s.commit);
    run.steps.push_back(s);
  }
  FAIL("the bisection did not end");
  return run;
}

// Bad when a regression at one of `culprits` lies in (base, commit].
StepOutcome oracle(const BisectRange& range, const std::vector<size_t>& culprits, const std::string& base,
                   const std::string& commit) {
  const long b = base == range.good ? -1 : long(index_of(range, base));
  const long c = long(index_of(range, commit));
  for (size_t k : culprits)
    if (b < long(k) && long(k) <= c) return StepOutcome::bad;
  return StepOutcome::good;
}

}  // namespace

TEST_CASE("bisection names the culprit in 2, 3, 17 and 64 commits, wherever it is, in about log2 steps") {
  for (size_t n : {2, 3, 17, 64}) {
    const BisectRange range = make_range(n);
    for (size_t culprit = 0; culprit < n; ++culprit) {
      auto run = bisect(range, [&](const std::string& base, const std::string& c) {
        return oracle(range, {culprit}, base, c);
      });
      INFO("n=" << n << " culprit=" << culprit);
      REQUIRE(run.plan.state == BisectState::done);
      CHECK(run.plan.culprit == range.commits[culprit]);
      CHECK_FALSE(run.plan.second_regression);
      size_t bisect_steps = 0;
      for (const auto& s : run.steps) bisect_steps += s.residual ? 0 : 1;
      size_t bound = 0;
      while ((size_t(1) << bound) < n) ++bound;
      CHECK(bisect_steps <= bound);
      // The residual check runs exactly when the culprit is not the last commit.
      CHECK((run.steps.size() - bisect_steps) == (culprit + 1 < n ? 1u : 0u));
      // Every step measured against a commit known good at that time.
      for (const auto& s : run.steps)
        if (!s.residual) CHECK((s.base == "g" || index_of(range, s.base) < culprit));
    }
  }
}

TEST_CASE("a commit that does not build is skipped, and the culprit is still named around it") {
  const BisectRange range = make_range(17);
  const size_t culprit = 9;
  const std::set<std::string> broken{"c8", "c7"};
  auto run = bisect(range, [&](const std::string& base, const std::string& c) {
    if (broken.count(c)) return StepOutcome::skipped;
    return oracle(range, {culprit}, base, c);
  });
  // c8 and c7 never built, so c9 cannot be told from them: the range is
  // narrowed to (c6, c9] or the culprit named if a neighbour decided it.
  if (run.plan.state == BisectState::done) {
    CHECK(run.plan.culprit == "c9");
  } else {
    REQUIRE(run.plan.state == BisectState::narrowed);
    CHECK(run.plan.good == "c6");
    CHECK(run.plan.bad == "c9");
    CHECK(run.plan.reason.find("does not build") != std::string::npos);
  }
  // One broken commit that is not next to the culprit costs one step.
  auto run2 = bisect(range, [&](const std::string& base, const std::string& c) {
    if (c == "c8") return StepOutcome::skipped;
    return oracle(range, {12}, base, c);
  });
  REQUIRE(run2.plan.state == BisectState::done);
  CHECK(run2.plan.culprit == "c12");
}

TEST_CASE("an inconclusive step runs once more; twice inconclusive ends with the narrowed range") {
  const BisectRange range = make_range(17);
  SECTION("once: decided on the second try") {
    std::map<std::string, int> seen;
    auto run = bisect(range, [&](const std::string& base, const std::string& c) {
      if (++seen[c] == 1 && c == "c7") return StepOutcome::inconclusive;  // the first step
      return oracle(range, {5}, base, c);
    });
    REQUIRE(run.plan.state == BisectState::done);
    CHECK(run.plan.culprit == "c5");
    CHECK(seen["c7"] == 2);
  }
  SECTION("twice: too small to decide") {
    auto run = bisect(range, [&](const std::string& base, const std::string& c) {
      const size_t i = index_of(range, c);
      if (i >= 9 && i < 12) return StepOutcome::inconclusive;  // a change too small to see there
      return oracle(range, {9}, base, c);
    });
    REQUIRE(run.plan.state == BisectState::narrowed);
    CHECK(run.plan.reason.find("too small to decide") != std::string::npos);
    CHECK(run.plan.candidates < 17);  // narrowed, not nothing
    CHECK(run.plan.good == "c7");
    CHECK(index_of(range, run.plan.bad) >= 9);
  }
}

TEST_CASE("two regressions in one range: the first is named, the second noted") {
  const BisectRange range = make_range(17);
  // Regressions at c4 and c11.
  auto run = bisect(range, [&](const std::string& base, const std::string& c) {
    return oracle(range, {4, 11}, base, c);
  });
  REQUIRE(run.plan.state == BisectState::done);
  CHECK(run.plan.culprit == "c4");
  CHECK(run.plan.second_regression);
  REQUIRE_FALSE(run.steps.empty());
  CHECK(run.steps.back().residual);
  CHECK(run.steps.back().base == "c4");
  CHECK(run.steps.back().commit == "c16");
}

TEST_CASE("a step decides at half the confirmed change") {
  CHECK(step_threshold(1.05) == Approx(0.025));
  CHECK(step_threshold(0.90) == Approx(0.05));  // a throughput that fell 10 %
  CHECK(step_threshold(1.0) == 0);
  CHECK(step_threshold(5.0) == Approx(0.9));  // a threshold stays below 1
}

TEST_CASE("a step's outcome over the regressed benchmarks") {
  auto row = [](const std::string& name, compare::Verdict v) {
    compare::BenchmarkComparison r;
    r.key.suite = "s";
    r.key.name = name;
    r.key.metric = "wall_time";
    r.verdict = v;
    r.ratio = 1.2;
    r.ci_low = 1.18;
    r.ci_high = 1.22;
    return r;
  };
  std::string detail;
  CHECK(step_outcome({row("a", compare::Verdict::regressed), row("b", compare::Verdict::inconclusive)},
                     {"s/a:wall_time", "s/b:wall_time"}, &detail) == StepOutcome::bad);
  CHECK(detail.find("`s/a:wall_time` 1.20×") != std::string::npos);
  CHECK(step_outcome({row("a", compare::Verdict::unchanged), row("b", compare::Verdict::improved)},
                     {"s/a:wall_time", "s/b:wall_time"}, &detail) == StepOutcome::good);
  CHECK(step_outcome({row("a", compare::Verdict::unchanged), row("b", compare::Verdict::inconclusive)},
                     {"s/a:wall_time", "s/b:wall_time"}, &detail) == StepOutcome::inconclusive);
  // A benchmark that went missing decides nothing.
  CHECK(step_outcome({row("a", compare::Verdict::unchanged)}, {"s/a:wall_time", "s/b:wall_time"}, &detail) ==
        StepOutcome::inconclusive);
  // Other benchmarks do not count.
  CHECK(step_outcome({row("a", compare::Verdict::unchanged), row("z", compare::Verdict::regressed)},
                     {"s/a:wall_time"}, &detail) == StepOutcome::good);
}
