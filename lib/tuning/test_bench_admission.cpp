#include <catch2/catch.hpp>

#include <cerrno>

#include "sys/memory_fs.h"
#include "tuning/bench_admission.h"
#include "tuning/shielding.h"

using namespace bb;
using namespace bb::tuning;

namespace {

const std::string kTasks = std::string(kCpusetBench) + "/tasks";

// A v1-shielded host: both cpusets exist, one process per cgroup file.
sys::MemoryFs shielded_host() {
  sys::MemoryFs fs;
  fs.put(std::string(kCpusetBench) + "/cpuset.cpus", "1\n");
  fs.put(kTasks, "");
  return fs;
}

}  // namespace

TEST_CASE("a command's gate in benchbox-bench.slice is admitted to the benchmark cpuset") {
  auto fs = shielded_host();
  SECTION("hybrid: the unified line names the unit") {
    fs.put("/proc/4242/cgroup", "3:cpuset:/benchbox-housekeeping\n1:name=systemd:\n"
                                "0::/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.service\n");
  }
  SECTION("legacy: the name=systemd line names it") {
    fs.put("/proc/4242/cgroup", "3:cpuset:/benchbox-housekeeping\n"
                                "1:name=systemd:/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.service\n");
  }
  SECTION("the uncontained fallback: a scope") {
    fs.put("/proc/4242/cgroup", "0::/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.scope\n");
  }
  auto unit = admit_to_bench(fs, 4242);
  INFO((unit ? "" : unit.error().message));
  REQUIRE(unit.ok());
  CHECK((*unit == "benchbox-job-7-1.service" || *unit == "benchbox-job-7-1.scope"));
  REQUIRE(fs.writes().size() == 1);
  CHECK(fs.writes()[0] == std::pair<std::string, std::string>{kTasks, "4242"});
}

TEST_CASE("nothing but a bench service's process is moved onto the benchmark CPUs") {
  auto fs = shielded_host();
  fs.put("/proc/10/cgroup", "0::/system.slice/benchbox-runnerd.service\n");
  fs.put("/proc/11/cgroup", "0::/benchbox.slice/benchbox-bench.slice\n");
  fs.put("/proc/12/cgroup", "0::/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.socket\n");
  fs.put("/proc/13/cgroup", "0::/user.slice/benchbox-bench.slice/x.service/child\n");
  fs.put("/proc/14/cgroup", "0::/benchbox-bench.slice/.service\n");
  for (pid_t pid : {10, 11, 12, 13, 14}) {
    auto unit = admit_to_bench(fs, pid);
    INFO(pid);
    REQUIRE_FALSE(unit.ok());
    CHECK(unit.error().code == Errc::permission_denied);
    CHECK(unit.error().message.find("not a unit of benchbox-bench.slice") != std::string::npos);
  }
  auto gone = admit_to_bench(fs, 99);
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().message.find("no process 99") != std::string::npos);
  for (pid_t pid : {0, 1, -5}) CHECK(admit_to_bench(fs, pid).error().code == Errc::invalid_argument);
  CHECK(fs.writes().empty());
}

TEST_CASE("without v1 shielding there is no cpuset to admit to, and a refused write says so") {
  sys::MemoryFs fs;
  fs.put("/proc/4242/cgroup", "0::/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.service\n");
  auto none = admit_to_bench(fs, 4242);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == Errc::not_found);
  CHECK(none.error().message.find("not applied") != std::string::npos);

  auto shielded = shielded_host();
  shielded.put("/proc/4242/cgroup", "0::/benchbox.slice/benchbox-bench.slice/benchbox-job-7-1.service\n");
  shielded.fail_writes(kTasks, ENOSPC);  // a cpuset without memory nodes refuses tasks
  auto refused = admit_to_bench(shielded, 4242);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("move benchbox-job-7-1.service's process 4242 to") != std::string::npos);
}
