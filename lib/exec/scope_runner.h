// ScopeRunner: runs each command in its own transient systemd scope,
// benchbox-job-<id>-<n>.scope in benchbox-bench.slice, so `systemctl status`
// shows what is running, `systemctl stop` ends it, and a timeout or cancel
// stops everything the command started, even processes that left its
// process group.
//
// How (the order matters): the command is forked by a PinnedChildRunner and
// waits at a gate; the parent pins it with sched_setaffinity, asks PID 1 for
// the scope with org.freedesktop.systemd1.Manager.StartTransientUnit
// (PIDs=[child], Slice=, Delegate=no, AllowedCPUs= where the cgroup-v2
// cpuset controller exists), waits for the job's JobRemoved, and only then
// releases the child, which pins itself again (from inside the scope, where
// a v2 cpuset now allows the CPUs) and execs. On timeout or cancel it calls
// StopUnit (SIGTERM to the scope) and, after the grace period, KillUnit
// with SIGKILL; afterwards it makes sure the scope is gone.
//
// Output is captured and passed to Command::on_line exactly as by the
// pinned child; runnerd's on_line sends each line to the journal with
// JOB_ID=, so `journalctl JOB_ID=12` shows one job's whole run.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "exec/bench_cpuset.h"
#include "exec/command_runner.h"

namespace bb::exec {

// Where AllowedCPUs= on a scope or slice is enforced: pure cgroup v2 with
// the cpuset controller available at the root. On a hybrid/v1 host systemd
// accepts the setting but no controller applies it. `root` is "/" except in
// tests.
bool cgroup2_cpuset_available(const std::string& root = "/");

struct ScopeOptions {
  std::string slice = "benchbox-bench.slice";
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};
  // How long PID 1 may take to create (or stop) a scope.
  std::chrono::milliseconds systemd_timeout{std::chrono::seconds(30)};
  bool allowed_cpus = false;    // also set AllowedCPUs= (see cgroup2_cpuset_available)
  std::string root;             // where /proc and /sys/fs/cgroup are read ("" = the real ones)
  // cgroup-v1 shielding (bench_cpuset.h): where it applies the child is
  // not pinned before the scope, it is admitted once in the scope, and it
  // pins itself after its gate.
  BenchAdmission bench;
};

class ScopeRunner final : public CommandRunner {
 public:
  explicit ScopeRunner(ScopeOptions options) : options_(std::move(options)) {}

  // Command::unit_name names the scope; empty means
  // "benchbox-run-<pid>-<n>.scope". It must be a valid unit name ending in
  // ".scope". Outcome::isolation reads
  // "scope:<slice>/<unit>;affinity:<cpus>" or, with AllowedCPUs=,
  // "scope:<slice>/<unit>;allowed-cpus+affinity:<cpus>" (or
  // ";cpuset:benchbox-bench+affinity:<cpus>" when admitted, v1).
  Result<Outcome> run(const Command& command, const std::atomic<bool>* cancel) override;
  std::string describe() const override;

 private:
  ScopeOptions options_;
  unsigned counter_ = 0;
};

// The runner benchbox-runnerd uses: a ScopeRunner when systemd is PID 1
// (sd_booted() > 0) and the system bus answers, else a PinnedChildRunner.
// `why` says which and why, for the daemon to log, e.g. "transient scopes
// in benchbox-bench.slice (AllowedCPUs= not enforced: no cgroup-v2 cpuset
// controller; pinning with sched_setaffinity)" or "systemd is not PID 1:
// falls back to the plain pinned child".
//
// With `contained` (runnerd's rules), a SupervisedRunner
// (supervised_runner.h: the transient service of service_runner.h, one per
// job) instead of the scope where its user and benchbox-meter exist: every
// command then runs as that user, sandboxed and bounded.
struct ServiceOptions;
struct RunnerChoice {
  std::unique_ptr<CommandRunner> runner;
  bool scopes = false;
  bool contained = false;  // the transient service as its own user
  std::string why;
  std::string why_not_contained;  // when !contained: why not, briefly
};
RunnerChoice make_benchmark_runner(const ScopeOptions& options = {}, const ServiceOptions* contained = nullptr);

}  // namespace bb::exec
