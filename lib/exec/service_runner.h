// ServiceRunner: runs each command as a transient service,
// benchbox-job-<id>-<n>.service in benchbox-bench.slice, under a user that
// owns nothing (benchbox-job by default), so a repository's build and
// benchmark get none of runnerd's rights: not its bus rights, not its
// git cache, results or credentials (docs/systemd.md, "Containment").
//
// How: StartTransientUnit with Type=exec, User=/Group=, the sandbox
// (ProtectSystem=strict with the job's directory the one writable path,
// PrivateTmp=, ProtectHome=, PrivateDevices=, no capabilities, no new
// privileges, ProtectProc=invisible, ...), the repository's network
// (PrivateNetwork=; "none" also allows only AF_UNIX sockets), the per-job
// bounds (MemoryMax=, TasksMax=, LimitFSIZE=), CPUAffinity= (and
// AllowedCPUs= where a cgroup-v2 cpuset enforces it; on a cgroup-v1
// shielded host the gate is admitted to the benchmark cpuset and pins
// itself instead, bench_cpuset.h), stdin /dev/null, and
// stdout and stderr connected to our pipes (Standard*FileDescriptor=).
// AddRef=yes keeps the unit loaded until we have read it.
//
// The runner measures from outside: wall time is PID 1's own record of the
// main process (ExecMainStart/ExitTimestampMonotonic); CPU time, memory
// peak and limit events come from the unit's cgroup, written by
// benchbox-meter, the unit's privileged ExecStopPost=, which PID 1 runs
// once every process of the command is gone (meter.h). Counters and
// context switches need the process before it changes user, which PID 1
// forks: they are reported unavailable, with that reason.
#pragma once

#include <systemd/sd-bus.h>

#include <chrono>
#include <string>
#include <vector>

#include "exec/bench_cpuset.h"
#include "exec/command_runner.h"

namespace bb::exec {

struct ServiceOptions {
  std::string slice = "benchbox-bench.slice";
  std::string user = "benchbox-job";
  std::string group = "benchbox-job";
  std::chrono::milliseconds kill_grace{std::chrono::seconds(5)};
  std::chrono::milliseconds systemd_timeout{std::chrono::seconds(30)};
  bool allowed_cpus = false;  // also AllowedCPUs= (cgroup2_cpuset_available)
  std::string meter_program;  // benchbox-meter's absolute path
  std::string meter_dir;      // runnerd's own directory for the meter's reports
  // cgroup-v1 shielding: where it applies, no CPUAffinity=; the unit's
  // gate waits until its MainPID is admitted, then pins itself.
  BenchAdmission bench;
};

// What a contained command execs (exec_argv; under setarch -R without
// ASLR) and its whole environment, base_environment() and the command's.
struct ContainedProgram {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // KEY=VALUE
};
Result<ContainedProgram> contained_program(const Command& c);

// Outcome::limit_hit of a contained command: the unit's cgroup counted an
// OOM kill or a fork refused at TasksMax= while it ran, or it died of
// SIGXFSZ under LimitFSIZE=. "" when none.
std::string contained_limit_hit(const Command& c, const Outcome& o, bool oom_killed, bool tasks_max_hit);

// The properties of a contained unit that do not depend on what it runs:
// slice, Type=exec, user and group, the sandbox (job_sandbox.h), the job's
// directory, CPUs (CPUAffinity= unless `admit`, AllowedCPUs= with
// `set_allowed`) and the bounds. Returns a negative errno as sd-bus does.
int append_contained_unit(sd_bus_message* m, const Command& c, const ServiceOptions& o, bool admit, bool set_allowed);

class ServiceRunner final : public CommandRunner {
 public:
  explicit ServiceRunner(ServiceOptions options) : options_(std::move(options)) {}

  // Command::unit_name names the unit; it must end in ".service" (a
  // ".scope" name is turned into one). Outcome::isolation reads
  // "service:<slice>/<unit>;user:<user>;affinity:<cpus>" (or
  // ";cpuset:benchbox-bench+affinity:<cpus>" when admitted, v1).
  Result<Outcome> run(const Command& command, const std::atomic<bool>* cancel) override;
  std::string describe() const override;

  const ServiceOptions& options() const { return options_; }

 private:
  ServiceOptions options_;
  unsigned counter_ = 0;
};

}  // namespace bb::exec
