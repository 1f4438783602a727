// A recorded A/A noise trace (bench/data/aa-trace-*.csv): one line per run
// of the same program, `index,start_s,wall_s,cpu_s`. Shared by the benches
// that resample real noise (detection, bisect).
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace bb::detection {

struct TraceRun {
  double wall, cpu;
};

inline std::vector<TraceRun> load_trace(const std::string& path) {
  std::vector<TraceRun> runs;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    double idx, start, wall, cpu;
    if (std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &idx, &start, &wall, &cpu) != 4) continue;
    if (!(cpu > 0) || !(wall > 0)) continue;  // a run the kernel accounted no CPU time to
    runs.push_back({wall, cpu});
  }
  return runs;
}

}  // namespace bb::detection
