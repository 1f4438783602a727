// Peak memory of a transient scope from its cgroup-v2 memory.peak: every
// process of the command together, which ru_maxrss (one process, the
// largest) is not. Read through a root directory so tests use a fake tree.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace bb::exec {

// The cgroup-v2 path of `pid` ("/benchbox.slice/x.scope") from
// <root>/proc/<pid>/cgroup (its "0::" line), or nullopt.
std::optional<std::string> cgroup2_path_of(const std::string& root, pid_t pid);

// memory.peak (bytes) of the cgroup at `path`, under <root>/sys/fs/cgroup
// (a pure cgroup-v2 host) or <root>/sys/fs/cgroup/unified (a hybrid one),
// or nullopt where the kernel has none (before 5.19, or the memory
// controller not enabled for that cgroup).
std::optional<int64_t> cgroup2_memory_peak(const std::string& root, const std::string& path);

// memory.events' oom_kill of the cgroup at `path`, same layouts: how many
// of its processes any OOM killer (the cgroup's own limit or the host's)
// killed. The kernel's own record of who sent a SIGKILL; nullopt where it
// keeps none for this cgroup (no memory controller on the v2 tree).
std::optional<int64_t> cgroup2_oom_kills(const std::string& root, const std::string& path);

}  // namespace bb::exec
