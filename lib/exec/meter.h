// What a contained command used, read from its unit's cgroup by
// benchbox-meter: the unit's privileged ExecStopPost=, which PID 1 runs in
// the same cgroup once every process of the command is gone (so nothing
// of the job can still change the figures), and which writes them to a
// file in runnerd's own directory that the job cannot reach.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace bb::exec {

struct MeterReading {
  uint64_t user_usec = 0;          // cpu.stat: the whole cgroup, like rusage of a waited-for tree
  uint64_t system_usec = 0;
  std::optional<uint64_t> memory_peak;  // memory.peak (Linux >= 5.19, MemoryAccounting=yes)
  uint64_t oom_kills = 0;          // memory.events oom_kill: MemoryMax= was hit
  uint64_t tasks_max_hits = 0;     // pids.events max: a fork failed at TasksMax=
};

// The report of the cgroup `cgroup` ("/system.slice/x.service") under
// `root` ("" = the real /sys/fs/cgroup): one "file key value" line per
// figure, e.g. "cpu.stat user_usec 1200". Files the kernel lacks are left
// out. On a hybrid host the memory and pids figures live in the v1
// hierarchies: `v1` maps a controller ("memory", "pids") to the unit's path
// there (from /proc/self/cgroup), and what v2 lacks is read from them.
Result<std::string> meter_report(const std::string& root, const std::string& cgroup,
                                 const std::map<std::string, std::string>& v1 = {});
// Parses a report; an error when it has no cpu.stat figures.
Result<MeterReading> parse_meter_report(const std::string& text);

// The report of this process's own cgroup (from /proc/self/cgroup).
Result<std::string> own_meter_report();

// benchbox-meter's whole job: the report of this process's own cgroup
// (from /proc/self/cgroup), written to `out` atomically (mode 0644, in a
// directory only runnerd may read).
Status write_meter_report(const std::string& out);

}  // namespace bb::exec
