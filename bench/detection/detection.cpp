// bench/detection: how often each decision rule cries wolf, and how often it
// catches a real regression, on this machine's noise.
//
//   detection trace --trace FILE [--metric cpu_time|wall_time] [--trials N] ...
//       resamples a recorded A/A trace into A/B trials with injected effects
//   detection live --program PATH [--aa-trials N] [--effect-trials N] ...
//       runs the program and variants doing exactly e more work, interleaved
//   detection instructions --counts FILE [--trials N]
//       callgrind instruction counts recorded by `record-counts` (deterministic)
//
// Every mode prints its seed and, per method, the false-positive rate with its
// 95 % Wilson interval, the detection rate per effect, and the median runs
// per side and wall seconds per decision.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "methods.h"
#include "spawn.h"
#include "trace.h"
#include "stats/describe.h"
#include "stats/rng.h"

using namespace bb;
using namespace bb::detection;

namespace {

struct Args {
  std::map<std::string, std::string> kv;
  std::string get(const std::string& k, const std::string& def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : it->second;
  }
  double num(const std::string& k, double def) const {
    auto it = kv.find(k);
    return it == kv.end() ? def : std::strtod(it->second.c_str(), nullptr);
  }
};

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::strtod(item.c_str(), nullptr));
  return out;
}

struct Cell {
  int trials = 0, regressed = 0, unchanged = 0;
  int disagree = 0;  // the published verdict is not the sampler's decision
  std::vector<double> rounds, seconds;
};

struct Method {
  std::string name;
  std::function<Decision(const Rounds&, const EngineConfig&)> decide;
  std::map<double, Cell> cells;  // by effect
};

std::vector<Method> all_methods() {
  return {{"benchbox (published)", benchbox_published, {}},
          {"benchbox (sequential)", benchbox_sequential, {}},
          {"benchbox (fixed n)", benchbox_fixed, {}},
          {"asv rule", asv_rule, {}},
          {"Welch t 99 %", welch99, {}},
          {"benchbox (fixed n, unpaired)", benchbox_fixed_unpaired, {}},
          {"Mann-Whitney p<0.01 (unpaired)", mann_whitney_one_sided, {}}};
}

void record(Method& m, double effect, const Decision& d) {
  Cell& c = m.cells[effect];
  ++c.trials;
  c.regressed += d.regressed;
  c.unchanged += d.unchanged;
  c.disagree += !d.agrees;
  c.rounds.push_back(double(d.rounds));
  c.seconds.push_back(d.seconds);
}

// Wilson score interval for k successes in n trials.
std::pair<double, double> wilson(int k, int n) {
  if (n == 0) return {0, 1};
  const double z = 1.959963984540054, p = double(k) / n, z2n = z * z / n;
  const double centre = (p + z2n / 2) / (1 + z2n);
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z2n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

void print_table(std::vector<Method>& methods, const std::vector<double>& effects) {
  std::printf("%-30s %-26s", "method", "false positives [95% CI]");
  for (double e : effects)
    if (e > 0) std::printf(" %8s", (std::to_string(e * 100).substr(0, 3) + "%").c_str());
  std::printf("  %10s %10s %8s  %s\n", "runs/side", "s/decision", "p90 s", "A/A unchanged");
  for (auto& m : methods) {
    const Cell& aa = m.cells[0.0];
    auto [lo, hi] = wilson(aa.regressed, aa.trials);
    char fp[64];
    std::snprintf(fp, sizeof fp, "%d/%d=%.2f%% [%.2f, %.2f]", aa.regressed, aa.trials,
                  aa.trials ? 100.0 * aa.regressed / aa.trials : 0.0, lo * 100, hi * 100);
    std::printf("%-30s %-26s", m.name.c_str(), fp);
    std::vector<double> rounds, secs;
    for (double e : effects) {
      const Cell& c = m.cells[e];
      rounds.insert(rounds.end(), c.rounds.begin(), c.rounds.end());
      secs.insert(secs.end(), c.seconds.begin(), c.seconds.end());
      if (e > 0) std::printf(" %7.1f%%", c.trials ? 100.0 * c.regressed / c.trials : 0.0);
    }
    std::printf("  %10.0f %10.1f %8.1f  %.1f%%\n", stats::median(rounds), stats::median(secs), stats::quantile(secs, 0.9),
                aa.trials ? 100.0 * aa.unchanged / aa.trials : 0.0);
  }
  int trials = 0, disagree = 0;
  for (auto& [e, c] : methods[0].cells) {
    trials += c.trials;
    disagree += c.disagree;
  }
  std::printf("%s: the sampler's decision in %d of %d trials\n", methods[0].name.c_str(), trials - disagree, trials);
  std::printf("per effect (median runs/side, median s): ");
  for (double e : effects) {
    const Cell& c = methods[0].cells[e];
    std::printf(" %.1f%%: %.0f runs %.1f s (p90 %.1f s);", e * 100, stats::median(c.rounds), stats::median(c.seconds),
                stats::quantile(c.seconds, 0.9));
  }
  std::printf("  (benchbox published)\n");
}

EngineConfig engine_config(const Args& a, size_t max_rounds) {
  EngineConfig c;
  c.metric = a.get("metric", "cpu_time");
  c.fixed_n = size_t(a.num("fixed-n", 30));
  c.sequential.min_rounds = size_t(a.num("min-rounds", 10));
  c.sequential.max_rounds = max_rounds;
  c.sequential.growth = a.num("growth", 1.5);
  c.sequential.gamma = a.num("gamma", 1.0);
  c.budget_seconds = a.num("budget-seconds", 60);
  return c;
}

void print_design(const EngineConfig& c) {
  compare::SequentialSampler s({}, c.sequential);
  std::printf("sequential design: alpha %.3f, HSD gamma %.2f, looks at", s.design().alpha, s.design().gamma);
  for (size_t i = 0; i < s.design().looks.size(); ++i)
    std::printf(" %zu (%.4f%%)", s.design().looks[i], s.design().look_alpha[i] * 100);
  compare::Options o;
  std::printf("\nthreshold %.2f%% (%s), fixed-n methods use %zu runs a side\n", o.threshold_for({"", "", {}, c.metric}) * 100,
              c.metric.c_str(), c.fixed_n);
}

// ---- trace-driven ----------------------------------------------------------

int trace_mode(const Args& a) {
  const std::string path = a.get("trace", "");
  const auto runs = load_trace(path);
  if (runs.size() < 100) {
    std::fprintf(stderr, "detection: %s: too few runs (%zu)\n", path.c_str(), runs.size());
    return 2;
  }
  const uint64_t seed = uint64_t(a.num("seed", 1));
  const int trials = int(a.num("trials", 1000));
  const double budget = a.num("budget-seconds", 60);
  const auto effects = parse_list(a.get("effects", "0,0.005,0.01,0.02,0.05"));
  std::vector<double> walls;
  for (auto& r : runs) walls.push_back(r.wall);
  const double per_run = stats::median(walls);
  size_t max_rounds = size_t(budget / (2 * per_run));
  max_rounds = std::min(max_rounds, runs.size() / 2 - 1);
  const EngineConfig cfg = engine_config(a, max_rounds);
  const bool use_cpu = cfg.metric == "cpu_time";
  std::printf("== trace-driven: %s (%zu runs, median %.1f ms wall), metric %s, %d trials per cell, seed %llu\n",
              path.c_str(), runs.size(), per_run * 1e3, cfg.metric.c_str(), trials, (unsigned long long)seed);
  std::printf("budget %.0f s -> at most %zu rounds (one base + one head run each)\n", budget, max_rounds);
  print_design(cfg);

  auto methods = all_methods();
  stats::Rng rng(seed);
  const size_t need = std::max(max_rounds, cfg.fixed_n);
  for (int t = 0; t < trials; ++t) {
    // Common random numbers: every effect sees the same window and order.
    const size_t start = rng.below(runs.size() - 2 * need);
    std::vector<bool> swap(need);
    for (size_t i = 0; i < need; ++i) swap[i] = rng.below(2);
    for (double e : effects) {
      Rounds r;
      for (size_t i = 0; i < need; ++i) {
        const TraceRun& x = runs[start + 2 * i + (swap[i] ? 1 : 0)];
        const TraceRun& y = runs[start + 2 * i + (swap[i] ? 0 : 1)];
        r.base.push_back(use_cpu ? x.cpu : x.wall);
        r.head.push_back((use_cpu ? y.cpu : y.wall) * (1 + e));
        r.base_wall.push_back(x.wall);
        r.head_wall.push_back(y.wall * (1 + e));
      }
      for (auto& m : methods) record(m, e, m.decide(r, cfg));
    }
  }
  print_table(methods, effects);
  return 0;
}

// ---- live ------------------------------------------------------------------

// One decision metric's share of a live run: its own sampler, rounds and
// tables. Several metrics read the same runs (--metric cpu_time,wall_time).
struct LiveMetric {
  EngineConfig cfg;
  std::vector<Method> methods = all_methods();
  Rounds rounds;
};

int live_mode(const Args& a) {
  const std::string program = a.get("program", "");
  const uint64_t iterations = uint64_t(a.num("iterations", 42000000));
  const uint64_t seed = uint64_t(a.num("seed", 1));
  const int aa_trials = int(a.num("aa-trials", 300));
  const int effect_trials = int(a.num("effect-trials", 50));
  const double budget = a.num("budget-seconds", 60);
  const auto effects_in = parse_list(a.get("effects", "0.01,0.02,0.05"));
  std::vector<double> effects = {0.0};
  effects.insert(effects.end(), effects_in.begin(), effects_in.end());
  std::vector<std::string> metric_names;
  {
    std::stringstream ss(a.get("metric", "cpu_time"));
    for (std::string m; std::getline(ss, m, ',');) {
      if (m != "cpu_time" && m != "wall_time") {
        std::fprintf(stderr, "detection: --metric takes cpu_time and/or wall_time, not '%s'\n", m.c_str());
        return 2;
      }
      metric_names.push_back(m);
    }
  }

  auto argv_for = [&](double e) {
    return std::vector<std::string>{program, std::to_string(uint64_t(std::llround(double(iterations) * (1 + e))))};
  };
  // Calibrate: a few runs to know the time per run and so the round budget.
  std::vector<double> cal;
  for (int i = 0; i < 5; ++i) {
    RunTimes t;
    if (!run_once(argv_for(0), &t)) {
      std::fprintf(stderr, "detection: %s does not run\n", program.c_str());
      return 2;
    }
    cal.push_back(t.wall);
  }
  const size_t max_rounds = std::max<size_t>(10, size_t(budget / (2 * stats::median(cal))));
  std::vector<LiveMetric> metrics;
  for (const auto& m : metric_names) {
    Args am = a;
    am.kv["metric"] = m;
    metrics.push_back({engine_config(am, max_rounds), all_methods(), {}});
  }
  const size_t fixed_n = metrics.front().cfg.fixed_n;
  std::printf("== live: %s %llu iterations (%.1f ms a run), metric %s, %d A/A trials, %d trials per effect, seed %llu\n",
              program.c_str(), (unsigned long long)iterations, stats::median(cal) * 1e3, a.get("metric", "cpu_time").c_str(),
              aa_trials, effect_trials, (unsigned long long)seed);
  std::printf("budget %.0f s -> at most %zu rounds\n", budget, max_rounds);
  for (const auto& m : metrics) print_design(m.cfg);
  std::fflush(stdout);

  std::vector<double> schedule;
  for (int i = 0; i < aa_trials; ++i) schedule.push_back(0.0);
  for (double e : effects_in)
    for (int i = 0; i < effect_trials; ++i) schedule.push_back(e);
  stats::Rng rng(seed);
  for (size_t i = schedule.size(); i > 1; --i) std::swap(schedule[i - 1], schedule[rng.below(i)]);

  auto print_all = [&] {
    for (auto& m : metrics) {
      std::printf("metric %s:\n", m.cfg.metric.c_str());
      print_table(m.methods, effects);
    }
  };
  const double t0 = monotonic_seconds();
  for (size_t t = 0; t < schedule.size(); ++t) {
    const double e = schedule[t];
    std::vector<compare::SequentialSampler> samplers;
    std::vector<bool> done(metrics.size(), false);
    for (auto& m : metrics) {
      samplers.emplace_back(m.cfg.options, m.cfg.sequential);
      m.rounds = {};
    }
    double elapsed = 0;
    auto all_done = [&] { return std::all_of(done.begin(), done.end(), [](bool d) { return d; }); };
    while (!all_done() || metrics.front().rounds.base.size() < fixed_n) {
      RunTimes tb, th;
      const bool head_first = rng.below(2);
      bool ok = head_first ? (run_once(argv_for(e), &th) && run_once(argv_for(0), &tb))
                           : (run_once(argv_for(0), &tb) && run_once(argv_for(e), &th));
      if (!ok) {
        std::fprintf(stderr, "detection: a run failed\n");
        return 2;
      }
      elapsed += tb.wall + th.wall;
      for (size_t i = 0; i < metrics.size(); ++i) {
        Rounds& r = metrics[i].rounds;
        const bool use_cpu = metrics[i].cfg.metric == "cpu_time";
        r.base.push_back(use_cpu ? tb.cpu : tb.wall);
        r.head.push_back(use_cpu ? th.cpu : th.wall);
        r.base_wall.push_back(tb.wall);
        r.head_wall.push_back(th.wall);
        if (done[i]) continue;
        model::Benchmark b, h;
        b.key.metric = h.key.metric = metrics[i].cfg.metric;
        b.samples = r.base;
        h.samples = r.head;
        for (size_t k = 0; k < r.base.size(); ++k) {
          b.rounds.push_back(int64_t(k));
          h.rounds.push_back(int64_t(k));
        }
        done[i] = samplers[i].update(b, h, elapsed >= metrics[i].cfg.budget_seconds).stop;
      }
    }
    for (auto& m : metrics)
      for (auto& method : m.methods) record(method, e, method.decide(m.rounds, m.cfg));
    if ((t + 1) % 10 == 0) {
      std::fprintf(stderr, "live: %zu/%zu trials, %.0f s\n", t + 1, schedule.size(), monotonic_seconds() - t0);
    }
    // The schedule is shuffled, so any prefix is a fair sample of the whole
    // run: print the table as it stands now and then, so that a run cut short
    // (the full size takes hours) still leaves a usable, honest result.
    if ((t + 1) % 50 == 0 && t + 1 < schedule.size()) {
      std::printf("-- after %zu of %zu trials, %.0f s:\n", t + 1, schedule.size(), monotonic_seconds() - t0);
      print_all();
      std::fflush(stdout);
    }
  }
  std::printf("live run took %.0f s\n", monotonic_seconds() - t0);
  print_all();
  return 0;
}

// ---- instruction counts ----------------------------------------------------

// Lines "variant,instructions" (variant 0 = the program, 0.001 = 0.1 % more work).
int instructions_mode(const Args& a) {
  const std::string path = a.get("counts", "");
  std::ifstream in(path);
  std::string line;
  std::map<double, std::vector<double>> counts;
  std::getline(in, line);
  while (std::getline(in, line)) {
    double variant, n;
    if (std::sscanf(line.c_str(), "%lf,%lf", &variant, &n) == 2) counts[variant].push_back(n);
  }
  if (counts.size() < 2 || counts.begin()->second.empty()) {
    std::fprintf(stderr, "detection: %s: need counts for variant 0 and at least one other\n", path.c_str());
    return 2;
  }
  const uint64_t seed = uint64_t(a.num("seed", 1));
  const int trials = int(a.num("trials", 1000));
  const size_t per_side = size_t(a.num("runs", 1));
  stats::Rng rng(seed);
  std::printf("== instruction counts (callgrind): %s, %d trials per cell, %zu run(s) a side, seed %llu\n", path.c_str(),
              trials, per_side, (unsigned long long)seed);
  for (auto& [variant, v] : counts) {
    auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    std::printf("variant +%.3f%%: %zu recorded runs, min %.0f max %.0f\n", variant * 100, v.size(), *lo, *hi);
  }
  const auto& base = counts.begin()->second;
  for (auto& [variant, head_pool] : counts) {
    int regressed = 0;
    for (int t = 0; t < trials; ++t) {
      model::Benchmark b, h;
      b.key.metric = h.key.metric = "instructions";
      b.unit = h.unit = "count";
      for (size_t i = 0; i < per_side; ++i) {
        b.samples.push_back(base[rng.below(base.size())]);
        h.samples.push_back(head_pool[rng.below(head_pool.size())]);
      }
      regressed += compare::compare_benchmark(b, h, {}).verdict == compare::Verdict::regressed;
    }
    auto [lo, hi] = wilson(regressed, trials);
    std::printf("benchbox exact, +%.3f%%: regressed %d/%d = %.1f%% [95%% CI %.2f, %.2f]\n", variant * 100, regressed,
                trials, 100.0 * regressed / trials, lo * 100, hi * 100);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: detection trace|live|instructions [--key value]...\n");
    return 2;
  }
  Args a;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strncmp(argv[i], "--", 2) != 0) {
      std::fprintf(stderr, "detection: expected --key value, got '%s'\n", argv[i]);
      return 2;
    }
    a.kv[argv[i] + 2] = argv[i + 1];
  }
  const std::string mode = argv[1];
  if (mode == "trace") return trace_mode(a);
  if (mode == "live") return live_mode(a);
  if (mode == "instructions") return instructions_mode(a);
  std::fprintf(stderr, "detection: unknown mode '%s'\n", mode.c_str());
  return 2;
}
