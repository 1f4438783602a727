// ScopeRunner against a fake org.freedesktop.systemd1 on a private
// dbus-daemon: what it asks PID 1 for, in which order (pinned before the
// scope exists, exec only after), and how it stops a scope. The real PID 1
// is exercised by tests/system (systemd-nspawn).
#include <catch2/catch.hpp>
#include "skip.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "exec/test_scratch.h"
#include "exec/scope_runner.h"
#include "util/cpu_list.h"
#include "util/file.h"

using namespace bb;
using namespace bb::exec;
using namespace std::chrono_literals;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string status_field(pid_t pid, const std::string& field) {
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) {
      auto v = line.substr(field.size() + 1);
      return v.substr(v.find_first_not_of(" \t"));
    }
  return "";
}

// A private dbus-daemon for one test, killed by pid at the end.
struct PrivateBus {
  std::string address;
  pid_t pid = 0;
  PrivateBus() {
    FILE* p = ::popen("dbus-daemon --session --fork --print-address=1 --print-pid=1 --nopidfile", "r");
    REQUIRE(p);
    char line[512];
    if (std::fgets(line, sizeof line, p)) address = line;
    if (std::fgets(line, sizeof line, p)) pid = std::atoi(line);
    ::pclose(p);
    while (!address.empty() && address.back() == '\n') address.pop_back();
    REQUIRE(!address.empty());
    REQUIRE(pid > 0);
  }
  ~PrivateBus() {
    if (pid > 0) ::kill(pid, SIGTERM);
  }
};

// What a fake PID 1 saw and does. Served on its own thread.
struct FakeSystemd {
  struct Unit {
    std::string slice;
    std::vector<uint32_t> pids;
    bool delegate = true;
    std::vector<uint8_t> allowed_cpus;
    bool has_allowed_cpus = false;
    std::string cpus_at_start;  // the child's Cpus_allowed_list when the scope was made
    std::string exe_at_start;   // what the child was running then
  };
  std::mutex mutex;
  std::map<std::string, Unit> started;
  std::set<std::string> alive;
  std::vector<std::string> calls;  // "StopUnit benchbox-job-1-1.scope", ...
  std::string refuse;              // StartTransientUnit fails for this unit
  uint32_t next_job = 1;
  // What PID 1 does to the cgroup tree when it makes a scope (the test's
  // fake /proc and /sys/fs/cgroup); runs on the fake's thread.
  std::function<void(const std::string& unit, pid_t pid)> on_start;

  std::atomic<bool> quit{false};
  std::thread thread;
  std::atomic<bool> ready{false};

  explicit FakeSystemd(const std::string& address) {
    thread = std::thread([this, address] { serve(address); });
    for (int i = 0; i < 500 && !ready; ++i) std::this_thread::sleep_for(10ms);
    REQUIRE(ready);
  }
  ~FakeSystemd() {
    quit = true;
    thread.join();
  }

  static FakeSystemd* self(void* userdata) { return static_cast<FakeSystemd*>(userdata); }

  std::string reply_job(sd_bus_message* m, const std::string& unit) {
    std::string job = "/org/freedesktop/systemd1/job/" + std::to_string(next_job);
    uint32_t id = next_job++;
    sd_bus_reply_method_return(m, "o", job.c_str());
    sd_bus_emit_signal(sd_bus_message_get_bus(m), "/org/freedesktop/systemd1",
                       "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss", id, job.c_str(),
                       unit.c_str(), "done");
    return job;
  }

  static int start_transient(sd_bus_message* m, void* userdata, sd_bus_error* error) {
    auto* f = self(userdata);
    const char *name = nullptr, *mode = nullptr;
    sd_bus_message_read(m, "ss", &name, &mode);
    Unit u;
    sd_bus_message_enter_container(m, 'a', "(sv)");
    while (sd_bus_message_enter_container(m, 'r', "sv") > 0) {
      const char* key = nullptr;
      sd_bus_message_read(m, "s", &key);
      std::string k = key;
      if (k == "Slice") {
        const char* v;
        sd_bus_message_read(m, "v", "s", &v);
        u.slice = v;
      } else if (k == "PIDs") {
        sd_bus_message_enter_container(m, 'v', "au");
        sd_bus_message_enter_container(m, 'a', "u");
        uint32_t pid;
        while (sd_bus_message_read(m, "u", &pid) > 0) u.pids.push_back(pid);
        sd_bus_message_exit_container(m);
        sd_bus_message_exit_container(m);
      } else if (k == "Delegate") {
        int b;
        sd_bus_message_read(m, "v", "b", &b);
        u.delegate = b;
      } else if (k == "AllowedCPUs") {
        const void* data;
        size_t size;
        sd_bus_message_enter_container(m, 'v', "ay");
        sd_bus_message_read_array(m, 'y', &data, &size);
        sd_bus_message_exit_container(m);
        u.has_allowed_cpus = true;
        u.allowed_cpus.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
      } else {
        sd_bus_message_skip(m, "v");
      }
      sd_bus_message_exit_container(m);
    }
    std::lock_guard lock(f->mutex);
    if (f->refuse == name)
      return sd_bus_error_set(error, "org.freedesktop.DBus.Error.AccessDenied", "refused by the fake");
    if (!u.pids.empty()) {
      pid_t pid = static_cast<pid_t>(u.pids[0]);
      u.cpus_at_start = status_field(pid, "Cpus_allowed_list");
      char buf[4096] = {};
      ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
      if (n > 0) u.exe_at_start.assign(buf, static_cast<size_t>(n));
    }
    f->started[name] = u;
    if (f->on_start && !u.pids.empty()) f->on_start(name, static_cast<pid_t>(u.pids[0]));
    f->alive.insert(name);
    f->calls.push_back(std::string("StartTransientUnit ") + name);
    f->reply_job(m, name);
    return 1;
  }

  // Signals the scope's first process group, as PID 1 would signal the cgroup.
  void signal_unit(const std::string& unit, int sig) {
    auto it = started.find(unit);
    if (it != started.end() && !it->second.pids.empty()) ::killpg(static_cast<pid_t>(it->second.pids[0]), sig);
  }

  static int stop_unit(sd_bus_message* m, void* userdata, sd_bus_error* error) {
    auto* f = self(userdata);
    const char *name = nullptr, *mode = nullptr;
    sd_bus_message_read(m, "ss", &name, &mode);
    std::lock_guard lock(f->mutex);
    f->calls.push_back(std::string("StopUnit ") + name);
    if (!f->alive.count(name))
      return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.", name);
    f->signal_unit(name, SIGTERM);
    f->alive.erase(name);
    f->reply_job(m, name);
    return 1;
  }

  static int kill_unit(sd_bus_message* m, void* userdata, sd_bus_error*) {
    auto* f = self(userdata);
    const char *name = nullptr, *who = nullptr;
    int sig = 0;
    sd_bus_message_read(m, "ssi", &name, &who, &sig);
    std::lock_guard lock(f->mutex);
    f->calls.push_back(std::string("KillUnit ") + name + " " + std::to_string(sig));
    f->signal_unit(name, sig);
    return sd_bus_reply_method_return(m, "");
  }

  static int get_unit(sd_bus_message* m, void* userdata, sd_bus_error* error) {
    auto* f = self(userdata);
    const char* name = nullptr;
    sd_bus_message_read(m, "s", &name);
    std::lock_guard lock(f->mutex);
    f->calls.push_back(std::string("GetUnit ") + name);
    // A real scope is collected once its processes are gone; the fake keeps
    // it until StopUnit, so the runner's clean-up path is always taken.
    if (!f->alive.count(name))
      return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.", name);
    return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/unit/x");
  }

  void serve(const std::string& address) {
    sd_bus* bus = nullptr;
    sd_bus_new(&bus);
    sd_bus_set_address(bus, address.c_str());
    sd_bus_set_bus_client(bus, 1);
    if (sd_bus_start(bus) < 0) return;
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", [](sd_bus*, const char*, const char*, const char*, sd_bus_message* reply,
                                           void*, sd_bus_error*) { return sd_bus_message_append(reply, "s", "fake"); },
                        0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", start_transient, 0),
        SD_BUS_METHOD("StopUnit", "ss", "o", stop_unit, 0),
        SD_BUS_METHOD("KillUnit", "ssi", "", kill_unit, 0),
        SD_BUS_METHOD("GetUnit", "s", "o", get_unit, 0),
        SD_BUS_VTABLE_END};
    sd_bus_add_object_vtable(bus, nullptr, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                             vtable, this);
    if (sd_bus_request_name(bus, "org.freedesktop.systemd1", 0) < 0) return;
    ready = true;
    while (!quit) {
      int r = sd_bus_process(bus, nullptr);
      if (r < 0) break;
      if (r > 0) continue;
      sd_bus_wait(bus, 50000);
    }
    sd_bus_flush_close_unref(bus);
  }
};

// Points sd_bus_open_system() at a private bus for one test.
struct SystemBusOverride {
  explicit SystemBusOverride(const std::string& address) { ::setenv("DBUS_SYSTEM_BUS_ADDRESS", address.c_str(), 1); }
  ~SystemBusOverride() { ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS"); }
};

int last_cpu() {
  cpu_set_t set;
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  int last = 0;
  for (int i = 0; i < CPU_SETSIZE; ++i)
    if (CPU_ISSET(i, &set)) last = i;
  return last;
}

using bb::exec::test::no_children_left;

ScopeOptions quiet_options() {
  ScopeOptions o;
  o.kill_grace = 300ms;
  o.systemd_timeout = 5s;
  return o;
}

using bb::test::TempDir;

}  // namespace

TEST_CASE("a command runs in its scope, pinned before the scope exists and exec'd only after") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  const int cpu = last_cpu();

  ScopeRunner runner(quiet_options());
  Command c;
  c.shell = "echo hello; grep Cpus_allowed_list /proc/self/status";
  c.cpus = {cpu};
  c.unit_name = "benchbox-job-7-1.scope";
  c.log_fields = {{"JOB_ID", "7"}};
  auto o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK(o->success());
  CHECK(o->stdout_text.rfind("hello\n", 0) == 0);
  CHECK(o->stdout_text.find("Cpus_allowed_list:\t" + std::to_string(cpu) + "\n") != std::string::npos);
  CHECK(o->isolation == "scope:benchbox-bench.slice/benchbox-job-7-1.scope;affinity:" + std::to_string(cpu));

  std::lock_guard lock(fake.mutex);
  REQUIRE(fake.started.count("benchbox-job-7-1.scope"));
  const auto& u = fake.started["benchbox-job-7-1.scope"];
  CHECK(u.slice == "benchbox-bench.slice");
  REQUIRE(u.pids.size() == 1);
  CHECK_FALSE(u.delegate);
  CHECK_FALSE(u.has_allowed_cpus);  // not asked for: no cgroup-v2 cpuset here
  CHECK(u.cpus_at_start == std::to_string(cpu));
  // Still the forked test binary, not /bin/sh: it waited at the gate.
  char self[4096] = {};
  REQUIRE(::readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  CHECK(u.exe_at_start == self);
  // The scope is stopped afterwards (the fake never collects it by itself).
  CHECK(fake.alive.empty());
  CHECK(no_children_left());
}

TEST_CASE("peak memory is the scope's cgroup memory.peak where the kernel has one, else ru_maxrss") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  TempDir root;
  fake.on_start = [&](const std::string& unit, pid_t pid) {
    const std::string cg = "/benchbox.slice/benchbox-bench.slice/" + unit;
    std::system(("mkdir -p '" + root.path + "/proc/" + std::to_string(pid) + "' '" + root.path +
                 "/sys/fs/cgroup" + cg + "'")
                    .c_str());
    // On the fake's thread: no REQUIRE here; the checks below see a miss.
    (void)write_file_atomic(root.path + "/proc/" + std::to_string(pid) + "/cgroup", "0::" + cg + "\n");
    if (unit == "benchbox-job-8-1.scope")
      (void)write_file_atomic(root.path + "/sys/fs/cgroup" + cg + "/memory.peak", "123456789\n");
  };
  ScopeOptions options = quiet_options();
  options.root = root.path;
  ScopeRunner runner(options);
  Command c;
  c.shell = "true";
  c.unit_name = "benchbox-job-8-1.scope";
  auto o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK(o->memory_source == "cgroup memory.peak");
  CHECK(o->peak_memory_bytes == 123456789);
  c.unit_name = "benchbox-job-8-2.scope";  // a kernel without memory.peak
  o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK(o->memory_source == "ru_maxrss");
  CHECK(o->peak_memory_bytes > 0);
}

TEST_CASE("AllowedCPUs= is sent as a CPU bitmask when the cpuset controller applies") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  auto options = quiet_options();
  options.allowed_cpus = true;
  ScopeRunner runner(options);
  Command c;
  c.shell = "true";
  c.cpus = {last_cpu()};
  c.unit_name = "benchbox-job-8-2.scope";
  auto o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK(o->success());
  CHECK(o->isolation.find(";allowed-cpus+affinity:") != std::string::npos);
  std::lock_guard lock(fake.mutex);
  const auto& u = fake.started["benchbox-job-8-2.scope"];
  REQUIRE(u.has_allowed_cpus);
  const int cpu = last_cpu();
  REQUIRE(u.allowed_cpus.size() == static_cast<size_t>(cpu / 8 + 1));
  CHECK(u.allowed_cpus.back() == (1u << (cpu % 8)));
}

TEST_CASE("a timeout stops the scope, and everything in it goes") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  ScopeRunner runner(quiet_options());
  Command c;
  c.shell = "sleep 100";
  c.timeout = 300ms;
  c.unit_name = "benchbox-job-9-1.scope";
  auto o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK(o->timed_out);
  CHECK(o->describe().find("timed out") != std::string::npos);
  std::lock_guard lock(fake.mutex);
  REQUIRE(!fake.calls.empty());
  CHECK(std::count(fake.calls.begin(), fake.calls.end(), "StopUnit benchbox-job-9-1.scope") >= 1);
  CHECK(fake.alive.empty());
  CHECK(no_children_left());
}

TEST_CASE("a cancelled command's scope is stopped") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  ScopeRunner runner(quiet_options());
  Command c;
  c.shell = "sleep 100";
  c.unit_name = "benchbox-job-10-1.scope";
  std::atomic<bool> cancel{false}, scope_seen{false};
  std::thread canceller([&] {
    // Cancel once PID 1 (the fake) has the scope, or after 10 s anyway so
    // that run() returns and the test can fail.
    for (int i = 0; i < 1000 && !scope_seen; ++i) {
      {
        std::lock_guard lock(fake.mutex);
        scope_seen = fake.alive.count("benchbox-job-10-1.scope") > 0;
      }
      if (!scope_seen) std::this_thread::sleep_for(10ms);
    }
    cancel = true;
  });
  auto o = runner.run(c, &cancel);
  canceller.join();
  if (!scope_seen) FAIL("the fake never got StartTransientUnit for benchbox-job-10-1.scope within 10 s");
  REQUIRE(o);
  CHECK(o->cancelled);
  std::lock_guard lock(fake.mutex);
  CHECK(fake.calls[1] == "StopUnit benchbox-job-10-1.scope");
  CHECK(no_children_left());
}

TEST_CASE("when PID 1 refuses the scope, the command never runs") {
  PrivateBus bus;
  FakeSystemd fake(bus.address);
  SystemBusOverride env(bus.address);
  {
    std::lock_guard lock(fake.mutex);
    fake.refuse = "benchbox-job-11-1.scope";
  }
  TempDir dir;
  ScopeRunner runner(quiet_options());
  Command c;
  c.shell = "touch ran";
  c.cwd = dir.path;
  c.unit_name = "benchbox-job-11-1.scope";
  auto o = runner.run(c, nullptr);
  REQUIRE_FALSE(o);
  CHECK(o.error().message.find("refused by the fake") != std::string::npos);
  struct stat st;
  CHECK(::stat((dir.path + "/ran").c_str(), &st) != 0);
  CHECK(no_children_left());
}

TEST_CASE("without systemd on the bus the command never runs and the error says why") {
  PrivateBus bus;  // no org.freedesktop.systemd1 on it
  SystemBusOverride env(bus.address);
  TempDir dir;
  ScopeRunner runner(quiet_options());
  Command c;
  c.shell = "touch ran";
  c.cwd = dir.path;
  c.unit_name = "benchbox-job-12-1.scope";
  auto o = runner.run(c, nullptr);
  REQUIRE_FALSE(o);
  CHECK(o.error().message.find("benchbox-job-12-1.scope") != std::string::npos);
  struct stat st;
  CHECK(::stat((dir.path + "/ran").c_str(), &st) != 0);
  CHECK(no_children_left());
}

TEST_CASE("a scope name must be a unit name ending in .scope") {
  ScopeRunner runner(quiet_options());
  for (const char* bad : {"benchbox-job-1-1.service", "bad name.scope", ".scope", "a/b.scope"}) {
    Command c;
    c.shell = "true";
    c.unit_name = bad;
    auto o = runner.run(c, nullptr);
    REQUIRE_FALSE(o);
    CHECK(o.error().code == Errc::invalid_argument);
  }
}

TEST_CASE("the cgroup-v2 cpuset controller is detected from cgroup.controllers") {
  TempDir dir;
  CHECK_FALSE(cgroup2_cpuset_available(dir.path));  // no file: v1 or hybrid
  REQUIRE(std::system(("mkdir -p '" + dir.path + "/sys/fs/cgroup'").c_str()) == 0);
  std::ofstream(dir.path + "/sys/fs/cgroup/cgroup.controllers") << "cpu io memory pids\n";
  CHECK_FALSE(cgroup2_cpuset_available(dir.path));
  std::ofstream(dir.path + "/sys/fs/cgroup/cgroup.controllers") << "cpuset cpu io memory pids\n";
  CHECK(cgroup2_cpuset_available(dir.path));
}

TEST_CASE("without systemd as PID 1 the benchmark runner is the plain pinned child, and says so", "[host]") {
  if (sd_booted() > 0) {
    BB_SKIP("systemd is PID 1 here; the fallback cannot be observed");
  }
  auto choice = make_benchmark_runner(quiet_options());
  REQUIRE(choice.runner);
  CHECK_FALSE(choice.scopes);
  CHECK(choice.why.find("systemd is not PID 1") != std::string::npos);
  CHECK(choice.why.find("falls back to the plain pinned child") != std::string::npos);
  Command c;
  c.shell = "echo fallback";
  c.cpus = {last_cpu()};
  auto o = choice.runner->run(c, nullptr);
  REQUIRE(o);
  CHECK(o->stdout_text == "fallback\n");
  CHECK(o->isolation == "affinity:" + std::to_string(last_cpu()));
}
