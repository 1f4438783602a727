// CPU shielding: everything but benchmarks off the benchmark CPUs.
// - cgroup v2 with systemd as PID 1: AllowedCPUs= (runtime) on init.scope
//   and every top-level slice (system.slice, user.slice, machine.slice, ...)
//   = housekeeping CPUs, benchbox-bench.slice and its parent benchbox.slice
//   = benchmark CPUs, over systemd's D-Bus API.
// - cgroup v1 with a cpuset hierarchy: the same split as two cpusets,
//   /sys/fs/cgroup/cpuset/benchbox-housekeeping (every movable task moved
//   there) and /sys/fs/cgroup/cpuset/benchbox-bench (for the runner).
// - otherwise: reported as not possible here, with the reason.
#pragma once

#include <memory>
#include <string>

#include "tuning/item.h"

namespace bb::tuning {

inline constexpr const char* kCpusetRoot = "/sys/fs/cgroup/cpuset";
inline constexpr const char* kCpusetHousekeeping = "/sys/fs/cgroup/cpuset/benchbox-housekeeping";
inline constexpr const char* kCpusetBench = "/sys/fs/cgroup/cpuset/benchbox-bench";
inline constexpr const char* kBenchSlice = "benchbox-bench.slice";

enum class ShieldMode { systemd_slices, cpuset_v1, unavailable };

struct ShieldPlan {
  ShieldMode mode = ShieldMode::unavailable;
  bool enforced = true;  // systemd_slices: false when cgroup v2 lacks the cpuset controller
  std::string why;       // unavailable / not enforced: the reason, for the checklist
};

ShieldPlan detect_shielding(const Context& ctx);

std::unique_ptr<Item> make_shielding_item();

}  // namespace bb::tuning
