// bench/bisect: naming the culprit of a regression in a 64-commit range.
//
// Each trial puts one culprit (uniformly) among 64 first-parent commits
// and finds it twice, on the same recorded noise of this machine
// (bench/data, resampled as bench/detection does) with the real engine:
//   bisect:  confirm (last good vs first bad), then report::plan_bisection's
//            steps, each a sequential interleaved comparison against the
//            nearest good commit, and the residual check;
//   every:   every commit against the one before it, as measuring each
//            commit would have to, the first bad one named.
// It prints, per effect, how often each names the right commit (with a
// 95 % Wilson interval), the median comparisons, and the box time of
// bisect as a ratio to every, measured in the same run.
//
//   bench-bisect [--trace FILE] [--trials N] [--seed S] [--effects 0.02,0.05]
//                [--commits 64] [--budget-seconds 60]
// BISECT_DEBUG=1 prints the steps of every trial that missed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "../detection/methods.h"
#include "../detection/trace.h"
#include "report/bisect.h"
#include "stats/describe.h"
#include "stats/rng.h"

using namespace bb;
using namespace bb::detection;

namespace {

struct Outcome {
  std::string how;  // "right", "wrong", "narrowed", "refuted"
  bool right = false;
  size_t comparisons = 0;
  double seconds = 0;
};

struct Box {
  const std::vector<TraceRun>& runs;
  EngineConfig cfg;
  stats::Rng& rng;
  size_t need;

  // One interleaved comparison on a fresh window of the trace, with the
  // head `factor` times slower; `split` > 0 decides it against that
  // threshold instead of the metric's own (a bisection step).
  Decision compare(double factor, double split = 0) {
    EngineConfig c = cfg;
    if (split > 0) c.options.overrides[""] = split;
    const size_t start = rng.below(runs.size() - 2 * need);
    Rounds r;
    for (size_t i = 0; i < need; ++i) {
      const bool swap = rng.below(2);
      const TraceRun& x = runs[start + 2 * i + (swap ? 1 : 0)];
      const TraceRun& y = runs[start + 2 * i + (swap ? 0 : 1)];
      r.base.push_back(x.cpu);
      r.head.push_back(y.cpu * factor);
      r.base_wall.push_back(x.wall);
      r.head_wall.push_back(y.wall * factor);
    }
    return benchbox_sequential(r, c);
  }
};

report::StepOutcome outcome_of(const Decision& d) {
  if (d.regressed) return report::StepOutcome::bad;
  if (d.unchanged) return report::StepOutcome::good;
  return report::StepOutcome::inconclusive;
}

Outcome bisect(Box& box, size_t n, size_t culprit, double effect) {
  report::BisectRange range;
  range.good = "g";
  for (size_t i = 0; i < n; ++i) range.commits.push_back(std::to_string(i));
  auto index = [&](const std::string& c) -> long { return c == "g" ? -1 : std::stol(c); };
  auto factor = [&](const std::string& base, const std::string& head) {
    return index(base) < long(culprit) && long(culprit) <= index(head) ? 1 + effect : 1.0;
  };
  Outcome out;
  // Confirmation: the first bad (the range's end) against the last good.
  Decision confirm = box.compare(factor("g", range.commits.back()));
  ++out.comparisons;
  out.seconds += confirm.seconds;
  if (!confirm.regressed) {
    out.how = "refuted";
    return out;
  }
  // Each step asks "is the confirmed change there?": half the confirmed
  // effect separates there from not there.
  const double split = report::step_threshold(confirm.ratio);
  std::vector<report::BisectStep> steps;
  for (int guard = 0; guard < 200; ++guard) {
    auto plan = report::plan_bisection(range, steps);
    if (plan.state == report::BisectState::done || plan.state == report::BisectState::narrowed) {
      out.right = plan.state == report::BisectState::done && plan.culprit == std::to_string(culprit);
      out.how = out.right ? "right" : plan.state == report::BisectState::narrowed ? "narrowed" : "wrong";
      if (std::getenv("BISECT_DEBUG") && !out.right) {
        std::fprintf(stderr, "culprit %zu: %s %s (%s)\n", culprit, report::to_string(plan.state), plan.culprit.c_str(), plan.reason.c_str());
        for (auto& st : steps) std::fprintf(stderr, "  %s vs %s: %s\n", st.commit.c_str(), st.base.c_str(), report::to_string(st.outcome));
      }
      return out;
    }
    Decision d = box.compare(factor(plan.base, plan.next), split);
    ++out.comparisons;
    out.seconds += d.seconds;
    report::BisectStep s;
    s.base = plan.base;
    s.commit = plan.next;
    s.residual = plan.state == report::BisectState::residual;
    s.outcome = outcome_of(d);
    steps.push_back(s);
  }
  return out;
}

Outcome every_commit(Box& box, size_t n, size_t culprit, double effect) {
  Outcome out;
  long named = -1;
  for (size_t i = 0; i < n; ++i) {
    Decision d = box.compare(i == culprit ? 1 + effect : 1.0);
    ++out.comparisons;
    out.seconds += d.seconds;
    if (d.regressed && named < 0) named = long(i);
  }
  out.right = named == long(culprit);
  return out;
}

double arg(int argc, char** argv, const char* name, double def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return std::atof(argv[i + 1]);
  return def;
}

std::string sarg(int argc, char** argv, const char* name, const std::string& def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == name) return argv[i + 1];
  return def;
}

// 95 % Wilson interval of k successes in n.
std::pair<double, double> wilson(size_t k, size_t n) {
  if (n == 0) return {0, 1};
  const double z = 1.96, p = double(k) / double(n), nn = double(n);
  const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string trace = sarg(argc, argv, "--trace", BB_SOURCE_ROOT "/bench/data/aa-trace-workload-80ms.csv");
  const size_t trials = size_t(arg(argc, argv, "--trials", 200));
  const uint64_t seed = uint64_t(arg(argc, argv, "--seed", 1));
  const size_t n = size_t(arg(argc, argv, "--commits", 64));
  const double budget = arg(argc, argv, "--budget-seconds", 60);
  std::vector<double> effects;
  for (std::string list = sarg(argc, argv, "--effects", "0.02,0.05"); !list.empty();) {
    const size_t comma = list.find(',');
    effects.push_back(std::atof(list.substr(0, comma).c_str()));
    list = comma == std::string::npos ? "" : list.substr(comma + 1);
  }
  const auto runs = load_trace(trace);
  if (runs.size() < 1000) {
    std::fprintf(stderr, "bench-bisect: %s: too few runs (%zu)\n", trace.c_str(), runs.size());
    return 2;
  }
  std::vector<double> walls;
  for (const auto& r : runs) walls.push_back(r.wall);
  EngineConfig cfg;
  cfg.metric = "cpu_time";
  cfg.budget_seconds = budget;
  cfg.sequential.max_rounds = std::min(size_t(budget / (2 * stats::median(walls))), runs.size() / 4);
  stats::Rng rng(seed);
  Box box{runs, cfg, rng, cfg.sequential.max_rounds};
  std::printf("== bisect: %zu first-parent commits, one culprit, %zu trials per effect, seed %llu\n", n, trials,
              static_cast<unsigned long long>(seed));
  std::printf("noise: %s (%zu runs, median %.1f ms), metric cpu_time, at most %zu rounds (%.0f s) a comparison\n",
              trace.c_str(), runs.size(), stats::median(walls) * 1e3, cfg.sequential.max_rounds, budget);
  std::printf("%-7s %-7s %-22s %-12s %-12s %s\n", "effect", "method", "right commit (95% CI)", "comparisons",
              "box time", "ratio");
  for (double e : effects) {
    std::map<std::string, std::vector<Outcome>> by;
    for (size_t t = 0; t < trials; ++t) {
      const size_t culprit = rng.below(n);
      by["bisect"].push_back(bisect(box, n, culprit, e));
      by["every"].push_back(every_commit(box, n, culprit, e));
    }
    double every_seconds = 0;
    for (const auto& o : by["every"]) every_seconds += o.seconds;
    for (const char* method : {"bisect", "every"}) {
      const auto& v = by[method];
      size_t right = 0;
      double seconds = 0;
      std::vector<double> comparisons;
      for (const auto& o : v) {
        right += o.right;
        seconds += o.seconds;
        comparisons.push_back(double(o.comparisons));
      }
      auto [lo, hi] = wilson(right, v.size());
      char ci[64];
      std::snprintf(ci, sizeof ci, "%5.1f%% (%.1f-%.1f)", 100.0 * double(right) / double(v.size()), 100 * lo,
                    100 * hi);
      std::printf("%-7.3f %-7s %-22s %-12.1f %-12s %.3fx\n", e, method, ci, stats::median(comparisons),
                  (std::to_string(int(seconds / double(v.size()))) + " s").c_str(), seconds / every_seconds);
    }
  }
  std::printf("(comparisons: median per trial, bisect counting its confirmation and residual check; box time: mean "
              "per trial; ratio: box time against every commit)\n");
  return 0;
}
