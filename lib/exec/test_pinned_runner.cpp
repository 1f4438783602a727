#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "exec/output_capture.h"
#include "exec/pinned_runner.h"
#include "exec/test_scratch.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

using bb::exec::test::Scratch;

Outcome run_ok(const Command& c, std::chrono::milliseconds grace = 2s) {
  PinnedChildRunner runner(grace);
  auto r = runner.run(c, nullptr);
  if (!r) FAIL(r.error().message);
  return *r;
}

Command shell(std::string s) {
  Command c;
  c.shell = std::move(s);
  return c;
}

// Dead means gone or a zombie waiting for whoever inherited it.
bool process_alive(pid_t pid) {
  if (::kill(pid, 0) < 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), {});
  auto paren = all.rfind(')');
  return paren != std::string::npos && paren + 2 < all.size() && all[paren + 2] != 'Z';
}

// SIGKILL is delivered asynchronously: a killed process may take a moment
// to die (and to become a zombie of whoever inherited it).
bool dies_soon(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    if (!process_alive(pid)) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

using bb::exec::test::no_children_left;

pid_t read_pid(const std::string& path) {
  auto text = read_file(path);
  REQUIRE(text);
  return static_cast<pid_t>(std::stol(trim(*text)));
}

int last_online_cpu() {
  auto text = read_file("/sys/devices/system/cpu/online");
  REQUIRE(text);
  auto t = trim(*text);
  auto pos = t.find_last_of(",-");
  return std::stoi(pos == std::string::npos ? t : t.substr(pos + 1));
}

}  // namespace

TEST_CASE("exit codes, captured output and describe()") {
  auto o = run_ok(shell("echo out; echo err >&2; exit 3"));
  CHECK(o.exit_code == 3);
  CHECK(o.term_signal == 0);
  CHECK_FALSE(o.success());
  CHECK(o.stdout_text == "out\n");
  CHECK(o.stderr_text == "err\n");
  CHECK(o.describe() == "exit status 3");
  CHECK(o.isolation == "none");

  auto ok = run_ok(shell("true"));
  CHECK(ok.success());
  CHECK(ok.describe() == "exit status 0");
  CHECK(ok.wall_seconds > 0);
  CHECK(no_children_left());
}

TEST_CASE("stdout keeps the spare room a parser reading in place needs") {
  Command c = shell("head -c 300000 /dev/zero | tr '\\0' x; echo");
  c.max_output_bytes = 1 << 20;
  c.stdout_padding = 64;
  PinnedChildRunner runner;
  auto o = runner.run(c, nullptr);  // in place, as runnerd reads it (a copy keeps no spare room)
  REQUIRE(o);
  REQUIRE(o->stdout_text.size() == 300001);
  CHECK(o->stdout_text.capacity() >= o->stdout_text.size() + 64);

  // One read into an empty capture: without the padding, exactly its size.
  for (size_t padding : {size_t(0), size_t(64)}) {
    Command p;
    p.stdout_padding = padding;
    Outcome out;
    OutputSink sink(p, out);
    Stream s;
    s.capture = &out.stdout_text;
    const std::string chunk(1000, 'x');
    sink.add(s, chunk.data(), chunk.size());
    CHECK(out.stdout_text.capacity() - out.stdout_text.size() >= padding);
    if (padding == 0) CHECK(out.stdout_text.capacity() == out.stdout_text.size());
  }
}

TEST_CASE("a command killed by a signal is reported by the signal's name") {
  auto o = run_ok(shell("kill -SEGV $$"));
  CHECK(o.term_signal == SIGSEGV);
  CHECK_FALSE(o.success());
  CHECK(o.describe() == "killed by SIGSEGV");
}

TEST_CASE("an argv runs without a shell: every argument arrives as it was, nothing is expanded") {
  Command c;
  c.argv = {"printf", "%s|", "it's", "$HOME", "a b", "; touch /tmp/never"};
  auto o = run_ok(c);
  CHECK(o.success());
  CHECK(o.stdout_text == "it's|$HOME|a b|; touch /tmp/never|");
  Command missing;
  missing.argv = {"no-such-program-of-benchbox"};
  PinnedChildRunner runner;
  auto r = runner.run(missing, nullptr);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "no program 'no-such-program-of-benchbox' in PATH");
  Command both = c;
  both.shell = "true";
  auto b = runner.run(both, nullptr);
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("not both") != std::string::npos);
}

TEST_CASE("a SIGKILL that is not benchbox's own is said to come from outside") {
  auto o = run_ok(shell("kill -KILL $$"));
  CHECK(o.term_signal == SIGKILL);
  CHECK_FALSE(o.core_dumped);
  CHECK(o.describe() == "killed by SIGKILL from outside benchbox (not a timeout, cancellation or per-job bound)");
  o.killed_by = "the kernel's OOM killer";
  CHECK(o.describe() == "killed by SIGKILL, sent by the kernel's OOM killer");
}

TEST_CASE("a process the command ran that a signal killed is named, not only the shell's 128 + N") {
  auto o = run_ok(shell("sh -c 'kill -ABRT $$'; exit $?"));
  CHECK(o.exit_code == 128 + SIGABRT);
  CHECK(o.describe() == "exit status 134 (a process it ran was killed by SIGABRT)");
  CHECK(run_ok(shell("exit 2")).describe() == "exit status 2");
}

TEST_CASE("user and system time come from the waited-for process tree") {
  // The loop runs in a grandchild (the subshell), so this also checks that
  // rusage covers descendants the shell waited for.
  auto o = run_ok(shell("( i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done )"));
  CHECK(o.success());
  CHECK(o.user_seconds + o.system_seconds > 0.01);
  CHECK(o.wall_seconds >= o.user_seconds * 0.5);
}

TEST_CASE("the environment is clean plus Command::env, and cwd is honoured") {
  Scratch s;
  ::setenv("BENCHBOX_TEST_LEAK", "leaked", 1);
  Command c = shell("echo \"$FOO|$BENCHBOX_TEST_LEAK|$PATH\"; pwd");
  c.env = {{"FOO", "bar"}};
  c.cwd = s.dir;
  auto o = run_ok(c);
  ::unsetenv("BENCHBOX_TEST_LEAK");
  auto lines = split(o.stdout_text, '\n');
  REQUIRE(lines.size() >= 2);
  CHECK(lines[0].rfind("bar||/usr/local/sbin:", 0) == 0);
  CHECK(lines[1] == s.dir);
}

TEST_CASE("stdin is /dev/null") {
  auto o = run_ok(shell("cat; echo done"));
  CHECK(o.stdout_text == "done\n");
}

TEST_CASE("the child is pinned to the requested CPU before it runs") {
  int cpu = last_online_cpu();
  Command c = shell("grep Cpus_allowed_list /proc/$$/status");
  c.cpus = {cpu};
  auto o = run_ok(c);
  CHECK(o.success());
  CHECK(o.stdout_text == "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n");
  CHECK(o.isolation == "affinity:" + std::to_string(cpu));
}

TEST_CASE("pinning to a CPU that is not online fails to start with a clear error") {
  Command c = shell("true");
  c.cpus = {1000};
  PinnedChildRunner runner;
  auto r = runner.run(c, nullptr);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("pin to CPUs 1000") != std::string::npos);
  CHECK(no_children_left());

  c.cpus = {-1};
  auto r2 = runner.run(c, nullptr);
  REQUIRE_FALSE(r2);
  CHECK(r2.error().message == "CPU -1 is out of range");
}

TEST_CASE("a missing working directory fails to start") {
  Command c = shell("true");
  c.cwd = "/nonexistent/benchbox";
  PinnedChildRunner runner;
  auto r = runner.run(c, nullptr);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("change to directory /nonexistent/benchbox") != std::string::npos);
}

TEST_CASE("a timeout kills the whole process group, even a grandchild that ignores SIGTERM") {
  Scratch s;
  // The shell and its background grandchild both ignore SIGTERM, so only
  // the SIGKILL after the grace period can end them.
  Command c = shell("trap '' TERM; sh -c 'echo $$ > gc.pid; exec sleep 1000' & echo $$ > sh.pid; wait");
  c.cwd = s.dir;
  c.timeout = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  auto o = run_ok(c, 300ms);
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(o.timed_out);
  CHECK_FALSE(o.success());
  CHECK(o.term_signal == SIGKILL);
  CHECK(o.describe() == "timed out after 0.3 s");
  CHECK(took >= 600ms);  // the timeout plus the grace period, a lower bound only
  CHECK(dies_soon(read_pid(s.dir + "/gc.pid")));
  CHECK(dies_soon(read_pid(s.dir + "/sh.pid")));
  CHECK(no_children_left());
}

TEST_CASE("a background process left behind by a finished command is killed") {
  Scratch s;
  Command c = shell("sleep 1000 & echo $! > bg.pid; echo started");
  c.cwd = s.dir;
  auto o = run_ok(c);
  CHECK(o.success());
  CHECK(o.stdout_text == "started\n");
  CHECK(dies_soon(read_pid(s.dir + "/bg.pid")));
  CHECK(no_children_left());
}

TEST_CASE("output beyond the cap is dropped and counted; lines still reach the callback") {
  Command c = shell("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done; printf tail >&2");
  c.max_output_bytes = 1000;
  std::vector<std::string> out_lines, err_lines;
  c.on_line = [&](std::string_view line, bool is_stderr) {
    (is_stderr ? err_lines : out_lines).emplace_back(line);
  };
  auto o = run_ok(c);
  CHECK(o.success());
  CHECK(o.stdout_text.size() + o.stderr_text.size() == 1000);
  CHECK(o.stdout_text.rfind("line0\nline1\n", 0) == 0);
  size_t total = 0;
  for (int i = 0; i < 2000; ++i) total += ("line" + std::to_string(i) + "\n").size();
  CHECK(o.dropped_bytes == total + 4 - 1000);
  REQUIRE(out_lines.size() == 2000);
  CHECK(out_lines[1999] == "line1999");
  REQUIRE(err_lines.size() == 1);
  CHECK(err_lines[0] == "tail");
}

TEST_CASE("cancel kills the running command") {
  Scratch s;
  Command c = shell("sleep 1000 & echo $! > bg.pid; wait");
  c.cwd = s.dir;
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    // Cancel once the command is really running (its pid file exists).
    for (int i = 0; i < 500 && !path_exists(s.dir + "/bg.pid"); ++i) std::this_thread::sleep_for(10ms);
    cancel = true;
  });
  PinnedChildRunner runner(1s);
  auto r = runner.run(c, &cancel);
  canceller.join();
  REQUIRE(r);
  CHECK(r->cancelled);
  CHECK_FALSE(r->success());
  CHECK(r->describe() == "cancelled");
  CHECK(dies_soon(read_pid(s.dir + "/bg.pid")));
  CHECK(no_children_left());
}
