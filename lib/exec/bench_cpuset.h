// The benchmark cpuset on a cgroup-v1 shielded host, as the systemd
// runners reach it. v1 shielding puts PID 1 (and runnerd) in the
// housekeeping cpuset, so a unit PID 1 forks, or a child runnerd forks,
// cannot be pinned to a benchmark CPU: the kernel refuses (EINVAL). Only
// root may move another user's task between cpusets, so tunerd does,
// when runnerd asks (tuning/bench_admission.h); the command then pins
// itself. One piece for both runners: the service's gate waits for its
// go (gate.h), the scope's child for its release (scope_runner.h).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "exec/command_runner.h"

namespace bb::exec {

struct BenchAdmission {
  // Moves a process into the benchmark cpuset (runnerd: Tuner1.AdmitToBench).
  // Unset: the runner pins as it always did.
  std::function<Status(pid_t)> admit;
  // Exists while tunerd's v1 shielding is applied.
  std::string cpuset_tasks = kBenchCpusetTasks;

  // Whether a command pinned to `cpus` is admitted rather than pinned
  // from outside: asked per command, as shielding comes and goes.
  bool applies(const std::vector<int>& cpus) const;
  // For a runner's describe(): "" or "; under v1 shielding ...".
  std::string describe() const;
};

// The CPU part of Outcome::isolation: ";cpuset:benchbox-bench+affinity:1",
// ";allowed-cpus+affinity:1", ";affinity:1", or "" without CPUs.
std::string cpu_isolation(const std::vector<int>& cpus, bool admitted, bool allowed_cpus);

}  // namespace bb::exec
