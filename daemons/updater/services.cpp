// AptHost's bus side: the runner (pause, resume, busy?) and whether every
// daemon came up on a version, asked of systemd and of the daemons.
#include <systemd/sd-bus.h>

#include <chrono>
#include <thread>
#include <nlohmann/json.hpp>

#include "apt_host.h"
#include "bus/names.h"

namespace bb::updater {

const char* const kServices[5] = {"benchbox-queued.service", "benchbox-tunerd.service", "benchbox-runnerd.service",
                                  "benchbox-reporterd.service", "benchbox-webhookd.service"};

namespace {

constexpr const char* kSystemd = "org.freedesktop.systemd1";

struct Daemon {
  const char* unit;
  const char* name;  // its bus name; nullptr for webhookd, which owns none
  const char* path;
  const char* interface;
};

const Daemon kDaemons[] = {
    {"benchbox-queued.service", bus::kQueueName, bus::kQueuePath, bus::kQueueInterface},
    {"benchbox-tunerd.service", bus::kTunerName, bus::kTunerPath, bus::kTunerInterface},
    {"benchbox-runnerd.service", bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface},
    {"benchbox-reporterd.service", bus::kReporterName, bus::kReporterPath, bus::kReporterInterface},
    {"benchbox-webhookd.service", nullptr, nullptr, nullptr},
};

Result<std::string> string_property(sd_bus* bus, const char* name, const char* path, const char* interface,
                                    const char* property) {
  bus::BusError error;
  char* value = nullptr;
  int r = sd_bus_get_property_string(bus, name, path, interface, property, error.get(), &value);
  if (r < 0) return make_error(Errc::unavailable, std::string(name) + " " + property + ": " +
                                                     (error.is_set() ? error.message() : std::strerror(-r)));
  std::string out = value;
  std::free(value);
  return out;
}

bool has_owner(sd_bus* bus, const char* name) {
  return sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                            "GetNameOwner", nullptr, nullptr, "s", name) >= 0;
}

}  // namespace

Result<std::string> AptHost::unit_property(const std::string& unit, const char* interface, const char* property) {
  char* path = nullptr;
  if (int r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit.c_str(), &path); r < 0)
    return errno_error("encode the unit path of " + unit, -r);
  std::string p = path;
  std::free(path);
  return string_property(bus_, kSystemd, p.c_str(), interface, property);
}

Result<update::RunnerState> AptHost::runner() {
  update::RunnerState r;
  if (!has_owner(bus_, bus::kRunnerName)) return r;
  r.reachable = true;
  auto state = string_property(bus_, bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "State");
  if (!state) return state.error();
  r.busy = update::runner_busy(*state);
  r.state = *state;
  bus::BusError error;
  int64_t job = 0;
  sd_bus_get_property_trivial(bus_, bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "CurrentJob",
                              error.get(), 'x', &job);
  r.job = job;
  return r;
}

Status AptHost::pause_runner(const std::string& reason) {
  if (!has_owner(bus_, bus::kRunnerName)) return {};
  bus::BusError error;
  // Hold, not Pause: the pause lasts while this process is on the bus, so
  // an updater killed mid-update leaves no runner paused for good.
  int r = sd_bus_call_method(bus_, bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "Hold", error.get(),
                             nullptr, "s", reason.c_str());
  if (r < 0) return make_error(Errc::unavailable, std::string("Runner1.Hold: ") + error.message());
  return {};
}

Status AptHost::resume_runner() {
  if (!has_owner(bus_, bus::kRunnerName)) return {};
  bus::BusError error;
  // Our own hold only: an operator's Pause stays.
  int r = sd_bus_call_method(bus_, bus::kRunnerName, bus::kRunnerPath, bus::kRunnerInterface, "Release", error.get(),
                             nullptr, "");
  if (r < 0) return make_error(Errc::unavailable, std::string("Runner1.Release: ") + error.message());
  return {};
}

Result<std::vector<std::string>> AptHost::running_services() {
  std::vector<std::string> out;
  if (!has_owner(bus_, kSystemd)) return out;  // no systemd: nothing to bring back
  for (const char* unit : kServices) {
    auto state = unit_property(unit, "org.freedesktop.systemd1.Unit", "ActiveState");
    if (state && *state == "active") out.push_back(unit);
  }
  return out;
}

std::string AptHost::service_problem(const std::string& service, const std::string& version) {
  auto state = unit_property(service, "org.freedesktop.systemd1.Unit", "ActiveState");
  if (!state) return state.error().message;
  if (*state != "active") {
    auto sub = unit_property(service, "org.freedesktop.systemd1.Unit", "SubState");
    return service + " is " + *state + (sub ? " (" + *sub + ")" : "") + ", not active";
  }
  for (const auto& d : kDaemons) {
    if (service != d.unit) continue;
    if (d.name) {
      auto v = string_property(bus_, d.name, d.path, d.interface, "Version");
      if (!v) return v.error().message;
      if (*v != version) return std::string(d.name) + " answers as " + *v + ", not " + version;
    } else {
      // webhookd's STATUS= line starts "benchbox-webhookd VERSION:".
      auto text = unit_property(service, "org.freedesktop.systemd1.Service", "StatusText");
      std::string want = "benchbox-webhookd " + version + ":";
      if (!text || text->rfind(want, 0) != 0)
        return service + " reports '" + (text ? *text : text.error().message) + "', not " + version;
    }
  }
  return {};
}

Status AptHost::wait_healthy(const std::string& version, const std::vector<std::string>& services,
                             std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string problem;
  for (;;) {
    problem.clear();
    auto installed = installed_version();
    if (!installed) problem = installed.error().message;
    else if (*installed != version) problem = s_.package + " " + *installed + " is installed, not " + version;
    for (const auto& s : services) {
      if (!problem.empty()) break;
      problem = service_problem(s, version);
    }
    if (problem.empty()) return {};
    if (std::chrono::steady_clock::now() >= deadline)
      return make_error(Errc::timeout, problem + " after " + std::to_string(timeout.count()) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace bb::updater
