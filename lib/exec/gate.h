// The contained command's gate: benchbox-meter --gate COUNTERS -- ARGV is
// the unit's ExecStart=. PID 1 forks it as the job's user inside the
// sandbox; it opens the counters on itself (counting from its exec, every
// child included), reads CLOCK_MONOTONIC, sends both to runnerd over the
// socket that is its stdin (the counters' fds with SCM_RIGHTS), puts
// /dev/null on stdin and execs ARGV. Nothing of the job has run yet when it
// reports, so the report is trustworthy; afterwards the job holds neither
// the socket nor the counters' fds. Wall time then starts after the
// sandbox was set up, as with the pinned child's gate, not at PID 1's fork.
//
// With --pin CPUS (a cgroup-v1 shielded host, tuning/bench_admission.h) the
// gate first waits for runnerd's "go" on the same socket: PID 1 forked it
// in the housekeeping cpuset, and tunerd must move it to the benchmark
// cpuset first. Then it pins itself to CPUS (what CPUAffinity= would have
// done) and goes on as above; if the pin fails it reports why and runs
// nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/counters.h"
#include "util/result.h"

namespace bb::exec {

struct GateReceipt {
  uint64_t start_ns = 0;                 // CLOCK_MONOTONIC just before the exec
  std::unique_ptr<CounterSet> counters;  // one per name asked for
};

// runnerd's side: the one report on `socket`, within `timeout`. A gate
// that could not pin itself is an error naming the CPUs and the reason.
Result<GateReceipt> receive_gate_report(int socket, const std::vector<std::string>& counters,
                                        std::chrono::milliseconds timeout);
// runnerd's side of --pin: the gate may go on (its process is admitted).
Status send_gate_go(int socket);

// benchbox-meter's side; returns only when it could not exec (exit status:
// 126 no runnerd, 125 the pin failed, 127 the exec failed). `pin_cpus`
// empty: no wait, no pin.
int run_gate(const std::string& counters_csv, char* const* argv, const std::string& pin_cpus = "");

// "instructions,cycles", or "-" for none: how the names travel in ExecStart=.
std::string gate_counter_list(const std::vector<std::string>& counters);

}  // namespace bb::exec
