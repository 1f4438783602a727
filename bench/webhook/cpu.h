// Where a phase's CPU time went: this process (the load generator, and the
// trivial baseline server's thread), each child process by name (queued,
// webhookd; the bus daemon forks away from us and shows only in the
// machine's idle time), and the machine's idle time. On two shared cores
// a throughput ratio alone cannot say whether the daemons or the generator
// were the limit; this can.
#pragma once

#include <map>
#include <string>

namespace bb::bench {

struct CpuSnapshot {
  std::map<std::string, double> seconds;  // "bench" (this process) and each child's comm
  double idle = 0;                        // the machine's idle seconds, all CPUs
  static CpuSnapshot take();
};

// One line: each process's CPU time between two snapshots in microseconds
// per delivery, and the machine's idle share over `wall` seconds.
std::string cpu_per_delivery(const CpuSnapshot& before, const CpuSnapshot& after, size_t deliveries, double wall);

}  // namespace bb::bench
