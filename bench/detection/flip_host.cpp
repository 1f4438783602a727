// Makes the host flip between two speed states, the way a box does whose
// clock drops under thermal or power limits, or whose neighbour wakes up
// now and then: it alternates between spinning on the CPU it was started on
// (at a nice level, so a benchmark pinned to the same CPU gets a fixed share
// of it: 1024 / (1024 + weight(nice)), 75 % at nice 5) and sleeping. The
// time in each state is exponential with the given means, from a fixed seed,
// so a recorded trace can be made again. Each change of state goes to the
// log (`seconds,state`, on CLOCK_MONOTONIC since start) so that a trace
// recorded beside it can be checked against the true states.
//
//   flip-host SECONDS LOG.csv [--seed N] [--mean-on S] [--mean-off S] [--nice N]
//
// Started with taskset on the benchmark's CPU, e.g.
//   taskset -c 1 detection-flip-host 600 flips.csv --seed 7 &
//   taskset -c 1 detection-record-trace trace.csv 5000 detection-workload 42000000
#include <sys/resource.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "spawn.h"
#include "stats/rng.h"

namespace {

double exponential(bb::stats::Rng& rng, double mean) {
  double u = rng.uniform();
  while (u <= 0) u = rng.uniform();
  return -mean * std::log(u);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: flip-host SECONDS LOG.csv [--seed N] [--mean-on S] [--mean-off S] [--nice N]\n");
    return 2;
  }
  const double total = std::strtod(argv[1], nullptr);
  uint64_t seed = 7;
  double mean_on = 1.0, mean_off = 1.0;
  int nice = 5;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--mean-on") mean_on = std::strtod(argv[i + 1], nullptr);
    else if (k == "--mean-off") mean_off = std::strtod(argv[i + 1], nullptr);
    else if (k == "--nice") nice = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "flip-host: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (!(total > 0) || !(mean_on > 0) || !(mean_off > 0)) {
    std::fprintf(stderr, "flip-host: SECONDS and the means must be positive\n");
    return 2;
  }
  if (setpriority(PRIO_PROCESS, 0, nice) != 0) {
    std::fprintf(stderr, "flip-host: setpriority(%d): %s\n", nice, std::strerror(errno));
    return 1;
  }
  FILE* log = std::fopen(argv[2], "w");
  if (!log) {
    std::perror(argv[2]);
    return 2;
  }
  std::fprintf(log, "seconds,state\n");
  bb::stats::Rng rng(seed);
  const double t0 = bb::detection::monotonic_seconds();
  bool on = false;
  volatile uint64_t sink = 0;
  for (double now = 0; now < total; now = bb::detection::monotonic_seconds() - t0) {
    on = !on;
    std::fprintf(log, "%.6f,%s\n", now, on ? "busy" : "idle");
    std::fflush(log);
    const double until = now + exponential(rng, on ? mean_on : mean_off);
    if (on) {
      while (bb::detection::monotonic_seconds() - t0 < until)
        for (int i = 0; i < 100000; ++i) sink = sink + uint64_t(i);
    } else {
      std::this_thread::sleep_for(std::chrono::duration<double>(until - now));
    }
  }
  std::fclose(log);
  return 0;
}
