// runnerd's side of supervisor.h: one command through a job's supervisor.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>

#include "exec/gate.h"
#include "exec/output_capture.h"
#include "exec/service_runner.h"
#include "exec/supervisor.h"
#include "exec/supervisor_wire.h"

namespace bb::exec {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
constexpr auto kSupervisedDrain = std::chrono::seconds(2);

Error gone(const std::string& what) {
  return make_error(Errc::unavailable, "the job's supervisor is gone (" + what + ")");
}

// The next event, within `timeout`; an error event is an error.
Result<json> next_event(int control, std::chrono::milliseconds timeout) {
  struct pollfd p {control, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, static_cast<int>(timeout.count()));
  while (r < 0 && errno == EINTR);
  if (r == 0) return make_error(Errc::timeout, "the job's supervisor did not answer within " +
                                                   std::to_string(timeout.count()) + " ms");
  if (r < 0) return errno_error("wait for the job's supervisor", errno);
  auto in = wire::receive(control);
  if (!in) return in.error();
  if (in->closed) return gone("its socket closed");
  if (in->message.value("event", std::string()) == "error")
    return make_error(Errc::io, "the job's supervisor: " + in->message.value("message", std::string("no reason")));
  return std::move(in->message);
}

Status send_signal(int control, int sig) { return wire::send(control, json{{"op", "signal"}, {"signal", sig}}); }

// The command could not be started: it is killed (if it runs at all) and
// its end awaited, so the supervisor is ready for the next.
Error abandon(int control, Error why, std::chrono::milliseconds timeout) {
  if (send_signal(control, SIGKILL))
    for (;;) {
      auto e = next_event(control, timeout);
      if (!e || e->value("event", std::string()) == "exited") break;
    }
  return why;
}

void fill_exit(const json& e, uint64_t start_ns, Outcome& o) {
  const int code = e.value("code", CLD_EXITED);
  const int status = e.value("status", 0);
  if (code == CLD_EXITED) o.exit_code = status;
  else o.term_signal = status;
  o.core_dumped = code == CLD_DUMPED;
  const uint64_t end_ns = e.value("end_ns", uint64_t(0));
  o.wall_seconds = double(end_ns - std::min(end_ns, start_ns)) / 1e9;
  o.user_seconds = double(e.value("user_usec", uint64_t(0))) / 1e6;
  o.system_seconds = double(e.value("system_usec", uint64_t(0))) / 1e6;
  o.voluntary_switches = e.value("nvcsw", int64_t(0));
  o.involuntary_switches = e.value("nivcsw", int64_t(0));
  o.peak_memory_bytes = e.value("maxrss_kb", int64_t(0)) * 1024;  // Linux reports KiB
  o.memory_source = "ru_maxrss";
}

// The unit's bounds, from the cgroup events the supervisor counted over the command.
void fill_bounds(const json& e, const Command& c, Outcome& o) {
  const bool oom = e.value("oom_kills", uint64_t(0)) > 0;
  o.limit_hit = contained_limit_hit(c, o, oom, e.value("tasks_max_hits", uint64_t(0)) > 0);
  if (oom && o.term_signal == SIGKILL) o.killed_by = "the kernel's OOM killer";
}

}  // namespace

Result<Outcome> run_supervised(int control, const Command& c, const std::vector<std::string>& argv,
                               const std::vector<std::string>& env, const SupervisedOptions& options,
                               const std::atomic<bool>* cancel) {
  int p_out[2], p_err[2], p_gate[2];
  if (::pipe2(p_out, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd out_r(p_out[0]), out_w(p_out[1]);
  if (::pipe2(p_err, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd err_r(p_err[0]), err_w(p_err[1]);
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p_gate) < 0) return errno_error("socketpair", errno);
  UniqueFd gate_ours(p_gate[0]), gate_theirs(p_gate[1]);

  json request = {{"op", "run"},   {"argv", argv}, {"env", env}, {"cwd", c.cwd},
                  {"counters", gate_counter_list(c.counters)}, {"pin", options.pin_cpus}};
  if (auto st = wire::send(control, request, {gate_theirs.get(), out_w.get(), err_w.get()}); !st) return st.error();
  gate_theirs.reset();
  out_w.reset();
  err_w.reset();
  auto started = next_event(control, options.reply_timeout);
  if (!started) return started.error();
  const pid_t pid = started->value("pid", 0);
  if (started->value("event", std::string()) != "started" || pid <= 0)
    return abandon(control, make_error(Errc::parse, "the job's supervisor did not say it started the command"),
                   options.reply_timeout);

  if (!options.pin_cpus.empty()) {
    Status admitted = options.admit ? options.admit(pid)
                                    : Status(make_error(Errc::invalid_argument, "no way to admit it to the CPUs"));
    if (admitted) admitted = send_gate_go(gate_ours.get());
    if (!admitted)
      return abandon(control, admitted.error().with_context("admit it to the benchmark cpuset"), options.reply_timeout);
  }
  // Before the command's first instruction: the start of its clock and
  // its counters. Without them it must not be measured.
  auto gate = receive_gate_report(gate_ours.get(), c.counters, options.reply_timeout);
  gate_ours.reset();
  if (!gate) return abandon(control, gate.error(), options.reply_timeout);

  Outcome outcome;
  Stream streams[2];
  open_streams(streams, std::move(out_r), std::move(err_r), outcome);
  OutputSink sink(c, outcome);

  const auto start = Clock::now();
  const bool has_timeout = c.timeout.count() > 0;
  const auto deadline = start + c.timeout;
  std::optional<Clock::time_point> term_sent, kill_sent;
  std::optional<json> exited;
  while (!exited) {
    const auto now = Clock::now();
    if (cancel && cancel->load() && !term_sent) outcome.cancelled = true;
    if (has_timeout && now >= deadline && !term_sent && !outcome.cancelled) {
      outcome.timed_out = true;
      outcome.timeout_seconds = std::chrono::duration<double>(c.timeout).count();
    }
    if ((outcome.cancelled || outcome.timed_out) && !term_sent) {
      if (auto st = send_signal(control, SIGTERM); !st) return st.error();
      term_sent = now;
    }
    if (term_sent && !kill_sent && now >= *term_sent + options.kill_grace) {
      if (auto st = send_signal(control, SIGKILL); !st) return st.error();
      kill_sent = now;
    }
    if (kill_sent && now >= *kill_sent + options.reply_timeout)
      return make_error(Errc::timeout, "the command is still running after SIGKILL");
    auto wake = now + std::chrono::seconds(1);
    if (has_timeout && !term_sent) wake = std::min(wake, deadline);
    if (term_sent && !kill_sent) wake = std::min(wake, *term_sent + options.kill_grace);
    int timeout_ms = static_cast<int>(
        std::max<int64_t>(0, std::chrono::ceil<std::chrono::milliseconds>(wake - now).count()));
    if (cancel && !term_sent) timeout_ms = std::min(timeout_ms, 50);
    struct pollfd fds[3];
    int n = 0, index_of[2] = {-1, -1};
    for (int i = 0; i < 2; ++i)
      if (streams[i].fd.valid()) {
        index_of[i] = n;
        fds[n++] = {streams[i].fd.get(), POLLIN, 0};
      }
    const int control_index = n;
    fds[n++] = {control, POLLIN, 0};
    if (::poll(fds, static_cast<nfds_t>(n), timeout_ms) < 0 && errno != EINTR) return errno_error("poll", errno);
    for (int i = 0; i < 2; ++i)
      if (index_of[i] >= 0 && (fds[index_of[i]].revents & (POLLIN | POLLHUP | POLLERR))) read_some(streams[i], sink);
    if (fds[control_index].revents) {
      auto e = next_event(control, std::chrono::milliseconds(0));
      if (!e) return e.error();
      if (e->value("event", std::string()) == "exited") exited = std::move(*e);
    }
  }
  drain(streams, sink, kSupervisedDrain);
  fill_exit(*exited, gate->start_ns, outcome);
  fill_bounds(*exited, c, outcome);
  outcome.counters = gate->counters->read();
  return outcome;
}

}  // namespace bb::exec
