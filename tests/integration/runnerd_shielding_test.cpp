// CPU shielding on THIS hybrid host (cgroup v1 cpusets, as root): a real
// benchbox-tunerd applies shielding while a real benchbox-runnerd (root,
// the pinned child) waits for jobs and a busy loop spins. Every task of the
// root cpuset, runnerd and the loop included, moves to the housekeeping
// cpuset; the job's benchmark must still run on the benchmark CPU, from the
// bench cpuset, and the loop, sampled through the run from /proc/PID/stat's
// processor field, must never run there. Then Restore, and a guard that puts
// every task back if the test fails half way.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "runnerd_fixture.h"
#include "skip.h"
#include "sys/host.h"
#include "sys/sysfs.h"
#include "tunerd_support.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using json = nlohmann::json;

namespace {

constexpr const char* kCpusets = "/sys/fs/cgroup/cpuset";

bool can_shield_here() {
  if (::geteuid() != 0 || path_exists("/sys/fs/cgroup/cgroup.controllers")) return false;
  if (!path_exists(std::string(kCpusets) + "/cpuset.cpus")) return false;
  auto online = sys::online_cpus(*sys::open_root("/"));
  if (!online || online->size() < 2) return false;
  // Writable: a cpuset can be made (and is removed at once).
  return run_shell(std::string("mkdir ") + kCpusets + "/benchbox-probe 2>/dev/null && rmdir " + kCpusets +
                   "/benchbox-probe") == 0;
}

// A tuning profile with every item but shielding turned off.
std::string shielding_only_profile() {
  std::string profile = "items:\n";
  for (const auto& name : {"governor", "min_freq", "boost", "smt", "thp", "perf_event_paranoid", "nmi_watchdog",
                           "irqbalance", "workqueue", "kernel_cmdline", "aslr", "swappiness", "irq_affinity"})
    profile += std::string("  ") + name + ": false\n";
  return profile;
}

// Whatever happens, no task stays in benchbox's cpusets and they go.
struct CpusetGuard {
  ~CpusetGuard() {
    // Tasks forked meanwhile keep a cpuset busy: hand over again until it goes.
    run_shell(std::string("for d in benchbox-housekeeping benchbox-bench; do c=") + kCpusets +
              "/$d; for i in $(seq 50); do [ -d $c ] || break; for t in $(cat $c/tasks); do echo $t > " + kCpusets +
              "/tasks 2>/dev/null; done; rmdir $c 2>/dev/null; done; done");
  }
};

// The CPU a task last ran on: field 39 of /proc/PID/stat (after the comm
// in parentheses, field 3 is the 1st).
int last_cpu(pid_t pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return -1;
  const std::string rest = stat->substr(stat->rfind(')') + 2);
  auto fields = split(rest, ' ');
  return fields.size() > 36 ? std::stoi(fields[36]) : -1;
}

std::string cpuset_of(pid_t pid) { return trim(slurp("/proc/" + std::to_string(pid) + "/cpuset")); }

}  // namespace

TEST_CASE("v1 shielding: the benchmark runs on its CPU from the bench cpuset, a busy loop never there", "[root]") {
  if (!can_shield_here())
    BB_SKIP("needs root and a writable cgroup-v1 cpuset hierarchy (a hybrid or v1 host) with 2+ CPUs");
  CpusetGuard guard;
  RunnerdFixture f;
  const std::string profile = shielding_only_profile();
  const std::string tuner_dir = f.dir() / "tuner";
  REQUIRE(make_dirs(tuner_dir));
  const std::string config = write_tunerd_config(tuner_dir, "/", profile);
  auto tunerd = start_tunerd(f.address(), config, f.dir() / "tunerd.log");
  TunerClient tuner(f.address());
  REQUIRE(tuner.name_owned());
  f.start_runner();  // before the apply: it is moved like every other task
  const std::string cpu = f.runner_property("BenchmarkCPUs", "s");
  REQUIRE_FALSE(cpu.empty());
  Process loop({"/bin/sh", "-c", "while :; do :; done"}, {}, f.dir() / "loop.log");

  auto applied = tuner.call("Apply");
  INFO(tunerd->log());
  REQUIRE(applied.error_name == "");
  const auto* shielding = applied.find("shielding");
  REQUIRE(shielding);
  INFO("shielding: " << shielding->actual << " / " << shielding->reason);
  REQUIRE(shielding->ok);
  CHECK(cpuset_of(loop.pid()) == "/benchbox-housekeeping");

  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: s\n    format: command\n    repetitions: 3\n    warmup: 0\n"
                             "    run: \"grep Cpus_allowed_list /proc/self/status; cat /proc/self/cpuset; "
                             "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done\"\n",
                             "a benchmark that spins");
  const int64_t id = f.enqueue(f.push_spec(sha));
  std::atomic<bool> done{false};
  int samples = 0, on_bench = 0;
  std::thread sampler([&] {
    while (!done) {
      const int at = last_cpu(loop.pid());
      if (at >= 0) {
        ++samples;
        if (std::to_string(at) == cpu) ++on_bench;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  json job = f.wait_finished(id, 120);
  done = true;
  sampler.join();
  INFO(job.dump() << "\n" << f.runner_log());
  REQUIRE(job["state"] == "done");
  const std::string output = slurp(f.dir() / ("state/results/" + std::to_string(id) + "/output.log"));
  INFO(output);
  CHECK(output.find("Cpus_allowed_list:\t" + cpu + "\n") != std::string::npos);
  CHECK(output.find("/benchbox-bench\n") != std::string::npos);
  CHECK(samples > 50);
  CHECK(on_bench == 0);

  REQUIRE(tuner.call("Restore").error_name == "");
  CHECK_FALSE(path_exists(std::string(kCpusets) + "/benchbox-bench"));
  CHECK(cpuset_of(loop.pid()) == "/");
  std::printf("shielding (cgroup v1): a busy loop sampled %d times during the job, %d on benchmark CPU %s; the "
              "benchmark ran from /benchbox-bench on CPU %s\n",
              samples, on_bench, cpu.c_str(), cpu.c_str());
}

// What a contained command's gate needs on such a host: PID 1 (moved to
// housekeeping like every task) forks it outside the benchmark cpuset, so
// tunerd moves it, and nothing else, on runnerd's request. The unit's
// cgroup is made here, in the host's name=systemd hierarchy, as PID 1
// would make it.
TEST_CASE("v1 shielding: tunerd admits a bench service's process to the benchmark cpuset, and no other", "[root]") {
  const std::string unit_dir = "/sys/fs/cgroup/systemd/benchbox.slice/benchbox-bench.slice/benchbox-job-1-1.service";
  if (!can_shield_here() || !path_exists("/sys/fs/cgroup/systemd/cgroup.procs"))
    BB_SKIP("needs root, a writable cgroup-v1 cpuset hierarchy with 2+ CPUs and a name=systemd hierarchy");
  CpusetGuard guard;
  struct UnitGuard {
    ~UnitGuard() {
      run_shell("for p in $(cat /sys/fs/cgroup/systemd/benchbox.slice/benchbox-bench.slice/*/cgroup.procs "
                "2>/dev/null); do echo $p > /sys/fs/cgroup/systemd/cgroup.procs; done; rmdir "
                "/sys/fs/cgroup/systemd/benchbox.slice/benchbox-bench.slice/* "
                "/sys/fs/cgroup/systemd/benchbox.slice/benchbox-bench.slice /sys/fs/cgroup/systemd/benchbox.slice "
                "2>/dev/null");
    }
  } unit_guard;
  TempDir dir;
  OpenBus bus(dir.path());
  const std::string profile = shielding_only_profile();
  const std::string config = write_tunerd_config(dir.path(), "/", profile);
  auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd.log");
  TunerClient tuner(bus.address());
  REQUIRE(tuner.name_owned());
  auto applied = tuner.call("Apply");
  INFO(tunerd->log());
  REQUIRE(applied.error_name == "");
  const std::string bench_cpus = trim(slurp(std::string(kCpusets) + "/benchbox-bench/cpuset.cpus"));

  Process gate({"/bin/sleep", "60"}, {}, dir / "gate.log");
  Process other({"/bin/sleep", "60"}, {}, dir / "other.log");
  REQUIRE(cpuset_of(gate.pid()) == "/benchbox-housekeeping");
  REQUIRE(make_dirs(unit_dir));
  REQUIRE(run_shell("echo " + std::to_string(gate.pid()) + " > " + unit_dir + "/cgroup.procs") == 0);

  const std::string busctl = "busctl --address=" + bus.address() +
                             " call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 AdmitToBench u ";
  const std::string out = dir / "admit.out";
  CHECK(run_shell(busctl + std::to_string(gate.pid()) + " >" + out + " 2>&1") == 0);
  CHECK(trim(slurp(out)) == "s \"benchbox-job-1-1.service\"");
  CHECK(cpuset_of(gate.pid()) == "/benchbox-bench");
  // The kernel sets the affinity of a task moved into a cpuset to its CPUs.
  CHECK(slurp("/proc/" + std::to_string(gate.pid()) + "/status").find("Cpus_allowed_list:\t" + bench_cpus + "\n") !=
        std::string::npos);

  CHECK(run_shell(busctl + std::to_string(other.pid()) + " >" + out + " 2>&1") != 0);
  CHECK(slurp(out).find("Access denied") != std::string::npos);  // busctl shows no more of an AccessDenied
  CHECK(tunerd->log().find("refused to admit process " + std::to_string(other.pid()) +
                           " to the benchmark cpuset: process " + std::to_string(other.pid()) +
                           " is in cgroup '/', not a unit of benchbox-bench.slice") != std::string::npos);
  CHECK(cpuset_of(other.pid()) == "/benchbox-housekeeping");
  CHECK(tunerd->log().find("admitted benchbox-job-1-1.service (process " + std::to_string(gate.pid()) + ")") !=
        std::string::npos);

  REQUIRE(tuner.call("Restore").error_name == "");
  CHECK(cpuset_of(gate.pid()) == "/");
}
