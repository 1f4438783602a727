#include "exec/gate.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "exec/fd_message.h"
#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::exec {

namespace {

constexpr size_t kMaxCounters = 16;
static_assert(kMaxCounters <= kMaxPassedFds);

struct Report {
  uint64_t start_ns;
  uint32_t count;
  int32_t opened[kMaxCounters];  // 1: its fd travels (in order); < 0: -errno
  int32_t pin_errno;             // --pin failed with this errno: nothing was run
};

constexpr char kGo = 'g';

// Sends the report (and the counters' fds) on fd 0.
bool send_report(Report& report, const std::vector<int>& fds) {
  return send_with_fds(0, &report, sizeof report, fds) == static_cast<ssize_t>(sizeof report);
}

// --pin: waits for runnerd's go, then pins. 0, or the errno of the pin;
// -1 when runnerd closed the socket instead (it gave up on the command).
int wait_and_pin(const std::string& pin_cpus) {
  char go = 0;
  ssize_t n;
  do n = ::recv(0, &go, 1, 0);
  while (n < 0 && errno == EINTR);
  if (n != 1 || go != kGo) return -1;
  auto cpus = parse_cpu_list(pin_cpus);
  if (!cpus || cpus->empty()) return EINVAL;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : *cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    CPU_SET(cpu, &set);
  }
  return ::sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

}  // namespace

std::string gate_counter_list(const std::vector<std::string>& counters) {
  std::string out;
  for (const auto& c : counters) out += (out.empty() ? "" : ",") + c;
  return out.empty() ? "-" : out;
}

Result<GateReceipt> receive_gate_report(int socket, const std::vector<std::string>& counters,
                                        std::chrono::milliseconds timeout) {
  struct pollfd p {socket, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, static_cast<int>(timeout.count()));
  while (r < 0 && errno == EINTR);
  if (r == 0) return make_error(Errc::timeout, "the gate did not report within " + std::to_string(timeout.count()) + " ms");
  if (r < 0) return errno_error("wait for the gate", errno);
  Report report{};
  FdDatagram d = receive_with_fds(socket, &report, sizeof report);
  const ssize_t n = d.size;
  if (n < 0) return errno_error("read the gate's report", errno);
  std::vector<int> fds;
  for (auto& fd : d.fds) fds.push_back(fd.release());
  auto close_all = [&] {
    for (int fd : fds) ::close(fd);
  };
  if (n == static_cast<ssize_t>(sizeof report) && report.pin_errno != 0) {
    close_all();
    return errno_error("the gate could not pin itself to its CPUs", report.pin_errno);
  }
  if (n != static_cast<ssize_t>(sizeof report) || report.count != counters.size() || report.count > kMaxCounters) {
    close_all();
    return make_error(Errc::parse, n == 0 ? "the gate exited without a report (it could not start the command)"
                                          : "the gate's report is malformed");
  }
  std::vector<int> opened;
  size_t next = 0;
  for (uint32_t i = 0; i < report.count; ++i) {
    if (report.opened[i] >= 0 && next < fds.size()) opened.push_back(fds[next++]);
    else opened.push_back(report.opened[i] < 0 ? report.opened[i] : -EBADF);
  }
  for (; next < fds.size(); ++next) ::close(fds[next]);  // more than announced: not ours to keep
  GateReceipt receipt;
  receipt.start_ns = report.start_ns;
  receipt.counters = adopt_counters(counters, opened);
  return receipt;
}

Status send_gate_go(int socket) {
  ssize_t n;
  do n = ::send(socket, &kGo, 1, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n != 1) return errno_error("tell the gate to go", n < 0 ? errno : EPIPE);
  return {};
}

int run_gate(const std::string& counters_csv, char* const* argv, const std::string& pin_cpus) {
  std::vector<std::string> names;
  if (counters_csv != "-")
    for (const auto& n : split(counters_csv, ','))
      if (!n.empty()) names.push_back(n);
  if (names.size() > kMaxCounters) {
    std::fprintf(stderr, "benchbox-meter: at most %zu counters\n", kMaxCounters);
    return 2;
  }
  // Before anything is counted or timed: the wait for admission and the pin.
  if (!pin_cpus.empty()) {
    const int pinned = wait_and_pin(pin_cpus);
    if (pinned < 0) return 126;  // runnerd gave up: do not run
    if (pinned > 0) {
      Report refused{};
      refused.count = static_cast<uint32_t>(names.size());
      refused.pin_errno = pinned;
      std::fprintf(stderr, "benchbox-meter: pin to CPUs %s: %s\n", pin_cpus.c_str(), std::strerror(pinned));
      send_report(refused, {});
      return 125;
    }
  }
  const std::vector<int> opened = open_own_counters(names);
  Report report{};
  report.count = static_cast<uint32_t>(names.size());
  std::vector<int> fds;
  for (size_t i = 0; i < opened.size(); ++i) {
    report.opened[i] = opened[i] >= 0 ? 1 : opened[i];
    if (opened[i] >= 0) fds.push_back(opened[i]);
  }
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) return 127;
  struct timespec now {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  report.start_ns = uint64_t(now.tv_sec) * 1000000000ull + uint64_t(now.tv_nsec);
  if (!send_report(report, fds)) return 126;  // runnerd is not listening: do not run
  // The counters stay attached to this process through runnerd's copies;
  // the job gets none of the fds, and not the socket either.
  for (int fd : fds) ::close(fd);
  if (::dup2(devnull, 0) < 0) return 127;
  ::execv(argv[0], argv);
  std::fprintf(stderr, "benchbox-meter: exec %s: %s\n", argv[0], std::strerror(errno));
  return 127;
}

}  // namespace bb::exec
