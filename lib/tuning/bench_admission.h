// Admission of a contained command to the cgroup-v1 benchmark cpuset.
//
// Why it is needed: v1 shielding moves every movable task, PID 1
// included, into benchbox-housekeeping (shielding.h). A transient service
// that PID 1 forks inherits that cpuset, so it cannot run on a benchmark
// CPU: CPUAffinity= would fail with EINVAL and the unit with it. Only root
// may move another user's task between cpusets, and the job's sandbox
// sees /sys/fs/cgroup read-only, so benchbox-tunerd (root) moves it, when
// runnerd asks, while the command's gate waits (exec/gate.h).
//
// What it may move: only a process of a service or scope directly in
// benchbox-bench.slice, as PID 1 placed it (its systemd cgroup), so the
// method cannot pull any other process of the box onto the benchmark CPUs.
#pragma once

#include <sys/types.h>

#include <string>

#include "sys/sysfs.h"
#include "util/result.h"

namespace bb::tuning {

// The unit of `pid` when its systemd cgroup ("0::" on a unified or hybrid
// host, "name=systemd" on a legacy one, from /proc/PID/cgroup) is
// <...>/benchbox-bench.slice/<unit>.service or .scope; else a permission
// error that says where the process is.
Result<std::string> bench_service_of(const sys::SysFs& fs, pid_t pid);

// Writes `pid` to benchbox-bench/tasks after bench_service_of() agreed.
// Errc::not_found when v1 shielding is not applied (no benchmark cpuset).
// Returns the unit's name.
Result<std::string> admit_to_bench(sys::SysFs& fs, pid_t pid);

}  // namespace bb::tuning
