// The job's supervisor (supervisor.h) without systemd: a forked child with
// one end of a socket pair plays the unit PID 1 would start.
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <thread>

#include "exec/service_runner.h"
#include "exec/supervised_runner.h"
#include "exec/supervisor.h"
#include "test_scratch.h"
#include "util/fd.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

struct Supervised {
  UniqueFd control;
  pid_t pid = -1;

  Supervised() {
    int sp[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == 0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(sp[0]);
      ::_exit(run_supervisor(sp[1]));
    }
    ::close(sp[1]);
    control.reset(sp[0]);
  }
  ~Supervised() {
    control.reset();
    if (pid > 0) ::waitpid(pid, nullptr, 0);
  }
  // Its exit status once runnerd's end is closed.
  int close_and_wait() {
    control.reset();
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  Result<Outcome> run(const std::string& shell, SupervisedOptions o = {}, Command c = {},
                      const std::atomic<bool>* cancel = nullptr) {
    c.shell = shell;
    o.kill_grace = 300ms;
    o.reply_timeout = 10s;
    return run_supervised(control.get(), c, {"/bin/sh", "-c", shell}, {"PATH=/usr/bin:/bin", "GREETING=hi"}, o,
                          cancel);
  }
};

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

pid_t read_pid(const std::string& path) {
  std::ifstream in(path);
  pid_t p = 0;
  in >> p;
  return p;
}

}  // namespace

TEST_CASE("the supervisor runs a job's commands one after another, each measured from its exec", "[supervisor]") {
  Supervised s;
  bb::exec::test::Scratch scratch;
  const std::string dir_path = scratch.dir;
  Command c;
  c.cwd = dir_path;
  auto first = s.run("echo $GREETING from $(pwd); echo oops >&2; exit 3", {}, c);
  REQUIRE(first);
  CHECK(first->exit_code == 3);
  CHECK(first->stdout_text == "hi from " + dir_path + "\n");
  CHECK(first->stderr_text == "oops\n");
  CHECK(first->wall_seconds > 0);
  CHECK(first->wall_seconds < 10);
  CHECK(first->memory_source == "ru_maxrss");
  CHECK(first->peak_memory_bytes > 0);
  CHECK(first->switches_measured);

  // The next command of the same supervisor; its rusage is its own.
  auto second = s.run("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");
  REQUIRE(second);
  CHECK(second->success());
  CHECK(second->user_seconds + second->system_seconds > 0);
  CHECK(second->wall_seconds >= second->user_seconds * 0.5);

  auto killed = s.run("kill -SEGV $$");
  REQUIRE(killed);
  CHECK(killed->term_signal == SIGSEGV);
  CHECK(s.close_and_wait() == 0);
}

TEST_CASE("what a command leaves running is killed when it ends, also in a session of its own", "[supervisor]") {
  Supervised s;
  bb::exec::test::Scratch scratch;
  const std::string dir_path = scratch.dir;
  const std::string pid_file = dir_path + "/left";
  // A double fork into a new session: no process group or parent ties it to the command.
  auto o = s.run("setsid sh -c 'sleep 300 & echo $! >" + pid_file + "; wait' >/dev/null 2>&1 & sleep 0.2; exit 0");
  REQUIRE(o);
  CHECK(o->success());
  const pid_t left = read_pid(pid_file);
  REQUIRE(left > 0);
  CHECK_FALSE(alive(left));
  // And the supervisor goes on.
  auto next = s.run("echo next");
  REQUIRE(next);
  CHECK(next->stdout_text == "next\n");
}

TEST_CASE("a command past its timeout, or cancelled, is stopped: SIGTERM, then SIGKILL", "[supervisor]") {
  Supervised s;
  Command c;
  c.timeout = 200ms;
  auto o = s.run("trap '' TERM; sleep 30", {}, c);
  REQUIRE(o);
  CHECK(o->timed_out);
  CHECK(o->term_signal == SIGKILL);
  CHECK(o->wall_seconds < 5);

  std::atomic<bool> cancel{true};
  auto cancelled = s.run("sleep 30", {}, {}, &cancel);
  REQUIRE(cancelled);
  CHECK(cancelled->cancelled);
  CHECK(cancelled->term_signal == SIGTERM);
}

TEST_CASE("a command that cannot start is an error, and the supervisor serves the next", "[supervisor]") {
  Supervised s;
  Command c;
  c.cwd = "/nonexistent/bb-supervisor";
  auto o = s.run("echo never", {}, c);
  REQUIRE_FALSE(o);
  CHECK_THAT(o.error().message, Catch::Contains("could not start the command"));
  auto next = s.run("echo next");
  REQUIRE(next);
  CHECK(next->stdout_text == "next\n");
}

TEST_CASE("with pin, the command waits for its admission, then runs on those CPUs", "[supervisor]") {
  Supervised s;
  cpu_set_t mine;
  REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mine)) ++cpu;
  SupervisedOptions o;
  o.pin_cpus = std::to_string(cpu);
  pid_t admitted = 0;
  o.admit = [&](pid_t pid) {
    admitted = pid;
    return Status{};
  };
  auto out = s.run("echo $$; grep Cpus_allowed_list /proc/self/status", o);
  REQUIRE(out);
  CHECK(out->stdout_text == std::to_string(admitted) + "\nCpus_allowed_list:\t" + std::to_string(cpu) + "\n");

  o.admit = [](pid_t) -> Status { return make_error(Errc::unavailable, "tunerd said no"); };
  auto refused = s.run("echo never", o);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("tunerd said no"));
  auto next = s.run("echo next");
  REQUIRE(next);
  CHECK(next->stdout_text == "next\n");
}

TEST_CASE("the supervisor's end: a killed supervisor is an error; runnerd gone kills the command", "[supervisor]") {
  SECTION("killed") {
    Supervised s;
    auto o = s.run("kill -KILL $PPID; sleep 1");
    REQUIRE_FALSE(o);
    CHECK_THAT(o.error().message, Catch::Contains("supervisor is gone"));
  }
  SECTION("runnerd closes its end") {
    Supervised s;
    bb::exec::test::Scratch scratch;
    const std::string dir_path = scratch.dir;
    const std::string pid_file = dir_path + "/cmd";
    // Started by hand: runnerd sends the request and then goes away.
    std::atomic<bool> cancel{false};
    std::thread t([&] {
      Command c;
      c.timeout = 0ms;
      (void)s.run("echo $$ >" + pid_file + "; exec sleep 300", {}, c, &cancel);
    });
    for (int i = 0; i < 500 && read_pid(pid_file) == 0; ++i) ::usleep(10000);
    const pid_t cmd = read_pid(pid_file);
    REQUIRE(cmd > 0);
    ::shutdown(s.control.get(), SHUT_RDWR);
    t.join();
    CHECK(s.close_and_wait() == 0);
    CHECK_FALSE(alive(cmd));
  }
}

TEST_CASE("the supervised runner describes its isolation as the service runner did", "[supervisor]") {
  // Part of every result's environment key: the switch to one unit per
  // job must not start every contained box's trends afresh.
  ServiceOptions o;
  o.meter_program = "/usr/libexec/benchbox/benchbox-meter";
  o.allowed_cpus = true;
  CHECK(SupervisedRunner(o).describe() == ServiceRunner(o).describe());
  CHECK(SupervisedRunner(o).describe() == "service:benchbox-bench.slice as benchbox-job (AllowedCPUs= and CPUAffinity=)");
}
