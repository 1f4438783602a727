// benchbox-runnerd's command line and the settings it derives from the
// appliance config (the runner and queue sections).
#pragma once

#include <string>
#include <vector>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::runnerd {

struct Conf {
  config::ApplianceConfig appliance;

  // Derived, validated at startup.
  std::string runner_id;         // runner.runner_id, or the hostname
  std::vector<int> benchmark_cpus;  // runner.benchmark_cpus, or the last online CPU
  std::string git_cache_dir;     // <cache_dir>/git
  std::string build_cache_dir;   // <cache_dir>/builds
  uint64_t build_cache_bytes = 0;  // runner.build_cache_bytes; 0 = off
  std::string work_dir;          // appliance.work_dir()
  std::string meter_dir;         // <cache_dir>/meter: benchbox-meter's reports (runnerd's alone)
  std::string results_dir;       // appliance.results_dir()
  unsigned lease_seconds = 120;  // queue.lease_seconds: what Claim asks for
};

// Loads the appliance config (config::load_appliance_config's rule for a
// missing file) and derives the runner's settings. Benchmark CPUs that are
// not online are an error. SIGHUP calls it again with the same source.
Result<Conf> load_conf(const config::ConfigSource& source);

// The CPUs the kernel has online ("/sys/devices/system/cpu/online").
Result<std::vector<int>> online_cpus();

}  // namespace bb::runnerd
