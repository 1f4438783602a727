#include "exec/scope_runner.h"

#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <set>

#include "exec/cgroup_memory.h"
#include "exec/pinned_runner.h"
#include "exec/service_runner.h"
#include "exec/supervised_runner.h"
#include "exec/systemd_manager.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::exec {

namespace {

std::string short_command(const std::string& shell) {
  std::string s = shell.substr(0, 80);
  for (char& ch : s)
    if (ch == '\n' || ch == '\t') ch = ' ';
  return shell.size() > 80 ? s + "..." : s;
}

}  // namespace

bool cgroup2_cpuset_available(const std::string& root) {
  std::string base = root == "/" ? "" : root;
  auto controllers = read_file(base + "/sys/fs/cgroup/cgroup.controllers", 4096);
  if (!controllers) return false;
  for (const auto& word : split(trim(*controllers), ' '))
    if (word == "cpuset") return true;
  return false;
}

std::string ScopeRunner::describe() const {
  return "scope:" + options_.slice + (options_.allowed_cpus ? " (AllowedCPUs= and affinity" : " (affinity") +
         options_.bench.describe() + ")";
}

Result<Outcome> ScopeRunner::run(const Command& command, const std::atomic<bool>* cancel) {
  std::string unit = command.unit_name;
  if (unit.empty())
    unit = "benchbox-run-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_) + ".scope";
  if (!valid_unit_name(unit, "scope"))
    return make_error(Errc::invalid_argument, "'" + unit + "' is not a valid scope unit name");

  auto systemd = SystemdManager::connect(options_.systemd_timeout);
  if (!systemd) return systemd.error().with_context("connect to systemd");

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : command.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return make_error(Errc::invalid_argument, "CPU " + std::to_string(cpu) + " is out of range");
    CPU_SET(cpu, &cpus);
  }
  const auto mask = cpu_mask_bytes(command.cpus);
  // v1 shielding applied: admitted to the benchmark cpuset, then pinned.
  const bool admit = options_.bench.applies(command.cpus);
  const bool set_allowed = options_.allowed_cpus && !command.cpus.empty() && !admit;
  bool scope_started = false;
  std::optional<std::string> cgroup;

  ChildHooks hooks;
  hooks.before_exec = [&](pid_t child) -> Status {
    // Pinned before it joins the scope, so it never runs elsewhere. Under a
    // cgroup-v2 cpuset that excludes these CPUs (runnerd's own slice) the
    // kernel refuses; the child pins itself again inside the scope.
    if (!command.cpus.empty() && !admit && ::sched_setaffinity(child, sizeof cpus, &cpus) < 0 &&
        !(errno == EINVAL && set_allowed))
      return errno_error("pin to CPUs " + format_cpu_list(command.cpus), errno);
    const std::string description = "benchbox: " + short_command(command.display());
    const uint64_t stop_usec = static_cast<uint64_t>(options_.kill_grace.count()) * 1000;
    Status st = systemd->start_transient(unit, [&](sd_bus_message* m) {
      int r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)(sv)(sv)", "Description", "s", description.c_str(),
                                    "Slice", "s", options_.slice.c_str(), "PIDs", "au", 1,
                                    static_cast<uint32_t>(child), "Delegate", "b", 0, "CollectMode", "s",
                                    "inactive-or-failed", "TimeoutStopUSec", "t", stop_usec, "SendSIGKILL", "b", 1);
      if (r >= 0 && set_allowed) r = append_bytes_property(m, "AllowedCPUs", mask);
      return r;
    });
    if (st) {
      scope_started = true;
      cgroup = cgroup2_path_of(options_.root, child);  // PID 1 has moved it by now
      // In the scope now, so tunerd may move it; it pins itself after the gate.
      if (admit)
        if (Status admitted = options_.bench.admit(child); !admitted)
          return Status(admitted.error().with_context(unit + ": admit it to the benchmark cpuset"));
    }
    return st;
  };
  // The shell has exited and is not reaped yet: the scope and its cgroup
  // are still there to be asked for their peak.
  hooks.after_exit = [&](pid_t, Outcome& o) {
    if (!cgroup) return;
    if (auto peak = cgroup2_memory_peak(options_.root, *cgroup)) {
      o.peak_memory_bytes = *peak;
      o.memory_source = "cgroup memory.peak";
    }
    // The scope has no memory bound of its own: an OOM kill here is the
    // host's OOM killer, which the kernel counts in the scope's events.
    if (auto kills = cgroup2_oom_kills(options_.root, *cgroup); kills && *kills > 0)
      o.killed_by = "the kernel's OOM killer (the host ran out of memory; memory.events oom_kill " +
                    std::to_string(*kills) + ")";
  };
  // Stopping the scope reaches every process in it, including any that
  // left the process group; the process group is the fallback.
  hooks.stop = [&](pid_t child, int sig) {
    Status st = sig == SIGKILL ? systemd->kill_unit(unit, SIGKILL) : systemd->stop_unit(unit, false);
    if (!st) ::killpg(child, sig);
  };

  PinnedChildRunner pinned(options_.kill_grace, std::move(hooks));
  auto outcome = pinned.run(command, cancel);
  // Whatever happened, nothing of this command may outlive run(): stop the
  // scope if PID 1 still has it (a process that escaped the group keeps it
  // alive), and wait for that to finish.
  if (scope_started) {
    auto exists = systemd->unit_exists(unit);
    if (!exists || *exists) {
      Status st = systemd->stop_unit(unit, true);
      if (!st && outcome) return st.error().with_context("command finished, but its scope lingers");
    }
  }
  if (!outcome) return outcome;
  outcome->isolation = "scope:" + options_.slice + "/" + unit + cpu_isolation(command.cpus, admit, set_allowed);
  return outcome;
}

RunnerChoice make_benchmark_runner(const ScopeOptions& options, const ServiceOptions* contained) {
  RunnerChoice choice;
  auto fallback = [&](const std::string& reason) {
    choice.runner = std::make_unique<PinnedChildRunner>(options.kill_grace);
    choice.scopes = false;
    choice.why = reason + ": falls back to the plain pinned child (sched_setaffinity, process-group kill)";
    choice.why_not_contained = reason;
    return std::move(choice);
  };
  if (sd_booted() <= 0) return fallback("systemd is not PID 1");
  auto systemd = SystemdManager::connect(options.systemd_timeout);
  if (!systemd) return fallback("cannot reach systemd on the system bus (" + systemd.error().message + ")");
  auto version = systemd->version();
  if (!version) return fallback("systemd does not answer on the system bus (" + version.error().message + ")");

  const bool allowed_cpus = cgroup2_cpuset_available();
  const std::string cpus_note =
      allowed_cpus ? "AllowedCPUs= enforced by the cgroup-v2 cpuset controller, plus CPU affinity"
                   : "AllowedCPUs= not enforced here (no cgroup-v2 cpuset controller): pinning by CPU affinity";
  std::string not_contained;
  if (contained) {
    if (!::getpwnam(contained->user.c_str()))
      not_contained = "no user " + contained->user + " to run jobs as";
    else if (::access(contained->meter_program.c_str(), X_OK) < 0)
      not_contained = "no " + contained->meter_program;
    if (not_contained.empty()) {
      ServiceOptions chosen = *contained;
      chosen.allowed_cpus = allowed_cpus;
      choice.scopes = true;
      choice.contained = true;
      choice.why = "transient services in " + chosen.slice + " as " + chosen.user +
                   ", one per job, its supervisor running the commands (systemd " + *version + "); " +
                   cpus_note;
      choice.runner = std::make_unique<SupervisedRunner>(std::move(chosen));
      return choice;
    }
  }
  ScopeOptions chosen = options;
  chosen.allowed_cpus = allowed_cpus;
  choice.scopes = true;
  choice.why_not_contained = contained ? not_contained : "no contained runner was asked for";
  choice.why = "transient scopes in " + chosen.slice + " (systemd " + *version + "); " + cpus_note +
               (not_contained.empty() ? "" : "; jobs NOT contained: " + not_contained);
  choice.runner = std::make_unique<ScopeRunner>(std::move(chosen));
  return choice;
}

}  // namespace bb::exec
