#include "exec/service_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <optional>

#include "exec/gate.h"
#include "exec/job_sandbox.h"
#include "exec/meter.h"
#include "exec/output_capture.h"
#include "exec/pinned_runner.h"
#include "exec/systemd_manager.h"
#include "util/cpu_list.h"
#include "util/file.h"

namespace bb::exec {

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kUnit = "org.freedesktop.systemd1.Unit";
constexpr const char* kService = "org.freedesktop.systemd1.Service";
constexpr auto kDrainLimit = std::chrono::seconds(2);
// How often the unit's state is asked for when no signal woke us.
constexpr auto kStatePoll = std::chrono::milliseconds(100);

std::string machine_name() {
  struct utsname u {};
  return ::uname(&u) == 0 ? u.machine : "x86_64";
}

}  // namespace

std::string ServiceRunner::describe() const {
  return "service:" + options_.slice + " as " + options_.user +
         (options_.allowed_cpus ? " (AllowedCPUs= and CPUAffinity=" : " (CPUAffinity=") + options_.bench.describe() +
         ")";
}

std::string contained_limit_hit(const Command& c, const Outcome& o, bool oom_killed, bool tasks_max_hit) {
  if (oom_killed)
    return "memory: reached MemoryMax=" + std::to_string(c.limits.memory_max_bytes) +
           " bytes (runner.memory_max_bytes); the kernel's OOM killer stopped it";
  if (tasks_max_hit)
    return "tasks: reached TasksMax=" + std::to_string(c.limits.tasks_max) + " (runner.tasks_max); a fork or thread failed";
  if ((o.term_signal == SIGXFSZ || o.exit_code == 128 + SIGXFSZ) && c.limits.file_size_max_bytes > 0)
    return "file size: a file reached " + std::to_string(c.limits.file_size_max_bytes) +
           " bytes (runner.file_size_max_bytes)";
  return "";
}

Result<ContainedProgram> contained_program(const Command& c) {
  auto env_map = base_environment();
  for (const auto& [k, v] : c.env) env_map[k] = v;
  auto argv = exec_argv(c, env_map);
  if (!argv) return argv.error();
  ContainedProgram p;
  p.argv = std::move(*argv);
  // setarch -R: the whole tree at fixed addresses (callgrind), as the
  // pinned child does with personality(2).
  if (c.no_aslr) p.argv.insert(p.argv.begin(), {"/usr/bin/setarch", machine_name(), "-R"});
  for (const auto& [k, v] : env_map) p.env.push_back(k + "=" + v);
  return p;
}

int append_contained_unit(sd_bus_message* m, const Command& c, const ServiceOptions& o, bool admit, bool set_allowed) {
  const uint64_t stop_usec = static_cast<uint64_t>(o.kill_grace.count()) * 1000;
  int r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)", "Slice", "s", o.slice.c_str(), "Type", "s", "exec", "User",
                                "s", o.user.c_str(), "Group", "s", o.group.c_str(), "UMask", "u", uint32_t(0007));
  if (r >= 0)
    r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)(sv)", "CollectMode", "s", "inactive-or-failed",
                              "TimeoutStopUSec", "t", stop_usec, "SendSIGKILL", "b", 1, "CPUAccounting", "b", 1,
                              "MemoryAccounting", "b", 1, "TasksAccounting", "b", 1);
  // The sandbox: nothing of the box but the job's own directory to write.
  if (r >= 0) r = append_job_sandbox(m, c);
  if (r >= 0 && !c.writable_dir.empty()) r = append_strv_property(m, "ReadWritePaths", {c.writable_dir});
  const auto mask = cpu_mask_bytes(c.cpus);
  if (r >= 0 && !c.cpus.empty() && !admit) r = append_bytes_property(m, "CPUAffinity", mask);
  if (r >= 0 && set_allowed) r = append_bytes_property(m, "AllowedCPUs", mask);
  if (r >= 0 && c.limits.memory_max_bytes > 0)
    r = sd_bus_message_append(m, "(sv)(sv)", "MemoryMax", "t", c.limits.memory_max_bytes, "MemorySwapMax", "t",
                              uint64_t(0));
  if (r >= 0 && c.limits.tasks_max > 0) r = sd_bus_message_append(m, "(sv)", "TasksMax", "t", c.limits.tasks_max);
  if (r >= 0 && c.limits.file_size_max_bytes > 0)
    r = sd_bus_message_append(m, "(sv)(sv)", "LimitFSIZE", "t", c.limits.file_size_max_bytes, "LimitFSIZESoft", "t",
                              c.limits.file_size_max_bytes);
  return r;
}

Result<Outcome> ServiceRunner::run(const Command& c, const std::atomic<bool>* cancel) {
  std::string unit = c.unit_name;
  if (unit.empty()) unit = "benchbox-run-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_) + ".service";
  if (unit.size() > 6 && unit.compare(unit.size() - 6, 6, ".scope") == 0) unit = unit.substr(0, unit.size() - 6) + ".service";
  if (!valid_unit_name(unit, "service"))
    return make_error(Errc::invalid_argument, "'" + unit + "' is not a valid service unit name");
  for (int cpu : c.cpus)
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return make_error(Errc::invalid_argument, "CPU " + std::to_string(cpu) + " is out of range");
  if (options_.meter_program.empty() || options_.meter_dir.empty())
    return make_error(Errc::invalid_argument, "the service runner needs benchbox-meter and a directory for it");

  auto systemd = SystemdManager::connect(options_.systemd_timeout);
  if (!systemd) return systemd.error().with_context("connect to systemd");
  if (auto st = systemd->subscribe(); !st) return st.error();

  int p_out[2], p_err[2];
  if (::pipe2(p_out, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd out_r(p_out[0]), out_w(p_out[1]);
  if (::pipe2(p_err, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd err_r(p_err[0]), err_w(p_err[1]);
  // The gate's report comes back on its stdin (gate.h).
  int p_gate[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p_gate) < 0) return errno_error("socketpair", errno);
  UniqueFd gate_ours(p_gate[0]), gate_theirs(p_gate[1]);

  const std::string meter_file = path_join(options_.meter_dir, unit + ".meter");
  ::unlink(meter_file.c_str());
  auto program = contained_program(c);
  if (!program) return program.error();
  std::vector<std::string> argv = std::move(program->argv);
  // v1 shielding applied: the gate waits to be admitted, then pins itself.
  const bool admit = options_.bench.applies(c.cpus);
  if (admit) argv.insert(argv.begin(), {"--pin", format_cpu_list(c.cpus), "--"});
  else argv.insert(argv.begin(), "--");
  argv.insert(argv.begin(), {options_.meter_program, "--gate", gate_counter_list(c.counters)});
  const std::vector<std::string>& env = program->env;
  const bool set_allowed = options_.allowed_cpus && !c.cpus.empty() && !admit;
  const std::vector<std::string> privileged = {"privileged"};
  const std::string description = "benchbox: " + c.display().substr(0, 80);

  Status started = systemd->start_transient(unit, [&](sd_bus_message* m) {
    int r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)", "Description", "s", description.c_str(),
                                  "StandardInputFileDescriptor", "h", gate_theirs.get(), "StandardOutputFileDescriptor",
                                  "h", out_w.get(), "StandardErrorFileDescriptor", "h", err_w.get(), "AddRef", "b", 1);
    if (r >= 0) r = append_contained_unit(m, c, options_, admit, set_allowed);
    if (r >= 0 && !c.cwd.empty()) r = sd_bus_message_append(m, "(sv)", "WorkingDirectory", "s", c.cwd.c_str());
    if (r >= 0) r = append_strv_property(m, "Environment", env);
    if (r >= 0) r = append_exec_property(m, "ExecStart", argv, nullptr);
    if (r >= 0) r = append_exec_property(m, "ExecStopPostEx", {options_.meter_program, meter_file}, &privileged);
    return r;
  });
  if (!started) {
    ::unlink(meter_file.c_str());
    return started.error();
  }
  out_w.reset();
  err_w.reset();
  gate_theirs.reset();
  auto path = systemd->unit_path(unit);
  if (!path) return path.error();
  // Woken by the unit's own signals; the state is read once more right
  // away, so a command that ended before the match existed is seen too.
  if (auto st = systemd->watch_properties(*path); !st) return st.error();

  if (admit) {
    // Type=exec: the start job ended once the gate was exec'd, so MainPID
    // is the gate, waiting for its go before it does anything.
    auto pid = systemd->u32_property(*path, kService, "MainPID");
    Status admitted = pid ? (*pid > 1 ? options_.bench.admit(static_cast<pid_t>(*pid))
                                      : Status(make_error(Errc::unavailable, "the unit has no main process")))
                          : Status(pid.error());
    if (admitted) admitted = send_gate_go(gate_ours.get());
    if (!admitted) {
      (void)systemd->stop_unit(unit, true);
      ::unlink(meter_file.c_str());
      return admitted.error().with_context(unit + ": admit it to the benchmark cpuset");
    }
  }
  // Before the command's first instruction: the start of its clock and
  // its counters. Without them it must not be measured.
  auto gate = receive_gate_report(gate_ours.get(), c.counters, options_.systemd_timeout);
  gate_ours.reset();
  if (!gate) {
    (void)systemd->stop_unit(unit, true);
    ::unlink(meter_file.c_str());
    return gate.error().with_context(unit + (admit ? " (CPUs " + format_cpu_list(c.cpus) + ")" : ""));
  }

  Outcome outcome;
  Stream streams[2];
  open_streams(streams, std::move(out_r), std::move(err_r), outcome);
  OutputSink sink(c, outcome);

  const auto start = Clock::now();
  const bool has_timeout = c.timeout.count() > 0;
  const auto deadline = start + c.timeout;
  std::optional<Clock::time_point> term_sent, kill_sent;
  auto last_check = Clock::time_point{};
  for (;;) {
    auto now = Clock::now();
    if (now - last_check >= kStatePoll || last_check == Clock::time_point{}) {
      auto state = systemd->string_property(*path, kUnit, "ActiveState");
      if (!state) return state.error().with_context(unit);
      if (*state == "inactive" || *state == "failed") break;
      last_check = now;
    }
    if (cancel && cancel->load() && !term_sent) outcome.cancelled = true;
    if (has_timeout && now >= deadline && !term_sent && !outcome.cancelled) {
      outcome.timed_out = true;
      outcome.timeout_seconds = std::chrono::duration<double>(c.timeout).count();
    }
    if ((outcome.cancelled || outcome.timed_out) && !term_sent) {
      (void)systemd->stop_unit(unit, false);  // SIGTERM, SIGKILL after TimeoutStopUSec
      term_sent = now;
    }
    if (term_sent && !kill_sent && now >= *term_sent + options_.kill_grace) {
      (void)systemd->kill_unit(unit, SIGKILL);
      kill_sent = now;
    }
    if (kill_sent && now >= *kill_sent + options_.systemd_timeout)
      return make_error(Errc::timeout, unit + " is still running after SIGKILL");

    auto wake = now + kStatePoll;
    if (has_timeout && !term_sent) wake = std::min(wake, deadline);
    if (term_sent && !kill_sent) wake = std::min(wake, *term_sent + options_.kill_grace);
    int timeout_ms = static_cast<int>(std::max<int64_t>(
        0, std::chrono::ceil<std::chrono::milliseconds>(wake - now).count()));
    if (cancel && !term_sent) timeout_ms = std::min(timeout_ms, 50);
    struct pollfd fds[3];
    int n = 0, index_of[2] = {-1, -1};
    for (int i = 0; i < 2; ++i)
      if (streams[i].fd.valid()) {
        index_of[i] = n;
        fds[n++] = {streams[i].fd.get(), POLLIN, 0};
      }
    const int bus_index = n;
    fds[n++] = {systemd->fd(), POLLIN, 0};
    if (::poll(fds, static_cast<nfds_t>(n), timeout_ms) < 0 && errno != EINTR)
      return errno_error("poll " + unit, errno);
    for (int i = 0; i < 2; ++i)
      if (index_of[i] >= 0 && (fds[index_of[i]].revents & (POLLIN | POLLHUP | POLLERR)))
        read_some(streams[i], sink);
    if (fds[bus_index].revents) {
      if (auto st = systemd->process(); !st) return st.error();
      last_check = Clock::time_point{};  // a signal: look at the state now
    }
  }
  drain(streams, sink, kDrainLimit);

  // PID 1's record of the main process, and the meter's of the cgroup.
  auto code = systemd->i32_property(*path, kService, "ExecMainCode");
  auto status = systemd->i32_property(*path, kService, "ExecMainStatus");
  auto began = systemd->u64_property(*path, kService, "ExecMainStartTimestampMonotonic");
  auto ended = systemd->u64_property(*path, kService, "ExecMainExitTimestampMonotonic");
  auto result = systemd->string_property(*path, kService, "Result");
  (void)systemd->unref(*path);
  if (!code || !status || !began || !ended || !result)
    return make_error(Errc::unavailable, unit + ": systemd did not say how it ended");
  if (*began == 0) return make_error(Errc::unavailable, unit + " never started (Result=" + *result + ")");
  if (*code == 1) outcome.exit_code = *status;  // CLD_EXITED
  else outcome.term_signal = *status;           // CLD_KILLED, CLD_DUMPED
  outcome.core_dumped = *code == 3;             // CLD_DUMPED
  // From the gate's exec to PID 1's record of the exit: both CLOCK_MONOTONIC.
  const uint64_t ended_ns = *ended * 1000;
  outcome.wall_seconds = double(ended_ns - std::min(ended_ns, gate->start_ns)) / 1e9;

  auto report = read_file(meter_file, 64 * 1024);
  ::unlink(meter_file.c_str());
  if (!report) return report.error().with_context(unit + ": no report from benchbox-meter");
  auto meter = parse_meter_report(*report);
  if (!meter) return meter.error().with_context(unit);
  outcome.user_seconds = double(meter->user_usec) / 1e6;
  outcome.system_seconds = double(meter->system_usec) / 1e6;
  if (meter->memory_peak) {
    outcome.peak_memory_bytes = static_cast<int64_t>(*meter->memory_peak);
    outcome.memory_source = "cgroup memory.peak";
  }
  outcome.limit_hit = contained_limit_hit(c, outcome, *result == "oom-kill" || meter->oom_kills > 0,
                                          meter->tasks_max_hits > 0);
  outcome.switches_measured = false;
  outcome.switches_unavailable = "not measured in a contained launch (PID 1 forks the command; no rusage reaches runnerd)";
  outcome.counters = gate->counters->read();
  outcome.isolation = "service:" + options_.slice + "/" + unit + ";user:" + options_.user +
                      cpu_isolation(c.cpus, admit, set_allowed);
  return outcome;
}

}  // namespace bb::exec
