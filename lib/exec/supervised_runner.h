// SupervisedRunner: the contained runner with one unit per job, not per
// command. The unit is the transient service ServiceRunner would start
// (service_runner.h: the same user, sandbox, network, bounds and CPUs),
// but its ExecStart= is the job's supervisor (benchbox-meter --supervise,
// supervisor.h), to which every command of the job is then sent. PID 1
// sets the sandbox up once: a command then costs a fork in a running unit.
//
// A job's commands share a unit where everything the unit fixes is the
// same (CPUs and whether they are admitted, network, bounds, the writable
// directory, ASLR); a command that differs gets a unit of its own. The
// units are named after the command that started them
// (benchbox-job-<id>-<n>.service) and end with the job: when a command of
// another job comes, at end_job(), or when runnerd goes (the supervisor
// sees its socket close, kills what runs and exits; PID 1 then kills the
// rest of the cgroup).
//
// What changes against a unit per command: wall time runs from the gate's
// exec to the supervisor's wait4; CPU time, context switches and the
// memory peak come from wait4's rusage (the tree waited for; peak is the
// largest process, ru_maxrss); a bound hit is read from the unit's cgroup
// events, before and after the command, by the supervisor. What a command
// leaves running is killed when it ends, as before.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "exec/command_runner.h"
#include "exec/service_runner.h"
#include "util/fd.h"

namespace bb::exec {

class SupervisedRunner final : public CommandRunner {
 public:
  explicit SupervisedRunner(ServiceOptions options) : options_(std::move(options)) {}
  ~SupervisedRunner() override { end_job(); }

  Result<Outcome> run(const Command& command, const std::atomic<bool>* cancel) override;
  std::string describe() const override;
  void end_job() override;

 private:
  struct Unit {
    std::string name;
    UniqueFd control;
  };
  Result<Unit*> unit_for(const Command& c, const std::string& key, const std::string& name, bool admit,
                         bool set_allowed);
  // Closes the units' sockets and waits for PID 1 to have stopped them.
  void stop_units(std::vector<std::string> names);
  void stop_unit(const std::string& key);

  ServiceOptions options_;
  std::string job_;                     // the unit names' "benchbox-job-<id>-" of the units below
  std::map<std::string, Unit> units_;  // by what the unit fixes
  unsigned counter_ = 0;
};

}  // namespace bb::exec
