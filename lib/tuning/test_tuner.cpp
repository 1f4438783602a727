#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

#include "sys/memory_fs.h"
#include "sys/sysfs.h"
#include "tuning/save.h"
#include "tuning/shielding.h"
#include "tuning/tuner.h"
#include "util/file.h"

using namespace bb;
using namespace bb::tuning;

namespace {

std::string fixture(const std::string& name) { return std::string(BB_FIXTURES) + "/sysfs/" + name; }

sys::MemoryFs load(const std::string& name) {
  auto m = sys::MemoryFs::load_tree(fixture(name));
  REQUIRE(m.ok());
  return std::move(*m);
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/bb-tuning-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
};

// A host with systemd as PID 1: the slices and irqbalance exist.
FakeSystemd booted_systemd() {
  FakeSystemd s;
  for (const char* u : {"system.slice", "user.slice", "init.scope", "benchbox-bench.slice"}) s.units[u] = {};
  s.units["irqbalance.service"].active = true;
  return s;
}

std::unique_ptr<Tuner> make_tuner(sys::SysFs& fs, Systemd* systemd, const std::string& save, const Clock& clock,
                                  Profile profile = default_profile()) {
  Tuner::Options o;
  o.fs = &fs;
  o.systemd = systemd;
  o.profile = std::move(profile);
  o.save_path = save;
  o.clock = &clock;
  auto t = Tuner::create(std::move(o));
  INFO((t ? "" : t.error().message));
  REQUIRE(t.ok());
  return std::move(*t);
}

const Row& row(const Report& r, const std::string& name) {
  for (const auto& x : r.rows)
    if (x.name == name) return x;
  FAIL("no row " << name);
  return r.rows.front();
}

// Every value the tuner may touch, to prove a restore put all of them back.
std::map<std::string, std::string> snapshot(const sys::SysFs& fs, const std::vector<std::string>& paths) {
  std::map<std::string, std::string> out;
  for (const auto& p : paths) out[p] = fs.read(p).ok() ? fs.read(p).value() : "(missing)";
  return out;
}

const std::vector<std::string> kIntelPaths = {
    "/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "/sys/devices/system/cpu/cpu3/cpufreq/scaling_min_freq",
    "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "/sys/devices/system/cpu/intel_pstate/no_turbo",
    "/sys/devices/system/cpu/smt/control",                   "/proc/sys/vm/swappiness",
    "/proc/sys/kernel/randomize_va_space",                   "/sys/kernel/mm/transparent_hugepage/enabled",
    "/proc/sys/kernel/perf_event_paranoid",                  "/proc/sys/kernel/nmi_watchdog",
    "/proc/irq/default_smp_affinity",                        "/proc/irq/0/smp_affinity",
    "/proc/irq/122/smp_affinity",                            "/sys/devices/virtual/workqueue/cpumask"};

}  // namespace

TEST_CASE("Intel bare metal: check, apply, drift, restore") {
  auto fs = load("intel");
  auto systemd = booted_systemd();
  FakeClock clock;
  TempDir dir;
  std::string save = dir.path + "/tuner/originals.json";
  auto before = snapshot(fs, kIntelPaths);
  auto tuner = make_tuner(fs, &systemd, save, clock);
  CHECK(tuner->roles().benchmark == std::vector<int>{3});

  auto checked = tuner->check();
  REQUIRE(checked.ok());
  CHECK(checked->state == State::untuned);
  CHECK(fs.writes().empty());  // Check is read-only
  CHECK(row(*checked, "governor").actual == "powersave");
  CHECK_FALSE(row(*checked, "governor").ok);
  CHECK(row(*checked, "aslr").actual == "2");
  CHECK(row(*checked, "thp").actual == "madvise");
  CHECK(row(*checked, "irq_affinity").actual == "9/9 differ: default=f, irq0=f, irq1=f, irq8=f (+5 more)");
  CHECK(row(*checked, "irqbalance").actual == "running");
  CHECK(row(*checked, "kernel_cmdline").advisory);
  CHECK(row(*checked, "kernel_cmdline").reason.find("isolcpus=3") != std::string::npos);
  CHECK_FALSE(path_exists(save));

  auto applied = tuner->apply();
  REQUIRE(applied.ok());
  for (const auto& r : applied->rows) {
    INFO(r.name << ": " << r.actual << " / " << r.reason);
    CHECK((r.ok || r.advisory));
  }
  CHECK(applied->state == State::tuned);
  CHECK(fs.read("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor").value() == "performance\n");
  CHECK(fs.read("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor").value() == "powersave\n");  // housekeeping
  CHECK(fs.read("/sys/devices/system/cpu/cpu3/cpufreq/scaling_min_freq").value() == "5400000\n");
  CHECK(fs.read("/sys/devices/system/cpu/intel_pstate/no_turbo").value() == "1\n");
  CHECK(fs.read("/sys/devices/system/cpu/smt/control").value() == "off\n");
  CHECK(fs.read("/proc/sys/kernel/randomize_va_space").value() == "0\n");
  CHECK(fs.read("/proc/irq/0/smp_affinity").value() == "7\n");
  CHECK(fs.read("/proc/irq/122/smp_affinity").value() == "7\n");  // was pinned to CPU 3
  CHECK(fs.read("/sys/kernel/mm/transparent_hugepage/enabled").value() == "never\n");
  CHECK(systemd.units["system.slice"].allowed_cpus == std::vector<int>{0, 1, 2});
  CHECK(systemd.units["benchbox-bench.slice"].allowed_cpus == std::vector<int>{3});
  CHECK_FALSE(systemd.units["irqbalance.service"].active);
  REQUIRE(path_exists(save));
  CHECK(applied->fingerprint != checked->fingerprint);

  // Somebody turns ASLR back on: the next verify names it, State says drifted.
  std::vector<Row> drifted;
  REQUIRE(tuner->verify(&drifted).ok());
  CHECK(drifted.empty());
  fs.put("/proc/sys/kernel/randomize_va_space", "2\n");
  auto verified = tuner->verify(&drifted);
  REQUIRE(verified.ok());
  CHECK(verified->state == State::drifted);
  REQUIRE(drifted.size() == 1);
  CHECK(drifted[0].name == "aslr");
  CHECK(drifted[0].actual == "2");
  CHECK(drifted[0].reason.find("drifted") != std::string::npos);
  drifted.clear();
  REQUIRE(tuner->verify(&drifted).ok());
  CHECK(drifted.empty());  // reported once, not at every tick

  // Apply again: fixes the drift, and the saved original stays the first one.
  REQUIRE(tuner->apply()->state == State::tuned);
  auto saved = load_save(save);
  REQUIRE(saved.ok());
  bool found = false;
  for (const auto& e : (*saved)->entries)
    if (e.target == "/proc/sys/kernel/randomize_va_space") {
      found = true;
      CHECK(e.original == "2");
    }
  CHECK(found);

  auto restored = tuner->restore();
  REQUIRE(restored.ok());
  CHECK(restored->state == State::untuned);
  CHECK(snapshot(fs, kIntelPaths).at("/proc/sys/kernel/randomize_va_space") == "2\n");
  // Values come back as written by the tuner ("60\n"), the selected THP word
  // is written back as a word: compare what the checklist sees.
  auto after = tuner->check();
  REQUIRE(after.ok());
  for (const auto& r : after->rows) {
    INFO(r.name);
    CHECK(r.actual == row(*checked, r.name).actual);
  }
  CHECK(after->fingerprint == checked->fingerprint);
  CHECK(systemd.units["system.slice"].allowed_cpus.empty());
  CHECK(systemd.units["irqbalance.service"].active);
  CHECK_FALSE(path_exists(save));
  (void)before;
}

TEST_CASE("cgroup v2 shielding keeps every top-level slice off the benchmark CPUs, and restores each") {
  auto fs = load("intel");
  auto systemd = booted_systemd();
  // A container host's machine.slice, an admin's batch.slice, a slice
  // inside system.slice, and benchbox.slice, the parent of the bench slice.
  for (const char* u : {"machine.slice", "batch.slice", "system-getty.slice", "benchbox.slice", "-.slice"})
    systemd.units[u] = {};
  systemd.units["batch.slice"].allowed_cpus = {1, 3};  // the admin's own setting
  FakeClock clock;
  TempDir dir;
  auto tuner = make_tuner(fs, &systemd, dir.path + "/tuner/originals.json", clock);
  auto applied = tuner->apply();
  REQUIRE(applied.ok());
  INFO(row(*applied, "shielding").actual << " / " << row(*applied, "shielding").reason);
  CHECK(row(*applied, "shielding").ok);
  for (const char* u : {"system.slice", "user.slice", "init.scope", "machine.slice", "batch.slice"})
    CHECK(systemd.units[u].allowed_cpus == std::vector<int>{0, 1, 2});
  for (const char* u : {"benchbox-bench.slice", "benchbox.slice"}) CHECK(systemd.units[u].allowed_cpus == std::vector<int>{3});
  CHECK(systemd.units["system-getty.slice"].allowed_cpus.empty());  // inside system.slice: follows it
  CHECK(systemd.units["-.slice"].allowed_cpus.empty());

  REQUIRE(tuner->restore().ok());
  CHECK(systemd.units["batch.slice"].allowed_cpus == std::vector<int>{1, 3});
  for (const char* u : {"machine.slice", "system.slice", "benchbox.slice"}) CHECK(systemd.units[u].allowed_cpus.empty());
}

TEST_CASE("after a crash, a new tuner finds the save and restores from it alone") {
  auto fs = load("intel");
  FakeClock clock;
  TempDir dir;
  std::string save = dir.path + "/originals.json";
  auto before = snapshot(fs, kIntelPaths);
  {
    auto tuner = make_tuner(fs, nullptr, save, clock);
    REQUIRE(tuner->apply().ok());
    CHECK(fs.read("/proc/sys/vm/swappiness").value() == "10\n");
  }  // the process dies here without restoring
  // The profile changed meanwhile: the restore must not care.
  Profile other = default_profile();
  other.items["swappiness"].enabled = false;
  other.benchmark_cpus = "2-3";
  auto next = make_tuner(fs, nullptr, save, clock, other);
  REQUIRE(next->has_save());
  REQUIRE(next->restore().ok());
  auto after = snapshot(fs, kIntelPaths);
  for (const auto& [path, value] : before) {
    INFO(path);
    // THP was "always [madvise] never"; the kernel shows it that way again
    // after "madvise" is written. The fake keeps what was written.
    if (path.find("transparent_hugepage") != std::string::npos)
      CHECK(after[path] == "madvise\n");
    else
      CHECK(after[path] == value);
  }
  CHECK_FALSE(path_exists(save));
}

TEST_CASE("without systemd as PID 1, Intel reports what cannot be done and does the rest") {
  auto fs = load("intel");
  FakeClock clock;
  TempDir dir;
  auto tuner = make_tuner(fs, nullptr, dir.path + "/s.json", clock);
  auto applied = tuner->apply();
  REQUIRE(applied.ok());
  CHECK(applied->state == State::partial);
  const Row& shield = row(*applied, "shielding");
  CHECK_FALSE(shield.ok);
  CHECK_FALSE(shield.supported);
  CHECK(shield.reason.find("systemd is not PID 1") != std::string::npos);
  const Row& irqb = row(*applied, "irqbalance");
  CHECK_FALSE(irqb.ok);
  CHECK(irqb.reason.find("pid 812") != std::string::npos);
  CHECK(row(*applied, "swappiness").ok);
  CHECK(row(*applied, "irq_affinity").ok);
}

TEST_CASE("AMD bare metal: per-policy boost and a cgroup v1 cpuset hierarchy") {
  auto fs = load("amd");
  FakeClock clock;
  TempDir dir;
  std::string save = dir.path + "/s.json";
  Profile p = default_profile();
  p.benchmark_cpus = "6-7";
  auto tuner = make_tuner(fs, nullptr, save, clock, p);
  auto checked = tuner->check();
  REQUIRE(checked.ok());
  CHECK(row(*checked, "thp").actual == "always");
  CHECK(row(*checked, "irq_affinity").actual.find("9/9 differ: default=ff") == 0);
  const Row& cmd = row(*checked, "kernel_cmdline");
  CHECK(cmd.actual.find("isolcpus=domain,managed_irq,7") != std::string::npos);
  CHECK(cmd.reason.find("isolcpus=6-7") != std::string::npos);   // 7 alone does not cover 6-7
  CHECK(cmd.reason.find("rcu_nocbs=6-7") != std::string::npos);

  auto applied = tuner->apply();
  REQUIRE(applied.ok());
  for (const auto& r : applied->rows) {
    INFO(r.name << ": " << r.actual << " / " << r.reason);
    CHECK((r.ok || r.advisory));
  }
  CHECK(applied->state == State::tuned);
  CHECK(fs.read("/sys/devices/system/cpu/cpufreq/policy7/boost").value() == "0\n");
  CHECK(fs.read("/sys/devices/system/cpu/cpufreq/policy0/boost").value() == "0\n");
  CHECK(fs.read("/proc/irq/27/smp_affinity").value() == "3f\n");
  CHECK(fs.read(std::string(kCpusetHousekeeping) + "/cpuset.cpus").value() == "0-5\n");
  CHECK(fs.read(std::string(kCpusetBench) + "/cpuset.cpus").value() == "6-7\n");
  CHECK(fs.read(std::string(kCpusetHousekeeping) + "/tasks").value() == "1\n2\n315\n4021\n");
  CHECK(fs.read(std::string(kCpusetRoot) + "/tasks").value().empty());
  CHECK(row(*applied, "shielding").actual == "housekeeping=0-5 benchmark=6-7");

  REQUIRE(tuner->restore().ok());
  CHECK_FALSE(fs.exists(kCpusetHousekeeping));
  CHECK_FALSE(fs.exists(kCpusetBench));
  CHECK(fs.read(std::string(kCpusetRoot) + "/tasks").value() == "1\n2\n315\n4021\n");
  CHECK(fs.read("/sys/devices/system/cpu/cpufreq/policy7/boost").value() == "1\n");
  CHECK(fs.read("/proc/irq/27/smp_affinity").value() == "80\n");
  CHECK(tuner->check()->fingerprint == checked->fingerprint);
}

TEST_CASE("unsupported and read-only items are reported and do not stop the others") {
  auto fs = load("intel");
  fs.remove("/sys/devices/system/cpu/cpu3/cpufreq");
  fs.remove("/sys/devices/system/cpu/intel_pstate");
  fs.put("/sys/devices/system/cpu/smt/control", "notsupported\n");
  fs.set_read_only("/proc/sys/vm/swappiness");
  fs.fail_writes("/proc/irq/0/smp_affinity", EIO);
  FakeClock clock;
  TempDir dir;
  auto tuner = make_tuner(fs, nullptr, dir.path + "/s.json", clock);
  auto applied = tuner->apply();
  REQUIRE(applied.ok());
  CHECK(applied->state == State::partial);
  const Row& gov = row(*applied, "governor");
  CHECK_FALSE(gov.supported);
  CHECK(gov.reason.find("no cpufreq driver") != std::string::npos);
  CHECK(row(*applied, "boost").reason.find("no boost control") != std::string::npos);
  const Row& smt = row(*applied, "smt");
  CHECK(smt.ok);
  CHECK(smt.actual == "notsupported");
  const Row& sw = row(*applied, "swappiness");
  CHECK_FALSE(sw.ok);
  CHECK(sw.reason.find("could not apply") != std::string::npos);
  CHECK(sw.reason.find("Read-only") != std::string::npos);
  const Row& irq = row(*applied, "irq_affinity");
  CHECK_FALSE(irq.ok);
  CHECK(irq.actual == "1/9 differ: irq0=f");
  CHECK(irq.reason.find("Input/output error") != std::string::npos);
  CHECK(row(*applied, "aslr").ok);
  CHECK(row(*applied, "nmi_watchdog").ok);
  CHECK(fs.read("/proc/irq/1/smp_affinity").value() == "7\n");
  // Restoring a read-only file that was never changed has nothing to undo.
  REQUIRE(tuner->restore().ok());
}

TEST_CASE("a restore that cannot write keeps the entry for the next try") {
  auto fs = load("intel");
  FakeClock clock;
  TempDir dir;
  std::string save = dir.path + "/s.json";
  auto tuner = make_tuner(fs, nullptr, save, clock);
  REQUIRE(tuner->apply().ok());
  fs.set_read_only("/proc/sys/vm/swappiness");
  auto r = tuner->restore();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("/proc/sys/vm/swappiness") != std::string::npos);
  auto kept = load_save(save);
  REQUIRE(kept.ok());
  REQUIRE((*kept)->entries.size() == 1);
  CHECK((*kept)->entries[0].original == "60");
  CHECK(fs.read("/proc/sys/kernel/randomize_va_space").value() == "2\n");  // the rest came back
}

TEST_CASE("fingerprints follow the effective settings and the host") {
  FakeClock clock;
  TempDir dir;
  auto a = load("intel");
  auto b = load("intel");
  auto ta = make_tuner(a, nullptr, dir.path + "/a.json", clock);
  auto tb = make_tuner(b, nullptr, dir.path + "/b.json", clock);
  std::string fa = ta->check()->fingerprint;
  CHECK(fa.size() == 64);
  CHECK(tb->check()->fingerprint == fa);
  b.put("/proc/cpuinfo", "model name\t: 13th Gen Intel(R) Core(TM) i7-13700K\nmicrocode\t: 0x120\n");
  CHECK(tb->check()->fingerprint != fa);
  a.put("/proc/sys/vm/swappiness", "59\n");
  CHECK(ta->check()->fingerprint != fa);
}

TEST_CASE("a tuner refuses bad CPU lists and broken save files") {
  auto fs = load("intel");
  FakeClock clock;
  TempDir dir;
  Tuner::Options o;
  o.fs = &fs;
  o.clock = &clock;
  o.save_path = dir.path + "/s.json";
  o.profile.benchmark_cpus = "4";
  auto bad = Tuner::create(o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("CPU 4 is not online (online: 0-3)") != std::string::npos);

  REQUIRE(write_file_atomic(o.save_path, "{not json").ok());
  o.profile.benchmark_cpus = "";
  auto broken = Tuner::create(o);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message.find(o.save_path) != std::string::npos);
}

TEST_CASE("the real filesystem under a fake root: apply and restore a copied tree") {
  TempDir dir;
  REQUIRE(std::system(("cp -a " + fixture("intel") + " " + dir.path + "/root").c_str()) == 0);
  auto fs = sys::open_root(dir.path + "/root");
  FakeClock clock;
  auto tuner = make_tuner(*fs, nullptr, dir.path + "/s.json", clock);
  REQUIRE(tuner->apply().ok());
  CHECK(read_file(dir.path + "/root/proc/sys/vm/swappiness").value() == "10\n");
  REQUIRE(tuner->restore().ok());
  CHECK(read_file(dir.path + "/root/proc/sys/vm/swappiness").value() == "60\n");
  // Every file is as it was, except THP, which the kernel would show as
  // "always [madvise] never" again but a plain file keeps as "madvise".
  CHECK(std::system(("diff -r -x enabled " + fixture("intel") + " " + dir.path + "/root").c_str()) == 0);
  CHECK(read_file(dir.path + "/root/sys/kernel/mm/transparent_hugepage/enabled").value() == "madvise\n");
}
