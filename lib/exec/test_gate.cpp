// The contained command's gate (gate.h), without systemd: a forked child
// with the socket as its stdin plays PID 1's part.
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <utility>

#include "exec/gate.h"
#include "util/fd.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

// Forks the gate with one end of a socket pair as stdin; returns its pid.
pid_t fork_gate(int theirs, int ours, const std::string& counters, std::vector<std::string> argv,
                const std::string& pin = "") {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ours);
    if (::dup2(theirs, 0) < 0) ::_exit(99);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::_exit(run_gate(counters, args.data(), pin));
  }
  return pid;
}

// runnerd's end and the gate's stdin, as the service runner makes them.
std::pair<UniqueFd, UniqueFd> gate_socket() {
  int sp[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
  return {UniqueFd(sp[0]), UniqueFd(sp[1])};
}

int wait_status(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

uint64_t now_ns() {
  struct timespec t {};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

}  // namespace

TEST_CASE("the gate reports its clock and its counters, then runs the command with stdin /dev/null") {
  auto [ours, theirs] = gate_socket();
  const uint64_t before = now_ns();
  const std::vector<std::string> counters = {"task-clock", "no-such-counter"};
  // The command proves stdin is no longer the socket: reading it gives EOF at once.
  pid_t pid = fork_gate(theirs.get(), ours.get(), gate_counter_list(counters),
                        {"/bin/sh", "-c", "read line; test -z \"$line\" && i=0 && while [ $i -lt 20000 ]; do i=$((i+1)); done"});
  theirs.reset();
  auto receipt = receive_gate_report(ours.get(), counters, 10s);
  REQUIRE(receipt);
  CHECK(receipt->start_ns >= before);
  CHECK(receipt->start_ns <= now_ns());
  CHECK(wait_status(pid) == 0);
  auto readings = receipt->counters->read();
  REQUIRE(readings.size() == 2);
  CHECK(readings[0].name == "task-clock");
  if (readings[0].available) CHECK(readings[0].value > 0);  // counted the shell's loop
  else CHECK_FALSE(readings[0].unavailable.empty());        // perf_event_paranoid said no, and why
  CHECK_FALSE(readings[1].available);
  CHECK(readings[1].unavailable == "not a counter benchbox knows");
}

TEST_CASE("a gate that cannot report does not run the command; runnerd hears why") {
  SECTION("stdin is no socket: the command never runs") {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    UniqueFd r(p[0]), w(p[1]);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(r.get(), 0);
      char sh[] = "/bin/sh", dc[] = "-c", cmd[] = "exit 0";
      char* argv[] = {sh, dc, cmd, nullptr};
      ::_exit(run_gate("-", argv));
    }
    CHECK(wait_status(pid) == 126);
  }
  SECTION("the gate is gone without a word") {
    auto [ours, theirs] = gate_socket();
    theirs.reset();
    auto receipt = receive_gate_report(ours.get(), {}, 1s);
    REQUIRE_FALSE(receipt);
    CHECK(receipt.error().message.find("exited without a report") != std::string::npos);
  }
  SECTION("silence: a timeout") {
    auto [ours, theirs] = gate_socket();
    auto receipt = receive_gate_report(ours.get(), {}, 50ms);
    REQUIRE_FALSE(receipt);
    CHECK(receipt.error().code == Errc::timeout);
  }
}

namespace {

// The last CPU this process may run on: a pin that differs from "all".
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) last = cpu;
  return last;
}

}  // namespace

TEST_CASE("--pin: the gate waits for runnerd's go, pins itself, then reports and runs") {
  auto [ours, theirs] = gate_socket();
  const std::string cpu = std::to_string(last_allowed_cpu());
  int out[2];
  REQUIRE(::pipe(out) == 0);
  UniqueFd out_r(out[0]), out_w(out[1]);
  // The command writes its own affinity to fd 3 (the pipe).
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ours.get());
    ::close(out_r.get());
    if (::dup2(theirs.get(), 0) < 0 || ::dup2(out_w.get(), 3) < 0) ::_exit(99);
    char sh[] = "/bin/sh", dc[] = "-c", cmd[] = "grep Cpus_allowed_list /proc/self/status >&3";
    char* argv[] = {sh, dc, cmd, nullptr};
    ::_exit(run_gate("-", argv, cpu));
  }
  theirs.reset();
  out_w.reset();
  // No go yet: no report.
  auto early = receive_gate_report(ours.get(), {}, 200ms);
  REQUIRE_FALSE(early);
  CHECK(early.error().code == Errc::timeout);
  const uint64_t before_go = now_ns();
  REQUIRE(send_gate_go(ours.get()));
  auto receipt = receive_gate_report(ours.get(), {}, 10s);
  REQUIRE(receipt);
  CHECK(receipt->start_ns >= before_go);  // the clock starts after the wait
  CHECK(wait_status(pid) == 0);
  char buf[256] = {};
  ssize_t n = ::read(out_r.get(), buf, sizeof buf - 1);
  REQUIRE(n > 0);
  CHECK(std::string(buf, size_t(n)) == "Cpus_allowed_list:\t" + cpu + "\n");
}

TEST_CASE("--pin: a pin the kernel refuses runs nothing and says why; no go runs nothing") {
  SECTION("a CPU that is not there") {
    auto [ours, theirs] = gate_socket();
    pid_t pid = fork_gate(theirs.get(), ours.get(), "-", {"/bin/sh", "-c", "exit 0"}, "1023");
    theirs.reset();
    REQUIRE(send_gate_go(ours.get()));
    auto receipt = receive_gate_report(ours.get(), {}, 10s);
    REQUIRE_FALSE(receipt);
    CHECK(receipt.error().message == "the gate could not pin itself to its CPUs: Invalid argument");
    CHECK(wait_status(pid) == 125);
  }
  SECTION("runnerd gives up before the go") {
    auto [ours, theirs] = gate_socket();
    pid_t pid = fork_gate(theirs.get(), ours.get(), "-", {"/bin/sh", "-c", "exit 0"}, "0");
    theirs.reset();
    ours.reset();
    CHECK(wait_status(pid) == 126);
  }
}
