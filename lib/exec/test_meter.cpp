// benchbox-meter's report: written from a fake cgroup tree (both layouts),
// parsed back, and once from this process's real cgroup.
#include <catch2/catch.hpp>
#include "skip.h"

#include <unistd.h>

#include <cstdlib>

#include "exec/meter.h"
#include "exec/test_scratch.h"
#include "util/file.h"

using namespace bb;

namespace {

using Tree = bb::exec::test::FakeTree;

const std::string kUnit = "/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.service";

}  // namespace

TEST_CASE("meter: CPU time, memory peak and the bounds that were hit, from the unit's cgroup") {
  Tree t;
  SECTION("a pure cgroup-v2 host with every file") {
    t.put("/sys/fs/cgroup" + kUnit + "/cpu.stat", "usage_usec 3500\nuser_usec 2500\nsystem_usec 1000\n");
    t.put("/sys/fs/cgroup" + kUnit + "/memory.peak", "73728000\n");
    t.put("/sys/fs/cgroup" + kUnit + "/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
    t.put("/sys/fs/cgroup" + kUnit + "/pids.events", "max 2\n");
    auto report = exec::meter_report(t.root, kUnit);
    REQUIRE(report);
    CHECK(report->find("cpu.stat user_usec 2500\n") != std::string::npos);
    auto m = exec::parse_meter_report(*report);
    REQUIRE(m);
    CHECK(m->user_usec == 2500);
    CHECK(m->system_usec == 1000);
    REQUIRE(m->memory_peak);
    CHECK(*m->memory_peak == 73728000);
    CHECK(m->oom_kills == 1);
    CHECK(m->tasks_max_hits == 2);
  }
  SECTION("a hybrid host without memory.peak: CPU time only") {
    t.put("/sys/fs/cgroup/unified" + kUnit + "/cpu.stat", "usage_usec 10\nuser_usec 7\nsystem_usec 3\n");
    auto report = exec::meter_report(t.root, kUnit);
    REQUIRE(report);
    auto m = exec::parse_meter_report(*report);
    REQUIRE(m);
    CHECK(m->user_usec == 7);
    CHECK_FALSE(m->memory_peak);
    CHECK(m->oom_kills == 0);
  }
  SECTION("a hybrid host: memory and pids from their v1 hierarchies") {
    t.put("/sys/fs/cgroup/unified" + kUnit + "/cpu.stat", "usage_usec 10\nuser_usec 7\nsystem_usec 3\n");
    t.put("/sys/fs/cgroup/memory" + kUnit + "/memory.max_usage_in_bytes", "5242880\n");
    t.put("/sys/fs/cgroup/memory" + kUnit + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    t.put("/sys/fs/cgroup/pids" + kUnit + "/pids.events", "max 5\n");
    auto report = exec::meter_report(t.root, kUnit, {{"memory", kUnit}, {"pids", kUnit}});
    REQUIRE(report);
    auto m = exec::parse_meter_report(*report);
    REQUIRE(m);
    REQUIRE(m->memory_peak);
    CHECK(*m->memory_peak == 5242880);
    CHECK(m->oom_kills == 2);
    CHECK(m->tasks_max_hits == 5);
  }
  SECTION("no cgroup: a clear error, and a report without CPU time is refused") {
    auto report = exec::meter_report(t.root, kUnit);
    REQUIRE_FALSE(report);
    CHECK(report.error().message.find("no cpu.stat") != std::string::npos);
    CHECK_FALSE(exec::parse_meter_report("memory.peak 12\n"));
    CHECK_FALSE(exec::parse_meter_report(""));
  }
}

TEST_CASE("meter: this process's own cgroup, written as a file runnerd can read", "[host]") {
  Tree t;
  const std::string out = t.root + "/x.meter";
  auto st = exec::write_meter_report(out);
  if (!st) {
    BB_SKIP("no cgroup-v2 cpu.stat here: " << st.error().message);
  }
  auto text = read_file(out);
  REQUIRE(text);
  auto m = exec::parse_meter_report(*text);
  REQUIRE(m);
  CHECK(m->user_usec + m->system_usec > 0);
}
