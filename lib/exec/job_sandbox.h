// The sandbox of a job's transient service (service_runner.h): every
// property that keeps a repository's build and benchmark from the box,
// appended to a StartTransientUnit message. One list, so docs/systemd.md
// ("Containment") and the system test's `systemd-analyze security` of a
// job's unit read against one place.
//
// Left out, and why (docs/systemd.md says it for operators):
// - ProcSubset=pid hides /proc/cpuinfo, /proc/meminfo and /proc/stat, which
//   benchmark harnesses read to describe the machine (Google Benchmark's
//   context, pytest-benchmark's cpuinfo, psutil) and node's os.cpus()
//   reads to size its workers;
// - MemoryDenyWriteExecute= breaks every JIT (node, the JVM, PyPy, LuaJIT);
// - PrivateUsers= needs an unprivileged user namespace per command;
// - LockPersonality= stays off for commands run without ASLR (callgrind
//   mode's setarch -R changes the personality), on for the others.
#pragma once

#include <systemd/sd-bus.h>

#include "exec/command_runner.h"

namespace bb::exec {

// Appends the sandbox's (sv) entries for `c`: filesystem and kernel
// protection, no capabilities or new privileges, no namespaces, a system
// call allow list, private IPC and /dev/shm, the repository's network.
// Returns a negative errno as sd-bus does.
int append_job_sandbox(sd_bus_message* m, const Command& c);

}  // namespace bb::exec
