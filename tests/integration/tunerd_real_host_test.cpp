// benchbox-tunerd against THIS machine (sysfs root "/"): a read-only Check of
// everything, then a real Apply of ASLR, swappiness and IRQ affinity, a
// kill -9 between Apply and Restore, and the restart that restores first.
// A guard writes the originals back in teardown, so a failing test still
// leaves the machine as it found it. Needs root and those files writable;
// otherwise it says so and checks nothing.
#include <catch2/catch.hpp>
#include "skip.h"

#include <unistd.h>

#include <map>

#include "harness.h"
#include "sys/cpumask.h"
#include "sys/host.h"
#include "sys/sysfs.h"
#include "tunerd_support.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;

namespace {

std::vector<std::string> tuned_paths() {
  std::vector<std::string> paths = {"/proc/sys/kernel/randomize_va_space", "/proc/sys/vm/swappiness",
                                    "/proc/irq/default_smp_affinity"};
  auto fs = sys::open_root("/");
  if (auto irqs = fs->list("/proc/irq"); irqs)
    for (const auto& e : *irqs)
      if (path_exists("/proc/irq/" + e + "/smp_affinity")) paths.push_back("/proc/irq/" + e + "/smp_affinity");
  return paths;
}

std::map<std::string, std::string> snapshot(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> out;
  for (const auto& p : paths) out[p] = trim(read_file(p).ok() ? read_file(p).value() : "(missing)");
  return out;
}

// Puts the machine back however the test ends.
class RestoreGuard {
 public:
  explicit RestoreGuard(std::map<std::string, std::string> originals) : originals_(std::move(originals)) {}
  ~RestoreGuard() {
    auto fs = sys::open_root("/");
    for (const auto& [path, value] : originals_)
      if (read_file(path).ok() && trim(read_file(path).value()) != value) (void)fs->write(path, value);
  }

 private:
  std::map<std::string, std::string> originals_;
};

bool can_tune_here() {
  if (::geteuid() != 0) return false;
  for (const char* p : {"/proc/sys/kernel/randomize_va_space", "/proc/sys/vm/swappiness",
                        "/proc/irq/default_smp_affinity"})
    if (::access(p, W_OK) != 0) return false;
  auto online = sys::online_cpus(*sys::open_root("/"));
  return online.ok() && online->size() >= 2;
}

}  // namespace

TEST_CASE("Check of the real machine is read-only and honest") {
  TempDir dir;
  OpenBus bus(dir.path());
  auto before = snapshot(tuned_paths());
  bool cpuset_before = path_exists("/sys/fs/cgroup/cpuset/benchbox-housekeeping");
  auto tunerd = start_tunerd(bus.address(), write_tunerd_config(dir.path(), "/", ""), dir / "tunerd.log");
  TunerClient client(bus.address());
  REQUIRE(client.name_owned());
  INFO(tunerd->log());
  auto check = client.call("Check");
  REQUIRE(check.error_name == "");
  CHECK(check.items.size() == 14);
  CHECK(check.fingerprint.size() == 64);
  for (const auto& i : check.items) {
    INFO(i.name << " wanted " << i.wanted << " actual " << i.actual << " ok " << i.ok << " " << i.reason);
    CHECK_FALSE(i.actual.empty());
    if (!i.ok) CHECK_FALSE(i.reason.empty());  // every "no" says why
  }
  CHECK(client.state() == "untuned");
  CHECK(snapshot(tuned_paths()) == before);
  CHECK(path_exists("/sys/fs/cgroup/cpuset/benchbox-housekeeping") == cpuset_before);
  CHECK_FALSE(path_exists(dir / "state/tuner/originals.json"));
  // Two checks in a row on an untouched host agree.
  CHECK(client.call("Check").fingerprint == check.fingerprint);
}

TEST_CASE("ASLR, swappiness and IRQ affinity are applied for real and come back after kill -9", "[root]") {
  if (!can_tune_here()) {
    BB_SKIP("not root, a single CPU, or ASLR/swappiness/IRQ affinity not writable here");
  }
  auto paths = tuned_paths();
  auto originals = snapshot(paths);
  RestoreGuard guard(originals);

  // Wanted values that differ from today's, so Apply really writes.
  std::string aslr = originals["/proc/sys/kernel/randomize_va_space"] == "0" ? "2" : "0";
  std::string swappiness = originals["/proc/sys/vm/swappiness"] == "10" ? "11" : "10";
  std::string profile = "items:\n";
  for (const auto& name : {"governor", "min_freq", "boost", "smt", "thp", "perf_event_paranoid", "nmi_watchdog",
                           "irqbalance", "workqueue", "shielding", "kernel_cmdline"})
    profile += std::string("  ") + name + ": false\n";
  profile += "  aslr: " + aslr + "\n  swappiness: " + swappiness + "\n  irq_affinity: true\n";

  TempDir dir;
  OpenBus bus(dir.path());
  std::string config = write_tunerd_config(dir.path(), "/", profile);
  auto online = sys::online_cpus(*sys::open_root("/")).value();
  int bench = online.back();

  auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd1.log");
  TunerClient client(bus.address());
  REQUIRE(client.name_owned());
  auto applied = client.call("Apply");
  INFO(tunerd->log());
  REQUIRE(applied.error_name == "");
  REQUIRE(applied.items.size() == 3);
  CHECK(applied.find("aslr")->ok);
  CHECK(applied.find("swappiness")->ok);
  CHECK(trim(read_file("/proc/sys/kernel/randomize_va_space").value()) == aslr);
  CHECK(trim(read_file("/proc/sys/vm/swappiness").value()) == swappiness);
  auto mask = sys::parse_cpu_mask(read_file("/proc/irq/default_smp_affinity").value());
  REQUIRE(mask.ok());
  CHECK_FALSE(sys::cpus_intersect(*mask, {bench}));
  INFO("irq_affinity: " << applied.find("irq_affinity")->actual << " " << applied.find("irq_affinity")->reason);

  // The crash: nobody restores, the save stays on disk.
  tunerd->kill_hard();
  CHECK(trim(read_file("/proc/sys/vm/swappiness").value()) == swappiness);
  REQUIRE(path_exists(dir / "state/tuner/originals.json"));

  auto again = start_tunerd(bus.address(), config, dir / "tunerd2.log");
  TunerClient client2(bus.address());
  REQUIRE(client2.name_owned());
  INFO(again->log());
  CHECK(snapshot(paths) == originals);
  CHECK(client2.state() == "untuned");
  CHECK_FALSE(path_exists(dir / "state/tuner/originals.json"));

  // And the orderly way: Apply, then SIGTERM restores.
  REQUIRE(client2.call("Apply").error_name == "");
  CHECK(trim(read_file("/proc/sys/kernel/randomize_va_space").value()) == aslr);
  CHECK(again->terminate() == 0);
  CHECK(snapshot(paths) == originals);
}
