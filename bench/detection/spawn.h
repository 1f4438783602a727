// Runs a program once and measures it the way benchbox's runner does: wall
// time around fork/exec/wait on CLOCK_MONOTONIC, CPU time (user + system)
// from the child's rusage. Output goes to /dev/null.
#pragma once

#include <string>
#include <vector>

namespace bb::detection {

struct RunTimes {
  double wall = 0;  // seconds
  double cpu = 0;   // seconds, user + system
};

// Runs argv; returns false (and leaves `out` alone) if it could not be
// started or did not exit with status 0.
bool run_once(const std::vector<std::string>& argv, RunTimes* out);

// Seconds on CLOCK_MONOTONIC.
double monotonic_seconds();

}  // namespace bb::detection
