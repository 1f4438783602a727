// The contained command's gate (gate.h), without systemd: a forked child
// with the socket as its stdin plays PID 1's part.
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "exec/gate.h"
#include "util/fd.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

// Forks the gate with one end of a socket pair as stdin; returns its pid.
pid_t fork_gate(int theirs, int ours, const std::string& counters, std::vector<std::string> argv) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ours);
    if (::dup2(theirs, 0) < 0) ::_exit(99);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::_exit(run_gate(counters, args.data()));
  }
  return pid;
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
  int sp[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
  UniqueFd ours(sp[0]), theirs(sp[1]);
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
    int sp[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
    UniqueFd ours(sp[0]), theirs(sp[1]);
    theirs.reset();
    auto receipt = receive_gate_report(ours.get(), {}, 1s);
    REQUIRE_FALSE(receipt);
    CHECK(receipt.error().message.find("exited without a report") != std::string::npos);
  }
  SECTION("silence: a timeout") {
    int sp[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
    UniqueFd ours(sp[0]), theirs(sp[1]);
    auto receipt = receive_gate_report(ours.get(), {}, 50ms);
    REQUIRE_FALSE(receipt);
    CHECK(receipt.error().code == Errc::timeout);
  }
}
