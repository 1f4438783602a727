// benchbox-tunerd on a private bus against a copy of the fake Intel tree:
// the bus contract, drift, restore on stop, restore-first after kill -9, the
// caller check in the daemon and in the D-Bus policy, bad profiles.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>

#include <unistd.h>

#include "harness.h"
#include "tunerd_support.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;

namespace {

std::string fresh_tree(const TempDir& dir, const std::string& name = "intel") {
  std::string root = dir / "root";
  REQUIRE(run_shell("cp -a " + source_root() + "/tests/fixtures/sysfs/" + name + " " + root) == 0);
  return root;
}

bool same_tree(const std::string& a, const std::string& b) {
  // THP comes back as the selected word ("madvise"), which a kernel shows
  // as "always [madvise] never" again; everything else is byte for byte.
  return run_shell("diff -r -x enabled " + a + " " + b + " >/dev/null") == 0;
}

std::string value(const std::string& root, const std::string& path) { return read_file(root + path).value(); }

}  // namespace

TEST_CASE("Check is read-only and Apply/Verify/Restore follow the contract") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  std::string fixture = source_root() + "/tests/fixtures/sysfs/intel";
  auto tunerd = start_tunerd(bus.address(), write_tunerd_config(dir.path(), root, "", 1), dir / "tunerd.log");
  TunerClient client(bus.address());
  REQUIRE(client.name_owned());
  INFO(tunerd->log());

  auto check = client.call("Check");
  REQUIRE(check.error_name == "");
  CHECK(check.items.size() == 14);
  CHECK(check.fingerprint.size() == 64);
  CHECK(check.find("swappiness")->actual == "60");
  CHECK_FALSE(check.find("swappiness")->ok);
  CHECK(client.state() == "untuned");
  CHECK(same_tree(fixture, root));
  CHECK(client.last_verify() > 0);  // the start-up verify

  client.watch_drifted();
  auto applied = client.call("Apply");
  REQUIRE(applied.error_name == "");
  CHECK(applied.find("swappiness")->ok);
  CHECK(applied.find("aslr")->ok);
  CHECK(applied.find("irq_affinity")->ok);
  // No systemd here: shielding (cgroup v2) and irqbalance are honest "no".
  CHECK_FALSE(applied.find("shielding")->ok);
  CHECK(applied.find("shielding")->reason.find("systemd is not PID 1") != std::string::npos);
  CHECK(client.state() == "partial");
  CHECK(value(root, "/proc/sys/vm/swappiness") == "10\n");
  CHECK(path_exists(dir / "state/tuner/originals.json"));
  CHECK(applied.fingerprint != check.fingerprint);

  // Somebody changes swappiness: the 1 s timer notices and says so.
  REQUIRE(write_file_atomic(root + "/proc/sys/vm/swappiness", "60\n").ok());
  auto drifted = client.wait_drifted(15000);
  CHECK(drifted == std::vector<std::string>{"swappiness"});
  CHECK(client.state() == "drifted");
  auto verified = client.call("Verify");
  REQUIRE(verified.error_name == "");
  CHECK(verified.find("swappiness")->reason.find("drifted") != std::string::npos);

  auto restored = client.call("Restore");
  REQUIRE(restored.error_name == "");
  CHECK(client.state() == "untuned");
  CHECK(restored.fingerprint == check.fingerprint);
  CHECK(same_tree(fixture, root));
  CHECK_FALSE(path_exists(dir / "state/tuner/originals.json"));
}

TEST_CASE("SIGTERM restores; kill -9 leaves a save that the next start restores first") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  std::string fixture = source_root() + "/tests/fixtures/sysfs/intel";
  std::string config = write_tunerd_config(dir.path(), root, "");

  {
    auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd1.log");
    TunerClient client(bus.address());
    REQUIRE(client.call("Apply").error_name == "");
    CHECK(value(root, "/proc/sys/kernel/randomize_va_space") == "0\n");
    CHECK(tunerd->terminate() == 0);
    INFO(tunerd->log());
    CHECK(same_tree(fixture, root));
    CHECK_FALSE(path_exists(dir / "state/tuner/originals.json"));
  }
  {
    auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd2.log");
    TunerClient client(bus.address());
    REQUIRE(client.call("Apply").error_name == "");
    tunerd->kill_hard();
    CHECK(value(root, "/proc/sys/kernel/randomize_va_space") == "0\n");  // nobody restored
    REQUIRE(path_exists(dir / "state/tuner/originals.json"));
  }
  auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd3.log");
  TunerClient client(bus.address());
  REQUIRE(client.name_owned());
  INFO(tunerd->log());
  CHECK(same_tree(fixture, root));
  CHECK(client.state() == "untuned");
  CHECK_FALSE(path_exists(dir / "state/tuner/originals.json"));
  CHECK(tunerd->log().find("restoring them first") != std::string::npos);
}

TEST_CASE("restore_on_stop: false keeps the tuning across a stop") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  std::string config = write_tunerd_config(dir.path(), root, "restore_on_stop: false\n");
  auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd.log");
  TunerClient client(bus.address());
  REQUIRE(client.call("Apply").error_name == "");
  CHECK(tunerd->terminate() == 0);
  CHECK(value(root, "/proc/sys/vm/swappiness") == "10\n");
  CHECK(path_exists(dir / "state/tuner/originals.json"));
}

TEST_CASE("only root and group benchbox change the host: the daemon checks, and so does the policy") {
  TempDir dir;
  std::string root = fresh_tree(dir);
  std::string fixture = source_root() + "/tests/fixtures/sysfs/intel";
  std::string config = write_tunerd_config(dir.path(), root, "");
  std::string out;
  {
    // A bus that lets everyone call everything: the daemon's own check.
    OpenBus bus(dir.path());
    auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd.log");
    std::string busctl = "busctl --address=" + bus.address() +
                         " call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 ";
    CHECK(run_as_nobody(busctl + "Apply", &out) != 0);
    CHECK(out.find("Access denied") != std::string::npos);
    CHECK(run_as_nobody(busctl + "Restore", &out) != 0);
    CHECK(out.find("Access denied") != std::string::npos);
    CHECK(tunerd->log().find("refused a bus call: Apply is for root and group 'benchbox-admin'; the caller is uid 65534") !=
          std::string::npos);
    CHECK(tunerd->log().find("refused a bus call: Restore is for root") != std::string::npos);
    // Only the runner user moves a command into the benchmark cpuset.
    CHECK(run_as_nobody(busctl + "AdmitToBench u " + std::to_string(::getpid()), &out) != 0);
    CHECK(out.find("Access denied") != std::string::npos);
    CHECK(tunerd->log().find("refused a bus call: AdmitToBench is for root, group 'benchbox-admin' and user "
                             "'benchbox-runner'") != std::string::npos);
    // Root may ask; without v1 shielding applied there is no cpuset to move to.
    CHECK(run_shell(busctl + "AdmitToBench u " + std::to_string(::getpid()) + " >" + (dir / "admit.out") + " 2>&1") != 0);
    CHECK(slurp(dir / "admit.out").find("not applied") != std::string::npos);
    CHECK(run_as_nobody(busctl + "Check", &out) == 0);
    CHECK(same_tree(fixture, root));
    CHECK(run_shell(busctl + "Apply >/dev/null") == 0);  // root may
    CHECK(value(root, "/proc/sys/vm/swappiness") == "10\n");
    CHECK(tunerd->terminate() == 0);
  }
  {
    // The shipped policy file: the bus refuses before the daemon is asked.
    TempDir bus_dir;
    OpenBus bus(bus_dir.path(), source_root() + "/policy/org.benchbox.Tuner1.conf");
    auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd2.log");
    REQUIRE(TunerClient(bus.address()).name_owned());
    std::string busctl = "busctl --address=" + bus.address() +
                         " call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 ";
    CHECK(run_as_nobody(busctl + "Apply", &out) != 0);
    CHECK(out.find("Access denied") != std::string::npos);
    CHECK(run_as_nobody(busctl + "AdmitToBench u 4242", &out) != 0);
    CHECK(out.find("Access denied") != std::string::npos);
    CHECK(tunerd->log().find("refused") == std::string::npos);  // the bus said no, not the daemon
    CHECK(run_as_nobody(busctl + "Check", &out) == 0);
  }
}

TEST_CASE("a bad profile or CPU list stops the daemon with a message naming the file") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  struct Case {
    const char* profile;
    const char* expect;
  };
  for (const auto& c : std::vector<Case>{
           {"cpus:\n  benchmark: \"9\"\n", "CPU 9 is not online (online: 0-3)"},
           {"cpus:\n  benchmark: \"0-3\"\n", "no housekeeping CPU is left"},
           {"items:\n  aslr: 7\n", "tuning.yml:2:9: items.aslr: expected an integer 0-2"},
       }) {
    auto tunerd = start_tunerd(bus.address(), write_tunerd_config(dir.path(), root, c.profile), dir / "bad.log");
    REQUIRE(wait_until([&] { return !tunerd->running(); }));
    INFO(tunerd->log());
    CHECK(tunerd->log().find(c.expect) != std::string::npos);
    CHECK_FALSE(TunerClient(bus.address()).name_owned());
  }
}

TEST_CASE("benchboxctl tune prints the checklist and exits 0/1/2") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  std::string ctl = "DBUS_SYSTEM_BUS_ADDRESS=" + bus.address() + " NO_COLOR=1 " + build_path("cli/benchboxctl");
  std::string out;
  auto sh = [&](const std::string& cmd) {
    out.clear();
    return run_shell(cmd, &out);
  };
  CHECK(sh(ctl + " tune check 2>&1") == 2);  // not running yet
  CHECK(out.find("benchbox-tunerd is not running") != std::string::npos);

  auto tunerd = start_tunerd(bus.address(), write_tunerd_config(dir.path(), root, "items:\n  shielding: false\n"
                                                                                  "  irqbalance: false\n"
                                                                                  "  kernel_cmdline: false\n"),
                             dir / "tunerd.log");
  CHECK(sh(ctl + " tune check") == 1);  // untuned: items differ
  CHECK(out.find("ITEM") == 0);
  CHECK(out.find("\nswappiness ") != std::string::npos);
  CHECK(out.find(" 60 ") != std::string::npos);
  CHECK(out.find("state:       untuned") != std::string::npos);
  CHECK(run_as_nobody(ctl + " tune apply", &out) == 2);
  CHECK(out.find("Apply is for root and group 'benchbox-admin'") != std::string::npos);
  CHECK(sh(ctl + " tune apply") == 0);  // every enabled item holds on the fake Intel box
  CHECK(out.find("state:       tuned") != std::string::npos);
  CHECK(out.find("\033[") == std::string::npos);  // no colour when not a terminal
  CHECK(sh(ctl + " tune check --json") == 0);
  CHECK(out.find("\"state\": \"tuned\"") != std::string::npos);
  CHECK(run_shell(ctl + " tune restore >/dev/null") == 1);
  CHECK(run_shell(ctl + " tune bogus 2>/dev/null") == 2);
}

TEST_CASE("SIGHUP reloads the profile; a broken one keeps the old in force") {
  TempDir dir;
  OpenBus bus(dir.path());
  std::string root = fresh_tree(dir);
  std::string config = write_tunerd_config(dir.path(), root, "items:\n  swappiness: {enabled: true, value: 10}\n");
  auto tunerd = start_tunerd(bus.address(), config, dir / "tunerd.log");
  TunerClient client(bus.address());
  auto before = client.call("Check");
  REQUIRE(before.error_name == "");
  REQUIRE(before.find("swappiness"));
  CHECK(before.find("swappiness")->wanted == "10");

  write_tunerd_config(dir.path(), root, "items:\n  swappiness: {enabled: true, value: 5}\n");
  ::kill(tunerd->pid(), SIGHUP);
  INFO(tunerd->log());
  REQUIRE(wait_until([&] {
    auto r = client.call("Check");
    return r.find("swappiness") && r.find("swappiness")->wanted == "5";
  }));

  write_tunerd_config(dir.path(), root, "items:\n  swappiness: {enabled: maybe}\n");
  ::kill(tunerd->pid(), SIGHUP);
  REQUIRE(wait_until([&] { return tunerd->log().find("keeping the old configuration") != std::string::npos; }));
  CHECK(tunerd->running());
  CHECK(client.call("Check").find("swappiness")->wanted == "5");
}
