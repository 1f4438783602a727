// memory.peak through a fake /proc and /sys/fs/cgroup tree, both layouts,
// and a read-only look at the real tree.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

#include "exec/cgroup_memory.h"
#include "exec/pinned_runner.h"
#include "exec/test_scratch.h"
#include "util/file.h"

using namespace bb;

namespace {

using Tree = bb::exec::test::FakeTree;

}  // namespace

TEST_CASE("cgroup memory.peak: the scope's path from /proc, the peak on a v2 or a hybrid host") {
  Tree t;
  t.put("/proc/42/cgroup", "12:memory:/benchbox.slice\n1:name=systemd:/x\n0::/benchbox.slice/benchbox-bench.slice/j.scope\n");
  auto path = exec::cgroup2_path_of(t.root, 42);
  REQUIRE(path);
  CHECK(*path == "/benchbox.slice/benchbox-bench.slice/j.scope");
  CHECK_FALSE(exec::cgroup2_memory_peak(t.root, *path));  // a kernel without memory.peak
  t.put("/sys/fs/cgroup/unified" + *path + "/memory.peak", "73728000\n");
  CHECK(exec::cgroup2_memory_peak(t.root, *path) == 73728000);  // hybrid layout
  t.put("/sys/fs/cgroup" + *path + "/memory.peak", "1048576\n");
  CHECK(exec::cgroup2_memory_peak(t.root, *path) == 1048576);   // pure v2 is asked first
  t.put("/sys/fs/cgroup/bad/memory.peak", "max\n");
  CHECK_FALSE(exec::cgroup2_memory_peak(t.root, "/bad"));
  CHECK_FALSE(exec::cgroup2_memory_peak(t.root, "/x/../../etc"));
  CHECK_FALSE(exec::cgroup2_path_of(t.root, 7));  // no such process
}

TEST_CASE("cgroup memory.events: the kernel's count of OOM kills in the scope, either layout") {
  Tree t;
  const std::string scope = "/benchbox.slice/j.scope";
  CHECK_FALSE(exec::cgroup2_oom_kills(t.root, scope));  // no memory controller there
  t.put("/sys/fs/cgroup/unified" + scope + "/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
  CHECK(exec::cgroup2_oom_kills(t.root, scope) == 1);
  t.put("/sys/fs/cgroup" + scope + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  CHECK(exec::cgroup2_oom_kills(t.root, scope) == 0);
  CHECK_FALSE(exec::cgroup2_oom_kills(t.root, "/x/../../etc"));
}

TEST_CASE("cgroup memory.peak: the real tree is read without error") {
  // This host (cgroup v1 hybrid, no v2 controllers) has no memory.peak;
  // either answer is fine, a crash or a bogus zero is not.
  auto path = exec::cgroup2_path_of("", ::getpid());
  if (path) {
    auto peak = exec::cgroup2_memory_peak("", *path);
    if (peak) CHECK(*peak > 0);
  }
}

TEST_CASE("a plain pinned child reports ru_maxrss, context switches, user and system time apart") {
  exec::PinnedChildRunner runner;
  exec::Command c;
  // ~64 MiB touched by one process, a few sleeps (voluntary switches).
  c.shell = "python3 -c 'b = bytearray(64 << 20); import time; [time.sleep(0.01) for _ in range(5)]'";
  c.cwd = "/tmp";
  auto o = runner.run(c, nullptr);
  REQUIRE(o.ok());
  REQUIRE(o->success());
  CHECK(o->memory_source == "ru_maxrss");
  CHECK(o->peak_memory_bytes > (64 << 20));
  CHECK(o->peak_memory_bytes < (512 << 20));
  CHECK(o->voluntary_switches >= 5);
  CHECK(o->involuntary_switches >= 0);
  CHECK(o->user_seconds >= 0);
  CHECK(o->system_seconds > 0);  // the kernel zeroed 64 MiB of pages
}
