// benchbox-runnerd's command line and the settings it derives from the
// appliance config (the runner and queue sections).
#pragma once

#include <string>
#include <vector>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::runnerd {

struct Conf {
  std::string config_path = config::kDefaultConfigPath;
  bool config_path_given = false;
  config::ApplianceConfig appliance;

  // Derived, validated at startup.
  std::string runner_id;         // runner.runner_id, or the hostname
  std::vector<int> benchmark_cpus;  // runner.benchmark_cpus, or the last online CPU
  std::string git_cache_dir;     // <cache_dir>/git
  std::string work_dir;          // appliance.work_dir()
  std::string results_dir;       // appliance.results_dir()
  unsigned lease_seconds = 120;  // queue.lease_seconds: what Claim asks for
};

// Parses argv and loads the appliance config. A missing file at the default
// path means defaults; a missing file named with --config is an error.
// Benchmark CPUs that are not online are an error.
Result<Conf> load_conf(int argc, char** argv);
// Reads the same file again (SIGHUP).
Result<Conf> reload_conf(const Conf& previous);

// The CPUs the kernel has online ("/sys/devices/system/cpu/online").
Result<std::vector<int>> online_cpus();

}  // namespace bb::runnerd
