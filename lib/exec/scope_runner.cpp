#include "exec/scope_runner.h"

#include <sched.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <set>

#include "bus/connect.h"
#include "bus/handles.h"
#include "exec/cgroup_memory.h"
#include "exec/pinned_runner.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::exec {

namespace {

constexpr const char* kSystemd = "org.freedesktop.systemd1";
constexpr const char* kSystemdPath = "/org/freedesktop/systemd1";
constexpr const char* kManager = "org.freedesktop.systemd1.Manager";

using Clock = std::chrono::steady_clock;

Error bus_error(const std::string& what, bus::BusError& e, int r) {
  if (e.is_set()) return make_error(Errc::unavailable, what + ": " + e.name() + ": " + e.message());
  return errno_error(what, -r).with_context("D-Bus");
}

bool valid_scope_name(const std::string& name) {
  static const std::string kSuffix = ".scope";
  if (name.size() <= kSuffix.size() || name.size() > 255) return false;
  if (name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' ||
          ch == ':' || ch == '\\'))
      return false;
  return true;
}

// AllowedCPUs= travels as a little-endian bitmask, one bit per CPU.
std::vector<uint8_t> cpu_mask_bytes(const std::vector<int>& cpus) {
  std::vector<uint8_t> mask;
  for (int cpu : cpus) {
    size_t byte = static_cast<size_t>(cpu) / 8;
    if (mask.size() <= byte) mask.resize(byte + 1, 0);
    mask[byte] |= static_cast<uint8_t>(1u << (cpu % 8));
  }
  return mask;
}

// One connection to PID 1 for one command. sd-bus objects belong to one
// thread; runnerd calls run() from its worker, so the connection is made
// here rather than shared with the daemon's main loop.
class Systemd {
 public:
  static Result<Systemd> connect(std::chrono::milliseconds timeout) {
    auto bus = bus::open_system_bus();
    if (!bus) return bus.error();
    Systemd s;
    s.bus_ = std::move(*bus);
    s.timeout_ = timeout;
    s.removed_ = std::make_unique<std::map<std::string, std::string>>();
    sd_bus_slot* slot = nullptr;
    // Every JobRemoved is recorded; a job's signal can arrive while the
    // call that created it is still waiting for its reply.
    int r = sd_bus_match_signal(s.bus_.get(), &slot, kSystemd, kSystemdPath, kManager, "JobRemoved",
                                on_job_removed, s.removed_.get());
    if (r < 0) return errno_error("watch systemd JobRemoved", -r);
    s.match_.reset(slot);
    return s;
  }

  // StartTransientUnit, then wait until its job is done.
  Status start_scope(const std::string& unit, const std::string& slice, const std::string& description,
                     pid_t pid, std::chrono::milliseconds stop_timeout,
                     const std::vector<uint8_t>* allowed_cpus) {
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_call(bus_.get(), &raw, kSystemd, kSystemdPath, kManager,
                                           "StartTransientUnit");
    if (r < 0) return errno_error("build StartTransientUnit", -r);
    bus::MessagePtr m(raw);
    const uint64_t stop_usec = static_cast<uint64_t>(stop_timeout.count()) * 1000;
    r = sd_bus_message_append(m.get(), "ss", unit.c_str(), "fail");
    if (r >= 0) r = sd_bus_message_open_container(m.get(), 'a', "(sv)");
    if (r >= 0)
      r = sd_bus_message_append(m.get(), "(sv)(sv)(sv)(sv)(sv)(sv)(sv)",
                                "Description", "s", description.c_str(),
                                "Slice", "s", slice.c_str(),
                                "PIDs", "au", 1, static_cast<uint32_t>(pid),
                                "Delegate", "b", 0,
                                "CollectMode", "s", "inactive-or-failed",
                                "TimeoutStopUSec", "t", stop_usec,
                                "SendSIGKILL", "b", 1);
    if (r >= 0 && allowed_cpus) {
      r = sd_bus_message_open_container(m.get(), 'r', "sv");
      if (r >= 0) r = sd_bus_message_append(m.get(), "s", "AllowedCPUs");
      if (r >= 0) r = sd_bus_message_open_container(m.get(), 'v', "ay");
      if (r >= 0) r = sd_bus_message_append_array(m.get(), 'y', allowed_cpus->data(), allowed_cpus->size());
      if (r >= 0) r = sd_bus_message_close_container(m.get());
      if (r >= 0) r = sd_bus_message_close_container(m.get());
    }
    if (r >= 0) r = sd_bus_message_close_container(m.get());
    if (r >= 0) r = sd_bus_message_append(m.get(), "a(sa(sv))", 0);
    if (r < 0) return errno_error("build StartTransientUnit", -r);

    bus::BusError error;
    sd_bus_message* reply_raw = nullptr;
    r = sd_bus_call(bus_.get(), m.get(), usec(timeout_), error.get(), &reply_raw);
    bus::MessagePtr reply(reply_raw);
    if (r < 0) return bus_error("start " + unit, error, r);
    const char* job = nullptr;
    if ((r = sd_bus_message_read(reply.get(), "o", &job)) < 0) return errno_error("read job path", -r);
    return wait_job(job, "start " + unit);
  }

  // StopUnit; `wait` also waits for the job. A unit that no longer exists
  // is already stopped.
  Status stop_unit(const std::string& unit, bool wait) {
    bus::BusError error;
    sd_bus_message* reply_raw = nullptr;
    int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "StopUnit", error.get(),
                               &reply_raw, "ss", unit.c_str(), "replace");
    bus::MessagePtr reply(reply_raw);
    if (r < 0) {
      if (error.is_set() && (sd_bus_error_has_name(error.get(), "org.freedesktop.systemd1.NoSuchUnit") ||
                             sd_bus_error_has_name(error.get(), "org.freedesktop.systemd1.LoadFailed")))
        return {};
      return bus_error("stop " + unit, error, r);
    }
    if (!wait) return {};
    const char* job = nullptr;
    if ((r = sd_bus_message_read(reply.get(), "o", &job)) < 0) return errno_error("read job path", -r);
    return wait_job(job, "stop " + unit);
  }

  Status kill_unit(const std::string& unit, int sig) {
    bus::BusError error;
    int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "KillUnit", error.get(),
                               nullptr, "ssi", unit.c_str(), "all", sig);
    if (r < 0) return bus_error("kill " + unit, error, r);
    return {};
  }

  // Whether PID 1 still has the unit loaded (a collected scope is gone).
  Result<bool> unit_exists(const std::string& unit) {
    bus::BusError error;
    int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "GetUnit", error.get(),
                               nullptr, "s", unit.c_str());
    if (r >= 0) return true;
    if (error.is_set() && sd_bus_error_has_name(error.get(), "org.freedesktop.systemd1.NoSuchUnit"))
      return false;
    return bus_error("look up " + unit, error, r);
  }

  Result<std::string> version() {
    bus::BusError error;
    char* text = nullptr;
    int r = sd_bus_get_property_string(bus_.get(), kSystemd, kSystemdPath, kManager, "Version",
                                       error.get(), &text);
    if (r < 0) return bus_error("read systemd version", error, r);
    std::string v = text;
    free(text);
    return v;
  }

 private:
  Systemd() = default;

  static uint64_t usec(std::chrono::milliseconds ms) { return static_cast<uint64_t>(ms.count()) * 1000; }

  static int on_job_removed(sd_bus_message* m, void* userdata, sd_bus_error*) {
    auto* removed = static_cast<std::map<std::string, std::string>*>(userdata);
    uint32_t id = 0;
    const char *job = nullptr, *unit = nullptr, *result = nullptr;
    if (sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0) return 0;
    try {
      (*removed)[job] = result;
    } catch (...) {
    }
    return 0;
  }

  Status wait_job(const std::string& job, const std::string& what) {
    const auto deadline = Clock::now() + timeout_;
    for (;;) {
      if (auto it = removed_->find(job); it != removed_->end()) {
        std::string result = it->second;
        removed_->erase(it);
        if (result == "done") return {};
        return make_error(Errc::unavailable, what + ": systemd job result '" + result + "'");
      }
      int r = sd_bus_process(bus_.get(), nullptr);
      if (r < 0) return errno_error(what + ": D-Bus", -r);
      if (r > 0) continue;
      auto now = Clock::now();
      if (now >= deadline)
        return make_error(Errc::timeout, what + ": no JobRemoved from systemd within " +
                                             std::to_string(timeout_.count()) + " ms");
      auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now).count();
      r = sd_bus_wait(bus_.get(), static_cast<uint64_t>(left));
      if (r < 0 && r != -EINTR) return errno_error(what + ": D-Bus", -r);
    }
  }

  bus::BusPtr bus_;
  bus::SlotPtr match_;
  std::unique_ptr<std::map<std::string, std::string>> removed_;
  std::chrono::milliseconds timeout_{};
};

std::string short_command(const std::string& shell) {
  std::string s = shell.substr(0, 80);
  for (char& ch : s)
    if (ch == '\n' || ch == '\t') ch = ' ';
  return shell.size() > 80 ? s + "..." : s;
}

}  // namespace

bool cgroup2_cpuset_available(const std::string& root) {
  std::string base = root == "/" ? "" : root;
  auto controllers = read_file(base + "/sys/fs/cgroup/cgroup.controllers", 4096);
  if (!controllers) return false;
  for (const auto& word : split(trim(*controllers), ' '))
    if (word == "cpuset") return true;
  return false;
}

std::string ScopeRunner::describe() const {
  return "scope:" + options_.slice + (options_.allowed_cpus ? " (AllowedCPUs= and affinity)" : " (affinity)");
}

Result<Outcome> ScopeRunner::run(const Command& command, const std::atomic<bool>* cancel) {
  std::string unit = command.unit_name;
  if (unit.empty())
    unit = "benchbox-run-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_) + ".scope";
  if (!valid_scope_name(unit))
    return make_error(Errc::invalid_argument, "'" + unit + "' is not a valid scope unit name");

  auto systemd = Systemd::connect(options_.systemd_timeout);
  if (!systemd) return systemd.error().with_context("connect to systemd");

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : command.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return make_error(Errc::invalid_argument, "CPU " + std::to_string(cpu) + " is out of range");
    CPU_SET(cpu, &cpus);
  }
  const auto mask = cpu_mask_bytes(command.cpus);
  const bool set_allowed = options_.allowed_cpus && !command.cpus.empty();
  bool scope_started = false;
  std::optional<std::string> cgroup;

  ChildHooks hooks;
  hooks.before_exec = [&](pid_t child) -> Status {
    // Pinned before it joins the scope, so it never runs elsewhere. Under a
    // cgroup-v2 cpuset that excludes these CPUs (runnerd's own slice) the
    // kernel refuses; the child pins itself again inside the scope.
    if (!command.cpus.empty() && ::sched_setaffinity(child, sizeof cpus, &cpus) < 0 &&
        !(errno == EINVAL && set_allowed))
      return errno_error("pin to CPUs " + format_cpu_list(command.cpus), errno);
    Status st = systemd->start_scope(unit, options_.slice, "benchbox: " + short_command(command.shell),
                                     child, options_.kill_grace, set_allowed ? &mask : nullptr);
    if (st) {
      scope_started = true;
      cgroup = cgroup2_path_of(options_.root, child);  // PID 1 has moved it by now
    }
    return st;
  };
  // The shell has exited and is not reaped yet: the scope and its cgroup
  // are still there to be asked for their peak.
  hooks.after_exit = [&](pid_t, Outcome& o) {
    if (!cgroup) return;
    if (auto peak = cgroup2_memory_peak(options_.root, *cgroup)) {
      o.peak_memory_bytes = *peak;
      o.memory_source = "cgroup memory.peak";
    }
  };
  // Stopping the scope reaches every process in it, including any that
  // left the process group; the process group is the fallback.
  hooks.stop = [&](pid_t child, int sig) {
    Status st = sig == SIGKILL ? systemd->kill_unit(unit, SIGKILL) : systemd->stop_unit(unit, false);
    if (!st) ::killpg(child, sig);
  };

  PinnedChildRunner pinned(options_.kill_grace, std::move(hooks));
  auto outcome = pinned.run(command, cancel);
  // Whatever happened, nothing of this command may outlive run(): stop the
  // scope if PID 1 still has it (a process that escaped the group keeps it
  // alive), and wait for that to finish.
  if (scope_started) {
    auto exists = systemd->unit_exists(unit);
    if (!exists || *exists) {
      Status st = systemd->stop_unit(unit, true);
      if (!st && outcome) return st.error().with_context("command finished, but its scope lingers");
    }
  }
  if (!outcome) return outcome;
  const std::string cpu_text = format_cpu_list(command.cpus);
  outcome->isolation = "scope:" + options_.slice + "/" + unit;
  if (!command.cpus.empty()) outcome->isolation += (set_allowed ? ";allowed-cpus+affinity:" : ";affinity:") + cpu_text;
  return outcome;
}

RunnerChoice make_benchmark_runner(const ScopeOptions& options) {
  RunnerChoice choice;
  auto fallback = [&](const std::string& reason) {
    choice.runner = std::make_unique<PinnedChildRunner>(options.kill_grace);
    choice.scopes = false;
    choice.why = reason + ": falls back to the plain pinned child (sched_setaffinity, process-group kill)";
    return std::move(choice);
  };
  if (sd_booted() <= 0) return fallback("systemd is not PID 1");
  auto systemd = Systemd::connect(options.systemd_timeout);
  if (!systemd) return fallback("cannot reach systemd on the system bus (" + systemd.error().message + ")");
  auto version = systemd->version();
  if (!version) return fallback("systemd does not answer on the system bus (" + version.error().message + ")");

  ScopeOptions chosen = options;
  chosen.allowed_cpus = cgroup2_cpuset_available();
  choice.scopes = true;
  choice.why = "transient scopes in " + chosen.slice + " (systemd " + *version + "); " +
               (chosen.allowed_cpus ? "AllowedCPUs= enforced by the cgroup-v2 cpuset controller, plus sched_setaffinity"
                                    : "AllowedCPUs= not enforced here (no cgroup-v2 cpuset controller): pinning with sched_setaffinity");
  choice.runner = std::make_unique<ScopeRunner>(std::move(chosen));
  return choice;
}

}  // namespace bb::exec
