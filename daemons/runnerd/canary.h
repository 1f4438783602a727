// The canary on this box (docs/canary.md): benchbox-canary run on the
// benchmark CPUs by the runner that runs benchmark commands, in the same
// kind of unit, so what slows them slows it. Each run's result set is kept
// as <results_dir>/canary/<unix time>.json, the box's history of itself,
// which reporterd reads and judges (lib/canary/health.h). When it runs is
// lib/canary/schedule.h's; the Manager asks it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/command_runner.h"
#include "model/environment.h"
#include "util/result.h"

namespace bb::runnerd {

struct CanaryRecord {
  int64_t time = 0;       // unix seconds it finished (the file's name)
  std::string version;    // the benchbox that ran it
  std::string path;
};

// The newest run kept in `dir`; nullopt when none (or `dir` is missing).
std::optional<CanaryRecord> newest_canary(const std::string& dir);

struct CanaryRequest {
  exec::CommandRunner* runner = nullptr;
  std::string program;              // benchbox-canary, beside benchbox-runnerd
  std::vector<int> cpus;
  unsigned rounds = 30;
  std::string dir;                  // <results_dir>/canary
  std::string why;                  // the schedule's reason, kept with the run
  std::string runner_id;
  model::Environment environment;   // cpus, isolation and hardware class: its history's key
  std::string tuning;               // tunerd's state when it ran
  const std::atomic<bool>* cancel = nullptr;
};

// Runs the canary once and keeps its result set; what it kept. An error
// says why there is no run (it failed, computed wrong, or was cancelled).
Result<CanaryRecord> run_canary(const CanaryRequest& request, int64_t now);

}  // namespace bb::runnerd
