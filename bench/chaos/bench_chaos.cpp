// bench/chaos: a chaos run longer than the test command affords (by default
// 4x integration-chaos: 144 jobs, 2,080 signed deliveries, 208 SIGKILLs of
// webhookd, queued, runnerd and reporterd, GitHub's 502s and secondary rate
// limits), beside a calm run of the same deliveries at the same pace with no
// fault, on the same machine in the same run. It prints what the faults
// lost, doubled or left stuck (0 each, or it exits 1), and what they cost
// as ratios to the calm run: the time from the first delivery to a quiet
// box, and the time to settle once the deliveries were over.
// Run: build/bench/bench-chaos [--scale K] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "chaos_run.h"

using bb::test::ChaosOutcome;
using bb::test::ChaosSize;

namespace {

struct Options {
  int scale = 4;
  uint64_t seed = 20261205;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("usage: bench-chaos [--scale K] [--seed S]");
    char* end = nullptr;
    const unsigned long long v = std::strtoull(argv[i + 1], &end, 10);
    if (!end || *end) throw std::runtime_error(k + " takes a whole number, not '" + argv[i + 1] + "'");
    if (k == "--scale") o.scale = int(v);
    else if (k == "--seed") o.seed = v;
    else throw std::runtime_error("usage: bench-chaos [--scale K] [--seed S]");
  }
  if (o.scale < 1 || o.scale > 100) throw std::runtime_error("--scale must be 1 to 100");
  return o;
}

void print_run(const char* name, const ChaosOutcome& r) {
  std::printf("  %-6s %5d deliveries, %4d kills, %3zu jobs: %3d lost, %3d duplicated, %3d stuck; %4d refused "
              "connections, %4d answered 503; delivered in %6.1f s, quiet %6.1f s later\n",
              name, r.deliveries, r.kills, r.jobs, r.lost, r.duplicated, r.stuck, r.refused_connections,
              r.unavailable, r.deliver_seconds, r.settle_seconds);
}

bool clean(const ChaosOutcome& r, const ChaosSize& size) {
  return r.quiet && r.lost == 0 && r.duplicated == 0 && r.stuck == 0 &&
         r.answered == size_t(size.commits + size.pulls) && r.jobs == size_t(size.commits + size.pulls);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options opt = parse(argc, argv);
  if (!std::getenv("BENCHBOX_BUILD_ROOT")) ::setenv("BENCHBOX_BUILD_ROOT", BB_BUILD_ROOT, 1);
  ChaosSize size;
  size.commits *= opt.scale;
  size.pulls *= opt.scale;
  size.deliveries *= opt.scale;
  size.kills *= opt.scale;
  std::printf("bench-chaos: seed %llu, %d pushes and %d blessed pull requests in %d deliveries, %d kills\n",
              (unsigned long long)opt.seed, size.commits, size.pulls, size.deliveries, size.kills);
  std::fflush(stdout);
  const ChaosOutcome calm = run_chaos(size, opt.seed, false);
  print_run("calm", calm);
  std::fflush(stdout);
  const ChaosOutcome chaos = run_chaos(size, opt.seed, true);
  print_run("chaos", chaos);
  const double calm_total = calm.deliver_seconds + calm.settle_seconds;
  const double chaos_total = chaos.deliver_seconds + chaos.settle_seconds;
  std::printf("  time from the first delivery to a quiet box: %.2fx the calm run's (%.1f s vs %.1f s)\n",
              chaos_total / calm_total, chaos_total, calm_total);
  // A calm box keeps up: it is quiet within a poll of the last delivery,
  // and a ratio to that would be noise.
  if (calm.settle_seconds >= 1)
    std::printf("  time to settle after the last delivery:      %.2fx the calm run's (%.1f s vs %.1f s)\n",
                chaos.settle_seconds / calm.settle_seconds, chaos.settle_seconds, calm.settle_seconds);
  else
    std::printf("  time to settle after the last delivery:      %.1f s (the calm run kept up: quiet %.1f s after)\n",
                chaos.settle_seconds, calm.settle_seconds);
  std::printf("chaos: %d deliveries, %d kills, %d lost, %d duplicated, %d stuck (seed %llu)\n", chaos.deliveries,
              chaos.kills, chaos.lost, chaos.duplicated, chaos.stuck, (unsigned long long)opt.seed);
  bool ok = true;
  if (!clean(calm, size)) {
    std::fprintf(stderr, "bench-chaos: the calm run did not end clean: %s (logs kept in %s)\n%s\n",
                 calm.unsettled.c_str(), calm.kept.c_str(), calm.logs.c_str());
    ok = false;
  }
  if (!clean(chaos, size)) {
    std::fprintf(stderr, "bench-chaos: the chaos run did not end clean: %s (logs kept in %s)\n%s\n",
                 chaos.unsettled.c_str(), chaos.kept.c_str(), chaos.logs.c_str());
    ok = false;
  }
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench-chaos: %s\n", e.what());
  return 2;
}
