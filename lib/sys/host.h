// Facts about the host that name a measurement environment, read through
// SysFs so fake trees can describe other machines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sys/sysfs.h"
#include "util/result.h"

namespace bb::sys {

struct HostInfo {
  std::string cpu_model;   // /proc/cpuinfo "model name" of the first CPU
  std::string microcode;   // /proc/cpuinfo "microcode", "" when not reported
  std::string kernel;      // /proc/sys/kernel/osrelease
  int cpus = 0;            // online CPUs (/sys/devices/system/cpu/online); 0 when unreadable
  uint64_t memory_bytes = 0;  // /proc/meminfo MemTotal; 0 when unreadable
};

// Missing fields are left empty, except the kernel release, which every
// Linux has: its absence is an error (the root is probably wrong).
Result<HostInfo> read_host_info(const SysFs& fs);

// /sys/devices/system/cpu/online as a list.
Result<std::vector<int>> online_cpus(const SysFs& fs);

// The value of `key` in /proc/cmdline ("isolcpus=3" -> "3"), "" when absent,
// "=" alone counts as present with an empty value.
struct CmdlineArg {
  bool present = false;
  std::string value;
};
CmdlineArg cmdline_arg(const std::string& cmdline, const std::string& key);

}  // namespace bb::sys
