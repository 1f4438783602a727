// PinnedChildRunner: runs a command as a forked child in its own process
// group, pinned with sched_setaffinity to the benchmark CPUs before exec, so
// even the shell's first instruction runs on those CPUs. Used where there is
// no systemd as PID 1 (development, CI, this container) and as the fallback
// of the scope runner.
//
// Guarantees: a clean environment (PATH, HOME, LANG plus Command::env);
// stdin is /dev/null; stdout/stderr are read with poll() and passed line by
// line to Command::on_line; capture is capped at Command::max_output_bytes;
// user/system time come from wait4()'s rusage; on timeout or cancel the
// whole process group gets SIGTERM, then SIGKILL after the grace period;
// when the shell exits, whatever it left in its process group is killed, so
// nothing outlives a command and no child is left unreaped.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>

#include "exec/command_runner.h"
#include "exec/counters.h"

namespace bb::exec {

// What a wrapping runner (ScopeRunner, scope_runner.h) does between fork()
// and exec, and how it stops the command. Empty members keep the plain
// behaviour. Both run on the thread that called run().
struct ChildHooks {
  // Runs in the parent while the forked child waits at a gate, before it
  // pins itself and execs. An error (or exception) kills the child and is
  // what run() returns.
  std::function<Status(pid_t child)> before_exec;
  // Replaces killpg(child, signal) for the SIGTERM on timeout or cancel and
  // the SIGKILL after the grace period.
  std::function<void(pid_t child, int signal)> stop;
  // Runs once the shell has exited, before it is reaped and before what it
  // left in its group is killed: the last moment its cgroup surely exists.
  // May refine the outcome (ScopeRunner reads the scope's memory.peak).
  std::function<void(pid_t child, Outcome& outcome)> after_exit;
};

class PinnedChildRunner final : public CommandRunner {
 public:
  // `counters` reads Command::counters (default: perf_event_open).
  explicit PinnedChildRunner(std::chrono::milliseconds kill_grace = std::chrono::seconds(5),
                             ChildHooks hooks = {}, CounterSource* counters = nullptr)
      : kill_grace_(kill_grace), hooks_(std::move(hooks)), counters_(counters ? counters : &perf_counters()) {}

  Result<Outcome> run(const Command& command, const std::atomic<bool>* cancel) override;
  std::string describe() const override { return "affinity"; }

 private:
  std::chrono::milliseconds kill_grace_;
  ChildHooks hooks_;
  CounterSource* counters_;
};

// The environment a command starts with before Command::env is added.
std::map<std::string, std::string> base_environment();

}  // namespace bb::exec
