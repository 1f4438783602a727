#include "exec/pinned_runner.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <grp.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/personality.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "exec/output_capture.h"
#include "util/cpu_list.h"
#include "util/fd.h"

namespace bb::exec {

namespace {

using SteadyClock = std::chrono::steady_clock;

// What the child reports through the status pipe when it cannot exec.
struct ChildFailure {
  int stage;  // 1 = affinity, 2 = chdir, 3 = exec, 4 = personality, 5 = identity, 6 = network namespace, 7 = loopback, 8 = rlimits, 9 = bench cpuset
  int err;
};

// How long to wait for the pipes to reach EOF once the process group is
// dead; only a process that escaped the group (setsid) can hold them longer.
constexpr auto kDrainLimit = std::chrono::seconds(2);

double seconds_of(const struct timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

// In a fresh network namespace "lo" exists but is down. Raw syscalls only:
// this runs in the forked child.
bool bring_loopback_up() {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  struct ifreq ifr {};
  std::memcpy(ifr.ifr_name, "lo", 3);
  bool ok = ::ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
  if (ok) {
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
    ok = ::ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

// The child side of fork(): only async-signal-safe calls from here to exec,
// because the parent may have other threads (the daemon's main loop).
[[noreturn]] void exec_child(const Command& c, const cpu_set_t& cpus, int cpuset_fd, int devnull, int out, int err,
                             int status_fd, int gate_r, int gate_w, char* const* argv,
                             char* const* envp) {
  auto fail = [status_fd](int stage) {
    ChildFailure f{stage, errno};
    ssize_t ignored = ::write(status_fd, &f, sizeof f);
    (void)ignored;
    ::_exit(127);
  };
  ::setpgid(0, 0);
  // A network of its own, before the gate so that making the namespace is
  // not counted in the command's time.
  if (c.network != Command::Network::full) {
    if (::unshare(CLONE_NEWNET) < 0) fail(6);
    if (c.network == Command::Network::loopback && !bring_loopback_up()) fail(7);
  }
  // With a before_exec hook, wait until the parent has done its part (moved
  // us into a scope); EOF means it gave up, and we must not run.
  if (gate_r >= 0) {
    ::close(gate_w);
    char go = 0;
    ssize_t n;
    do n = ::read(gate_r, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(126);
  }
  // Into the bench cpuset first ("0": the writer itself), where tunerd's
  // v1 shielding keeps the benchmark CPUs: from the housekeeping cpuset
  // this process inherited, pinning to them fails (EINVAL).
  if (cpuset_fd >= 0 && ::write(cpuset_fd, "0", 1) != 1) fail(9);
  if (!c.cpus.empty() && ::sched_setaffinity(0, sizeof cpus, &cpus) < 0) fail(1);
  // The job's own identity, before chdir so the work tree is reached with
  // the job's rights. No new privileges: no setuid binary (sudo, su) and no
  // file capability gives any of it back.
  // Per-job bounds an rlimit can carry: RLIMIT_NPROC counts the processes
  // of the real uid, which only with an identity of its own is the job's.
  auto bound = [&](int resource, uint64_t value) {
    struct rlimit lim{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
    if (value > 0 && ::setrlimit(resource, &lim) < 0) fail(8);
  };
  bound(RLIMIT_FSIZE, c.limits.file_size_max_bytes);
  if (c.identity) bound(RLIMIT_NPROC, c.limits.tasks_max);
  if (c.identity) {
    const Identity& id = *c.identity;
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || ::setgroups(0, nullptr) < 0 ||
        ::setresgid(id.gid, id.gid, id.gid) < 0 || ::setresuid(id.uid, id.uid, id.uid) < 0)
      fail(5);
  }
  if (!c.cwd.empty() && ::chdir(c.cwd.c_str()) < 0) fail(2);
  if (::dup2(devnull, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) fail(3);
  // Nothing else of the daemon's leaks into the command (sd-bus sockets,
  // the journal, other jobs' pipes); the status pipe closes on exec.
  ::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Inherited across exec and fork: the whole tree runs at fixed addresses.
  if (c.no_aslr && ::personality(ADDR_NO_RANDOMIZE) < 0) fail(4);
  ::execve(argv[0], argv, envp);
  fail(3);
  ::_exit(127);
}

Error child_failure_error(const ChildFailure& f, const Command& c) {
  switch (f.stage) {
    case 1: return errno_error("pin to CPUs " + format_cpu_list(c.cpus), f.err);
    case 2: return errno_error("change to directory " + c.cwd, f.err);
    case 4: return errno_error("turn address space randomisation off (personality)", f.err);
    case 5: return errno_error("become uid " + std::to_string(c.identity ? c.identity->uid : 0), f.err);
    case 6: return errno_error("make a network namespace of its own (unshare)", f.err);
    case 7: return errno_error("bring up loopback in its network namespace", f.err);
    case 8: return errno_error("set its resource limits", f.err);
    case 9: return errno_error(std::string("join the benchmark cpuset (") + kBenchCpusetTasks + ")", f.err);
    default: return errno_error("exec " + (c.argv.empty() ? std::string("/bin/sh") : c.argv[0]), f.err);
  }
}

}  // namespace

std::map<std::string, std::string> base_environment() {
  const char* home = std::getenv("HOME");
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"HOME", home && *home ? home : "/"},
          {"LANG", "C.UTF-8"}};
}

Result<Outcome> PinnedChildRunner::run(const Command& c, const std::atomic<bool>* cancel) {
  Outcome outcome;
  outcome.isolation = c.cpus.empty() ? "none" : "affinity:" + format_cpu_list(c.cpus);

  // Everything the child needs is built before fork().
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : c.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return make_error(Errc::invalid_argument, "CPU " + std::to_string(cpu) + " is out of range");
    CPU_SET(cpu, &cpus);
  }
  auto env_map = base_environment();
  for (const auto& [k, v] : c.env) env_map[k] = v;
  auto args = exec_argv(c, env_map);
  if (!args) return args.error();
  std::vector<char*> argv;
  for (auto& a : *args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  int p_out[2], p_err[2], p_status[2];
  if (::pipe2(p_out, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd out_r(p_out[0]), out_w(p_out[1]);
  if (::pipe2(p_err, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd err_r(p_err[0]), err_w(p_err[1]);
  if (::pipe2(p_status, O_CLOEXEC) < 0) return errno_error("pipe", errno);
  UniqueFd status_r(p_status[0]), status_w(p_status[1]);
  UniqueFd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull.valid()) return errno_error("open /dev/null", errno);
  UniqueFd gate_r, gate_w;
  // The child waits at a gate while the parent sets it up: the wrapping
  // runner's hook, and counters that must be open before it execs.
  const bool gated = hooks_.before_exec || !c.counters.empty() || c.network != Command::Network::full;
  if (gated) {
    int p_gate[2];
    if (::pipe2(p_gate, O_CLOEXEC) < 0) return errno_error("pipe", errno);
    gate_r.reset(p_gate[0]);
    gate_w.reset(p_gate[1]);
  }

  // Where tunerd shielded a cgroup-v1 host, the bench cpuset: opened here,
  // as only async-signal-safe calls may follow fork(). Absent (no v1
  // shielding) or not ours to write (runnerd not root): the child stays
  // where it is.
  UniqueFd cpuset;
  if (!c.cpus.empty()) cpuset.reset(::open(kBenchCpusetTasks, O_WRONLY | O_CLOEXEC));

  auto start = SteadyClock::now();
  pid_t pid = ::fork();
  if (pid < 0) return errno_error("fork", errno);
  if (pid == 0)
    exec_child(c, cpus, cpuset.get(), devnull.get(), out_w.get(), err_w.get(), status_w.get(), gate_r.get(),
               gate_w.get(), argv.data(), envp.data());
  cpuset.reset();

  // Both sides call setpgid so a kill right after fork() reaches the group.
  ::setpgid(pid, pid);
  out_w.reset();
  err_w.reset();
  status_w.reset();

  std::unique_ptr<CounterSet> counter_set;
  if (gated) {
    gate_r.reset();
    Status ready;
    if (hooks_.before_exec) {
      ready = make_error(Errc::internal, "before_exec hook threw");
      try {
        ready = hooks_.before_exec(pid);
      } catch (...) {
      }
    }
    if (ready && !c.counters.empty()) counter_set = counters_->open(pid, c.counters);
    if (!ready) {
      ::kill(pid, SIGKILL);
      int st;
      while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
      return ready.error();
    }
    // The clock starts when the command is released, so the hook's work
    // (a D-Bus round trip to PID 1) is not counted as the command's time.
    start = SteadyClock::now();
    const char go = 1;
    while (::write(gate_w.get(), &go, 1) < 0 && errno == EINTR) {}
    gate_w.reset();
  }
  auto signal_group = [this, pid](int sig) {
    if (!hooks_.stop) {
      ::killpg(pid, sig);
      return;
    }
    try {
      hooks_.stop(pid, sig);
    } catch (...) {
      ::killpg(pid, sig);
    }
  };

  ChildFailure failure{};
  ssize_t got;
  do got = ::read(status_r.get(), &failure, sizeof failure);
  while (got < 0 && errno == EINTR);
  if (got == sizeof failure) {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return child_failure_error(failure, c);
  }

  // A pidfd makes poll() wake the moment the child exits, so wall time is
  // not rounded up to a polling tick. Linux >= 5.3; otherwise tick at 10 ms.
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));

  Stream streams[2];
  open_streams(streams, std::move(out_r), std::move(err_r), outcome);
  OutputSink sink(c, outcome);

  const bool has_timeout = c.timeout.count() > 0;
  const auto deadline = start + c.timeout;
  std::optional<SteadyClock::time_point> term_sent;
  bool kill_sent = false;
  SteadyClock::time_point end;

  auto leader_exited = [pid] {
    siginfo_t info{};
    // WNOWAIT: the zombie keeps its pid (= the process group id) reserved
    // until we have killed what is left of the group.
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
  };

  for (;;) {
    if (leader_exited()) {
      end = SteadyClock::now();
      break;
    }
    auto now = SteadyClock::now();
    if (cancel && cancel->load() && !term_sent) {
      outcome.cancelled = true;
      signal_group(SIGTERM);
      term_sent = now;
    }
    if (has_timeout && now >= deadline && !term_sent) {
      outcome.timed_out = true;
      outcome.timeout_seconds = std::chrono::duration<double>(c.timeout).count();
      signal_group(SIGTERM);
      term_sent = now;
    }
    if (term_sent && !kill_sent && now >= *term_sent + kill_grace_) {
      signal_group(SIGKILL);
      kill_sent = true;
    }

    // Sleep until output, the child's exit, or the next thing to check.
    auto wake = SteadyClock::time_point::max();
    if (has_timeout && !term_sent) wake = std::min(wake, deadline);
    if (term_sent && !kill_sent) wake = std::min(wake, *term_sent + kill_grace_);
    if (cancel && !term_sent) wake = std::min(wake, now + std::chrono::milliseconds(50));
    if (!pidfd.valid()) wake = std::min(wake, now + std::chrono::milliseconds(10));
    int timeout_ms = -1;
    if (wake != SteadyClock::time_point::max()) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
      timeout_ms = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(ms, 60000)));
    }
    struct pollfd fds[3];
    int n = 0;
    int index_of[2] = {-1, -1};
    for (int i = 0; i < 2; ++i)
      if (streams[i].fd.valid()) {
        index_of[i] = n;
        fds[n++] = {streams[i].fd.get(), POLLIN, 0};
      }
    if (pidfd.valid()) fds[n++] = {pidfd.get(), POLLIN, 0};
    int r = ::poll(fds, static_cast<nfds_t>(n), timeout_ms);
    if (r < 0 && errno != EINTR) break;  // cannot happen with valid fds; reap below
    for (int i = 0; i < 2; ++i)
      if (index_of[i] >= 0 && (fds[index_of[i]].revents & (POLLIN | POLLHUP | POLLERR)))
        read_some(streams[i], sink);
  }

  if (hooks_.after_exit) hooks_.after_exit(pid, outcome);
  // The shell is gone: anything it left in its group goes too, then reap.
  ::killpg(pid, SIGKILL);
  // With an identity of its own, also whatever left the group (setsid, a
  // daemon it started): nothing of a job outlives its command.
  if (c.identity) (void)kill_all_of(*c.identity);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
  if (end == SteadyClock::time_point{}) end = SteadyClock::now();

  drain(streams, sink, kDrainLimit);

  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    outcome.term_signal = WTERMSIG(status);
    outcome.core_dumped = WCOREDUMP(status);
  }
  outcome.wall_seconds = std::chrono::duration<double>(end - start).count();
  // The shell reports a child killed by SIGXFSZ as 128 + 25.
  if ((outcome.term_signal == SIGXFSZ || (WIFEXITED(status) && outcome.exit_code == 128 + SIGXFSZ)) &&
      c.limits.file_size_max_bytes > 0)
    outcome.limit_hit = "file size: a file reached " + std::to_string(c.limits.file_size_max_bytes) +
                        " bytes (runner.file_size_max_bytes)";
  outcome.user_seconds = seconds_of(usage.ru_utime);
  outcome.system_seconds = seconds_of(usage.ru_stime);
  if (counter_set) outcome.counters = counter_set->read();
  outcome.voluntary_switches = usage.ru_nvcsw;
  outcome.involuntary_switches = usage.ru_nivcsw;
  if (outcome.memory_source.empty()) {
    outcome.peak_memory_bytes = int64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
    outcome.memory_source = "ru_maxrss";
  }
  return outcome;
}

}  // namespace bb::exec
