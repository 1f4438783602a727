// The job's supervisor: benchbox-meter --supervise, one process that runs
// a job's commands inside one contained unit, so PID 1 sets up the sandbox
// once per job rather than once per command (a sandboxed unit's start and
// stop cost ~55 ms here, a fork in a running one ~2 ms; bench/runner).
//
// runnerd talks to it over one SOCK_SEQPACKET socket, its stdin from PID 1:
//   runnerd -> supervisor: {"op":"run","argv":[...],"env":[...],"cwd":...,
//     "counters":"instructions,cycles"|"-","pin":"3"|""} with three fds
//     (SCM_RIGHTS): the command's gate socket, its stdout and its stderr;
//     {"op":"signal","signal":15}: to the running command's whole tree.
//   supervisor -> runnerd: {"event":"started","pid":N};
//     {"event":"exited","code":C,"status":S,"end_ns":...,"user_usec":...,
//     "system_usec":...,"maxrss_kb":...,"nvcsw":...,"nivcsw":...,
//     "leftovers":K, "oom_kills":N, "tasks_max_hits":N}: the last two
//     from the unit's cgroup events, where it has them;
//     {"event":"error","message":...}.
// One command at a time. The child becomes the gate (gate.h) in-process:
// it reports its clock and counters on the gate socket before it execs,
// and with "pin" it first waits for runnerd's go (v1 shielding admits its
// pid, which the "started" event names).
//
// Why the supervisor does not weaken containment: it runs as the job's
// user inside the job's sandbox, so it holds nothing the job lacks. It is
// not dumpable (PR_SET_DUMPABLE 0): the job cannot ptrace it or take its
// fds through /proc, so it cannot speak for it on runnerd's socket, which
// no command inherits. The job can kill it (same uid): runnerd then sees
// the socket close and fails that job alone. When a command's main
// process exits, every process it left is killed: the supervisor is their
// subreaper (PR_SET_CHILD_SUBREAPER), so whatever a command started, also
// with double forks and new sessions, is its descendant until killed.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/command_runner.h"
#include "util/fd.h"
#include "util/result.h"

namespace bb::exec {

// Serves runnerd on `control` until it closes the socket, then kills what
// is left and returns the exit status (0, or 1 when the socket failed).
int run_supervisor(int control);

struct SupervisedOptions {
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};  // SIGTERM -> SIGKILL
  std::chrono::milliseconds reply_timeout{std::chrono::seconds(30)};
  std::string pin_cpus;  // v1 shielding: the command waits for admission, then pins itself
  // Admits the command's pid to the benchmark cpuset (with pin_cpus).
  std::function<Status(pid_t)> admit;
};

// Runs `c` through the supervisor on `control`: argv and env are what the
// command execs with (exec_argv, KEY=VALUE). Output is captured as the
// other runners do; timeout and cancel send SIGTERM, then SIGKILL after
// the grace. An error when it could not be started or the supervisor is
// gone; then the caller must not use `control` again.
Result<Outcome> run_supervised(int control, const Command& c, const std::vector<std::string>& argv,
                               const std::vector<std::string>& env, const SupervisedOptions& options,
                               const std::atomic<bool>* cancel);

}  // namespace bb::exec
