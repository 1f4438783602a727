// benchbox-canary: the box's own benchmark (lib/canary/workload.h). Runs
// the core-bound and the memory-bound workload in turn, `--rounds` times,
// and prints a benchbox.resultset/1 of the two on stdout, so the canary's
// samples go through the statistics every suite's go through (unpaired:
// no two canary runs run side by side). On stderr:
// each workload's median and coefficient of variation, what an operator
// reads to see how much this box wanders.
//
// Exit status: 0, 2 on a bad argument, 3 when the core-bound workload
// computed two different checksums (the box is broken, not slow).
//
//   benchbox-canary [--rounds N] [--scale F]
#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "canary/workload.h"
#include "model/result_set.h"
#include "stats/describe.h"

namespace {

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Coefficient of variation: the sample standard deviation over the mean.
double cv(const std::vector<double>& v) { return std::sqrt(bb::stats::variance(v)) / bb::stats::mean(v); }

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "benchbox-canary: %s\nusage: benchbox-canary [--rounds N (2-10000)] [--scale F (0.001-100)]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 30;
  double scale = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc) scale = std::atof(argv[++i]);
    else usage((std::string("unknown argument '") + argv[i] + "'").c_str());
  }
  if (rounds < 2 || rounds > 10000) usage("--rounds must be 2 to 10000");
  if (!(scale >= 0.001 && scale <= 100)) usage("--scale must be 0.001 to 100");

  bb::canary::Sizes sizes;
  sizes.cpu_steps = uint64_t(double(sizes.cpu_steps) * scale);
  sizes.memory_hops = uint64_t(double(sizes.memory_hops) * scale);
  bb::canary::PointerChase chase(sizes.memory_bytes);

  // One round first, not kept: the buffer's pages and the code are warm.
  const uint64_t checksum = bb::canary::cpu(sizes.cpu_steps);
  uint64_t walked = chase.run(sizes.memory_hops);
  std::vector<double> cpu_s, memory_s;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = now_seconds();
    const uint64_t c = bb::canary::cpu(sizes.cpu_steps);
    const double t1 = now_seconds();
    walked += chase.run(sizes.memory_hops);
    const double t2 = now_seconds();
    if (c != checksum) {
      std::fprintf(stderr, "benchbox-canary: the core-bound workload computed %016llx, then %016llx: this box "
                           "computes wrong\n", (unsigned long long)checksum, (unsigned long long)c);
      return 3;
    }
    cpu_s.push_back(t1 - t0);
    memory_s.push_back(t2 - t1);
  }

  bb::model::ResultSet rs;
  rs.repository = "benchbox/canary";
  rs.commit = "canary-v" + std::to_string(bb::canary::kVersion);
  auto add = [&](const char* name, std::vector<double> samples, nlohmann::json extra) {
    bb::model::Benchmark b;
    b.key.suite = "canary";
    b.key.name = name;
    b.key.metric = "wall_time";
    b.unit = "s";
    // No rounds: two canary runs never run side by side, so their samples
    // must not be paired (the comparison then takes Mann-Whitney).
    b.samples = std::move(samples);
    b.extra = std::move(extra);
    rs.benchmarks.push_back(std::move(b));
  };
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)checksum);
  add("cpu", cpu_s, {{"steps", sizes.cpu_steps}, {"checksum", hex}, {"version", bb::canary::kVersion}});
  add("memory", memory_s,
      {{"bytes", sizes.memory_bytes}, {"hops", sizes.memory_hops}, {"lines", chase.lines()},
       {"walked", walked}, {"version", bb::canary::kVersion}});
  std::printf("%s\n", bb::model::to_json(rs).dump(2).c_str());
  std::fprintf(stderr, "canary v%d, %d rounds: cpu median %.3f ms, CV %.2f%%; memory median %.3f ms, CV %.2f%%\n",
               bb::canary::kVersion, rounds, bb::stats::median(cpu_s) * 1e3, cv(cpu_s) * 100,
               bb::stats::median(memory_s) * 1e3, cv(memory_s) * 100);
  return 0;
}
