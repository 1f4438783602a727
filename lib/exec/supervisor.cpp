// The supervisor's side of supervisor.h: benchbox-meter --supervise.
#include "exec/supervisor.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "exec/gate.h"
#include "exec/meter.h"
#include "exec/supervisor_wire.h"

namespace bb::exec {

namespace {

using nlohmann::json;

uint64_t monotonic_ns() {
  struct timespec now {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
}

// The unit's bound events so far (meter.h), where the cgroup has them.
std::optional<MeterReading> bound_events() {
  auto report = own_meter_report();
  if (!report) return std::nullopt;
  auto reading = parse_meter_report(*report);
  if (!reading) return std::nullopt;
  return *reading;
}

// The running command: its main process, the leader of its own session,
// and the unit's bound events when it started.
struct Running {
  pid_t pid = 0;
  bool have_events = false;
  uint64_t oom_kills = 0, tasks_max_hits = 0;
};

// In the child: becomes the gate of `request` (gate.h) with the three fds
// it came with, and never returns.
[[noreturn]] void become_command(const json& request, std::vector<UniqueFd>& fds) {
  ::setsid();  // a process group of its own, for signals to the whole command
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int i = 0; i < 3; ++i) {
    if (fds[i].get() == i) ::fcntl(i, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
    else if (::dup2(fds[i].get(), i) < 0) ::_exit(127);
  }
  std::vector<std::string> argv_s = request.value("argv", std::vector<std::string>{});
  std::vector<std::string> env_s = request.value("env", std::vector<std::string>{});
  const std::string cwd = request.value("cwd", std::string());
  if (!cwd.empty() && ::chdir(cwd.c_str()) < 0) {
    std::fprintf(stderr, "benchbox-meter: chdir %s: %s\n", cwd.c_str(), std::strerror(errno));
    ::_exit(126);
  }
  std::vector<char*> argv, env;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  environ = env.data();
  ::_exit(run_gate(request.value("counters", std::string("-")), argv.data(), request.value("pin", std::string())));
}

// The pids whose parent is this process, from /proc (ProtectProc=invisible
// shows the job's own user's processes, which are all there can be).
std::vector<pid_t> own_children() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    char path[300], buf[512];
    std::snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    // "pid (comm) state ppid ...": comm may hold anything, so from the last ')'.
    const char* close = std::strrchr(buf, ')');
    char state = 0;
    int ppid = 0;
    if (close && std::sscanf(close + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
      out.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  ::closedir(d);
  return out;
}

// Everything a command left running: as subreaper, each orphan of it
// becomes this process's child; killed and reaped round by round until
// none is left (a killed process's own children come to us next round).
// How many were killed; -1 when some still ran after 5 s (a fork race).
int64_t kill_leftovers() {
  int64_t killed = 0;
  const uint64_t give_up = monotonic_ns() + 5'000'000'000ull;
  for (;;) {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
    auto children = own_children();
    if (children.empty()) return killed;
    if (monotonic_ns() > give_up) return -1;
    for (pid_t p : children)
      if (::kill(p, SIGKILL) == 0) ++killed;
    for (pid_t p : children) ::waitpid(p, nullptr, 0);
  }
}

json exit_event(int status, const struct rusage& ru, int64_t leftovers) {
  int code = CLD_EXITED, value = 0;
  if (WIFEXITED(status)) value = WEXITSTATUS(status);
  else {
    code = WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
    value = WTERMSIG(status);
  }
  auto usec = [](const struct timeval& t) { return uint64_t(t.tv_sec) * 1000000ull + uint64_t(t.tv_usec); };
  return {{"event", "exited"},           {"code", code},
          {"status", value},             {"end_ns", 0},
          {"user_usec", usec(ru.ru_utime)}, {"system_usec", usec(ru.ru_stime)},
          {"maxrss_kb", ru.ru_maxrss},   {"nvcsw", ru.ru_nvcsw},
          {"nivcsw", ru.ru_nivcsw},      {"leftovers", leftovers}};
}

json error_event(const std::string& message) { return {{"event", "error"}, {"message", message}}; }

class Supervisor {
 public:
  Supervisor(int control, int sigfd) : control_(control), sigfd_(sigfd) {}

  // One message from runnerd; false when it closed the socket.
  bool on_message() {
    auto in = wire::receive(control_);
    if (!in) return reply(error_event(in.error().message));
    if (in->closed) return false;
    const std::string op = in->message.value("op", std::string());
    if (op == "signal") {
      const int sig = in->message.value("signal", 0);
      if (running_.pid > 0 && (sig == SIGTERM || sig == SIGKILL)) {
        ::kill(-running_.pid, sig);
        ::kill(running_.pid, sig);
      }
      return true;
    }
    if (op != "run") return reply(error_event("unknown request '" + op + "'"));
    if (running_.pid > 0) return reply(error_event("a command is already running"));
    if (in->fds.size() != 3 || !in->message.contains("argv") || !in->message["argv"].is_array() ||
        in->message["argv"].empty())
      return reply(error_event("a run request needs argv and three fds (gate, stdout, stderr)"));
    const pid_t pid = ::fork();
    if (pid < 0) return reply(error_event(std::string("fork: ") + std::strerror(errno)));
    if (pid == 0) {
      ::close(control_);
      ::close(sigfd_);
      become_command(in->message, in->fds);
    }
    running_.pid = pid;
    if (auto events = bound_events()) {
      running_.have_events = true;
      running_.oom_kills = events->oom_kills;
      running_.tasks_max_hits = events->tasks_max_hits;
    }
    return reply({{"event", "started"}, {"pid", pid}});
  }

  // SIGCHLD: the command's main process, if it ended, and the orphans.
  bool on_child() {
    struct signalfd_siginfo info;
    while (::read(sigfd_, &info, sizeof info) == sizeof info) {}
    if (running_.pid <= 0) {
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {}
      return true;
    }
    // Looked at, not reaped yet: while it is a zombie its pid is not
    // reused, so the signal to its process group reaches only its own.
    siginfo_t ended;
    std::memset(&ended, 0, sizeof ended);
    if (::waitid(P_PID, static_cast<id_t>(running_.pid), &ended, WEXITED | WNOHANG | WNOWAIT) < 0 ||
        ended.si_pid != running_.pid) {
      reap_others();
      return true;
    }
    const uint64_t end = monotonic_ns();
    ::kill(-running_.pid, SIGKILL);  // its process group, before anything else of it runs on
    int status = 0;
    struct rusage ru {};
    ::wait4(running_.pid, &status, 0, &ru);
    const Running before = running_;
    running_ = {};
    const int64_t leftovers = kill_leftovers();
    // Something of the command outran the kills: only the unit's end (PID 1
    // kills its whole cgroup) stops it, and runnerd must not go on before.
    if (leftovers < 0) return false;
    json event = exit_event(status, ru, leftovers);
    event["end_ns"] = end;
    // A bound the unit's cgroup counted while the command ran was the command's.
    if (auto after = bound_events(); after && before.have_events) {
      event["oom_kills"] = after->oom_kills - before.oom_kills;
      event["tasks_max_hits"] = after->tasks_max_hits - before.tasks_max_hits;
    }
    return reply(event);
  }

  // Runnerd is gone: nothing of the job may go on.
  void finish() {
    if (running_.pid > 0) {
      ::kill(-running_.pid, SIGKILL);
      ::kill(running_.pid, SIGKILL);
    }
    kill_leftovers();
  }

 private:
  // Zombies other than the command's main process (orphans it left).
  void reap_others() {
    siginfo_t info;
    for (;;) {
      std::memset(&info, 0, sizeof info);
      if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == 0) return;
      if (info.si_pid == running_.pid) return;  // the main process: on_child's wait4 takes it
      ::waitpid(info.si_pid, nullptr, 0);
    }
  }

  bool reply(const json& event) { return static_cast<bool>(wire::send(control_, event)); }

  int control_;
  int sigfd_;
  Running running_;
};

}  // namespace

int run_supervisor(int control_in) {
  // Not ptrace-able, no /proc/<pid>/fd for the job: runnerd's socket stays ours.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  const int control = ::fcntl(control_in, F_DUPFD_CLOEXEC, 3);
  if (control < 0) return 1;
  ::close(control_in);
  if (control_in == 0) {
    const int devnull = ::open("/dev/null", O_RDONLY);  // fd 0 again, without the socket
    if (devnull > 0) ::close(devnull);
  }
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  const int sigfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd < 0) return 1;
  Supervisor s(control, sigfd);
  int status = 0;
  for (;;) {
    struct pollfd fds[2] = {{control, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      status = 1;
      break;
    }
    // Exits first: a command's end is reported before its next request.
    if (fds[1].revents && !s.on_child()) {
      status = 1;
      break;
    }
    if (fds[0].revents && !s.on_message()) break;
  }
  s.finish();
  ::close(sigfd);
  ::close(control);
  return status;
}

}  // namespace bb::exec
