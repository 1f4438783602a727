// Records an A/A noise trace: runs the same program back to back RUNS times
// and writes one CSV line per run (index, start time since the first run,
// wall seconds, CPU seconds). The detection benchmark resamples such traces
// into A/B trials (bench/data/README.md says how the committed ones were made).
//
//   record-trace OUT.csv RUNS PROGRAM [ARGS...]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "spawn.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: record-trace OUT.csv RUNS PROGRAM [ARGS...]\n");
    return 2;
  }
  const long runs = std::strtol(argv[2], nullptr, 10);
  std::vector<std::string> cmd(argv + 3, argv + argc);
  FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::perror(argv[1]);
    return 2;
  }
  std::fprintf(out, "index,start_s,wall_s,cpu_s\n");
  const double t0 = bb::detection::monotonic_seconds();
  for (long i = 0; i < runs; ++i) {
    bb::detection::RunTimes t;
    const double start = bb::detection::monotonic_seconds() - t0;
    if (!bb::detection::run_once(cmd, &t)) {
      std::fprintf(stderr, "record-trace: run %ld of %s failed\n", i, cmd[0].c_str());
      return 1;
    }
    std::fprintf(out, "%ld,%.6f,%.9f,%.6f\n", i, start, t.wall, t.cpu);
    if (i % 500 == 0) std::fflush(out);
  }
  std::fclose(out);
  return 0;
}
