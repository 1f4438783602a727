#include "exec/supervised_runner.h"

#include <sys/socket.h>

#include "exec/supervisor.h"
#include "exec/systemd_manager.h"
#include "util/cpu_list.h"

namespace bb::exec {

namespace {

// "benchbox-job-12-" of "benchbox-job-12-3.scope": the job a command is of.
std::string job_of(const std::string& unit_name) {
  const auto dash = unit_name.rfind('-');
  return dash == std::string::npos ? unit_name : unit_name.substr(0, dash + 1);
}

// Everything a unit fixes for the commands it runs.
std::string unit_key(const Command& c, bool admit, bool set_allowed) {
  return format_cpu_list(c.cpus) + (admit ? "+admit" : "") + (set_allowed ? "+allowed" : "") + "|" +
         std::to_string(static_cast<int>(c.network)) + "|" + std::to_string(c.limits.memory_max_bytes) + "," +
         std::to_string(c.limits.tasks_max) + "," + std::to_string(c.limits.file_size_max_bytes) + "|" +
         (c.no_aslr ? "no-aslr" : "aslr") + "|" + c.writable_dir;
}

}  // namespace

// The same words as ServiceRunner's: this is part of every result's
// environment key, and the same containment measured the same way must
// not start every trend afresh at the upgrade (the start of wall time is
// the gate's exec in both; its end is the main process's exit, seen by
// PID 1 there and by the supervisor's wait4 here).
std::string SupervisedRunner::describe() const { return ServiceRunner(options_).describe(); }

// Closing runnerd's end is the supervisor's signal to kill what is left
// and exit. The stop is awaited too: the job's next attempt may name a
// unit the same, and nothing of this job may run on into the next.
void SupervisedRunner::stop_units(std::vector<std::string> names) {
  if (names.empty()) return;
  auto systemd = SystemdManager::connect(options_.systemd_timeout);
  if (!systemd) return;  // PID 1 stops the units when their supervisor exits
  if (auto st = systemd->subscribe(); !st) return;
  for (const auto& name : names) (void)systemd->stop_unit(name, true);
}

void SupervisedRunner::stop_unit(const std::string& key) {
  auto it = units_.find(key);
  if (it == units_.end()) return;
  const std::string name = it->second.name;
  units_.erase(it);
  stop_units({name});
}

void SupervisedRunner::end_job() {
  job_.clear();
  std::vector<std::string> names;
  for (const auto& [key, unit] : units_) names.push_back(unit.name);
  units_.clear();
  stop_units(std::move(names));
}

Result<SupervisedRunner::Unit*> SupervisedRunner::unit_for(const Command& c, const std::string& key,
                                                           const std::string& name, bool admit, bool set_allowed) {
  if (auto it = units_.find(key); it != units_.end()) return &it->second;
  auto systemd = SystemdManager::connect(options_.systemd_timeout);
  if (!systemd) return systemd.error().with_context("connect to systemd");
  int sp[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return errno_error("socketpair", errno);
  UniqueFd ours(sp[0]), theirs(sp[1]);
  const std::string description = "benchbox: the supervisor of " + name.substr(0, name.size() - 8);
  const std::vector<std::string> argv = {options_.meter_program, "--supervise"};
  Status started = systemd->start_transient(name, [&](sd_bus_message* m) {
    int r = sd_bus_message_append(m, "(sv)(sv)", "Description", "s", description.c_str(),
                                  "StandardInputFileDescriptor", "h", theirs.get());
    if (r >= 0) r = append_contained_unit(m, c, options_, admit, set_allowed);
    if (r >= 0) r = append_exec_property(m, "ExecStart", argv, nullptr);
    return r;
  });
  if (!started) return started.error().with_context("start the job's supervisor " + name);
  auto [it, inserted] = units_.emplace(key, Unit{name, std::move(ours)});
  (void)inserted;
  return &it->second;
}

Result<Outcome> SupervisedRunner::run(const Command& c, const std::atomic<bool>* cancel) {
  std::string name = c.unit_name;
  if (name.empty()) name = "benchbox-run-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_) + ".scope";
  const std::string job = job_of(name);
  if (name.size() > 6 && name.compare(name.size() - 6, 6, ".scope") == 0) name = name.substr(0, name.size() - 6);
  if (name.size() < 8 || name.compare(name.size() - 8, 8, ".service") != 0) name += ".service";
  if (!valid_unit_name(name, "service"))
    return make_error(Errc::invalid_argument, "'" + name + "' is not a valid service unit name");
  for (int cpu : c.cpus)
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return make_error(Errc::invalid_argument, "CPU " + std::to_string(cpu) + " is out of range");
  if (options_.meter_program.empty())
    return make_error(Errc::invalid_argument, "the supervised runner needs benchbox-meter");
  if (job != job_) {
    end_job();
    job_ = job;
  }
  auto program = contained_program(c);
  if (!program) return program.error();

  // v1 shielding applied: the command waits to be admitted, then pins itself.
  const bool admit = options_.bench.applies(c.cpus);
  const bool set_allowed = options_.allowed_cpus && !c.cpus.empty() && !admit;
  const std::string key = unit_key(c, admit, set_allowed);
  auto unit = unit_for(c, key, name, admit, set_allowed);
  if (!unit) return unit.error();

  SupervisedOptions so;
  so.kill_grace = options_.kill_grace;
  so.reply_timeout = options_.systemd_timeout;
  if (admit) {
    so.pin_cpus = format_cpu_list(c.cpus);
    so.admit = options_.bench.admit;
  }
  const std::string unit_name = (*unit)->name;
  auto outcome = run_supervised((*unit)->control.get(), c, program->argv, program->env, so, cancel);
  // The supervisor is in an unknown state after an error, or gone: its
  // unit is stopped, and nothing of it runs once this returns. The next
  // command gets a new unit.
  if (!outcome) {
    stop_unit(key);
    return outcome.error().with_context(unit_name);
  }
  outcome->isolation =
      "service:" + options_.slice + "/" + unit_name + ";user:" + options_.user + cpu_isolation(c.cpus, admit, set_allowed);
  return outcome;
}

}  // namespace bb::exec
