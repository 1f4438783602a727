#include "tuning/systemd.h"

#include <systemd/sd-bus.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bus/errors.h"
#include "bus/handles.h"

namespace bb::tuning {

namespace {

constexpr const char* kDest = "org.freedesktop.systemd1";
constexpr const char* kManagerPath = "/org/freedesktop/systemd1";
constexpr const char* kManager = "org.freedesktop.systemd1.Manager";

// AllowedCPUs= travels as a bitmask byte array: byte i bit j is CPU 8i+j.
std::vector<uint8_t> to_bitmask(const std::vector<int>& cpus) {
  std::vector<uint8_t> bytes;
  for (int c : cpus) {
    size_t i = static_cast<size_t>(c / 8);
    if (bytes.size() <= i) bytes.resize(i + 1, 0);
    bytes[i] |= static_cast<uint8_t>(1u << (c % 8));
  }
  return bytes;
}

std::vector<int> from_bitmask(const uint8_t* bytes, size_t n) {
  std::vector<int> cpus;
  for (size_t i = 0; i < n; ++i)
    for (int b = 0; b < 8; ++b)
      if (bytes[i] & (1u << b)) cpus.push_back(static_cast<int>(i * 8) + b);
  return cpus;
}

class BusSystemd final : public Systemd {
 public:
  explicit BusSystemd(bus::BusPtr b) : bus_(std::move(b)) {}

  Result<std::vector<int>> allowed_cpus(const std::string& unit) override {
    auto path = unit_path(unit);
    if (!path) return path.error();
    const char* iface = unit.size() > 6 && unit.compare(unit.size() - 6, 6, ".scope") == 0
                            ? "org.freedesktop.systemd1.Scope"
                            : "org.freedesktop.systemd1.Slice";
    bus::BusError error;
    sd_bus_message* raw = nullptr;
    int r = sd_bus_get_property(bus_.get(), kDest, path->c_str(), iface, "AllowedCPUs", error.get(), &raw, "ay");
    bus::MessagePtr reply(raw);
    if (r < 0) return bus::from_bus_error(error.get(), r, ("AllowedCPUs of " + unit).c_str());
    const void* data = nullptr;
    size_t size = 0;
    if ((r = sd_bus_message_read_array(raw, 'y', &data, &size)) < 0)
      return errno_error("read AllowedCPUs of " + unit, -r);
    return from_bitmask(static_cast<const uint8_t*>(data), size);
  }

  Status set_allowed_cpus(const std::string& unit, const std::vector<int>& cpus) override {
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_call(bus_.get(), &raw, kDest, kManagerPath, kManager, "SetUnitProperties");
    bus::MessagePtr m(raw);
    if (r < 0) return errno_error("SetUnitProperties", -r);
    auto bytes = to_bitmask(cpus);
    if ((r = sd_bus_message_append(raw, "sb", unit.c_str(), 1)) < 0 ||
        (r = sd_bus_message_open_container(raw, 'a', "(sv)")) < 0 ||
        (r = sd_bus_message_open_container(raw, 'r', "sv")) < 0 ||
        (r = sd_bus_message_append(raw, "s", "AllowedCPUs")) < 0 ||
        (r = sd_bus_message_open_container(raw, 'v', "ay")) < 0 ||
        (r = sd_bus_message_append_array(raw, 'y', bytes.data(), bytes.size())) < 0 ||
        (r = sd_bus_message_close_container(raw)) < 0 || (r = sd_bus_message_close_container(raw)) < 0 ||
        (r = sd_bus_message_close_container(raw)) < 0)
      return errno_error("build SetUnitProperties", -r);
    bus::BusError error;
    sd_bus_message* reply = nullptr;
    r = sd_bus_call(bus_.get(), raw, 0, error.get(), &reply);
    sd_bus_message_unref(reply);
    if (r < 0) return bus::from_bus_error(error.get(), r, ("set AllowedCPUs of " + unit).c_str());
    return {};
  }

  Result<bool> unit_active(const std::string& unit) override {
    auto path = unit_path(unit);
    if (!path) return path.error();
    bus::BusError error;
    char* state = nullptr;
    int r = sd_bus_get_property_string(bus_.get(), kDest, path->c_str(), "org.freedesktop.systemd1.Unit",
                                       "ActiveState", error.get(), &state);
    if (r < 0) return bus::from_bus_error(error.get(), r, ("ActiveState of " + unit).c_str());
    std::string s = state;
    free(state);
    return s == "active" || s == "activating" || s == "reloading";
  }

  Result<std::vector<std::string>> top_level_slices() override {
    bus::BusError error;
    sd_bus_message* call = nullptr;
    int r = sd_bus_message_new_method_call(bus_.get(), &call, kDest, kManagerPath, kManager, "ListUnitsByPatterns");
    bus::MessagePtr owned_call(call);
    if (r >= 0) r = sd_bus_message_append_strv(call, nullptr);  // any state
    const char* patterns[] = {"*.slice", nullptr};
    if (r >= 0) r = sd_bus_message_append_strv(call, const_cast<char**>(patterns));
    if (r < 0) return errno_error("ListUnitsByPatterns", -r);
    sd_bus_message* raw = nullptr;
    r = sd_bus_call(bus_.get(), call, 0, error.get(), &raw);
    bus::MessagePtr reply(raw);
    if (r < 0) return bus::from_bus_error(error.get(), r, "list the slices");
    if ((r = sd_bus_message_enter_container(raw, 'a', "(ssssssouso)")) < 0) return errno_error("ListUnitsByPatterns reply", -r);
    std::vector<std::string> slices;
    const char *name, *description, *load, *active, *sub, *following, *path, *job_type, *job_path;
    uint32_t job_id = 0;
    while ((r = sd_bus_message_read(raw, "(ssssssouso)", &name, &description, &load, &active, &sub, &following, &path,
                                    &job_id, &job_type, &job_path)) > 0)
      if (is_top_level_slice(name)) slices.push_back(name);
    if (r < 0) return errno_error("ListUnitsByPatterns reply", -r);
    std::sort(slices.begin(), slices.end());
    return slices;
  }

  Status stop_unit(const std::string& unit) override { return job("StopUnit", unit, false); }
  Status start_unit(const std::string& unit) override { return job("StartUnit", unit, true); }

 private:
  // LoadUnit, unlike GetUnit, also answers for units that are not running.
  Result<std::string> unit_path(const std::string& unit) {
    bus::BusError error;
    sd_bus_message* raw = nullptr;
    int r = sd_bus_call_method(bus_.get(), kDest, kManagerPath, kManager, "LoadUnit", error.get(), &raw, "s",
                               unit.c_str());
    bus::MessagePtr reply(raw);
    if (r < 0) return bus::from_bus_error(error.get(), r, ("load unit " + unit).c_str());
    const char* path = nullptr;
    if ((r = sd_bus_message_read(raw, "o", &path)) < 0) return errno_error("LoadUnit reply", -r);
    return std::string(path);
  }

  // Queues the job, then waits (up to 10 s) until the unit reaches the
  // state, so the next check does not race the job.
  Status job(const char* method, const std::string& unit, bool want_active) {
    bus::BusError error;
    sd_bus_message* raw = nullptr;
    int r = sd_bus_call_method(bus_.get(), kDest, kManagerPath, kManager, method, error.get(), &raw, "ss",
                               unit.c_str(), "replace");
    bus::MessagePtr reply(raw);
    if (r < 0) return bus::from_bus_error(error.get(), r, (std::string(method) + " " + unit).c_str());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto active = unit_active(unit);
      if (!active) return active.error();
      if (*active == want_active) return {};
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return make_error(Errc::timeout, unit + " did not " + (want_active ? "start" : "stop") + " within 10 s");
  }

  bus::BusPtr bus_;
};

}  // namespace

bool is_top_level_slice(const std::string& unit) {
  const std::string suffix = ".slice";
  if (unit.size() <= suffix.size() || unit.compare(unit.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  const std::string stem = unit.substr(0, unit.size() - suffix.size());
  return stem.find('-') == std::string::npos;
}

Result<std::unique_ptr<Systemd>> connect_systemd() {
  sd_bus* raw = nullptr;
  int r = sd_bus_open_system(&raw);
  if (r < 0) return errno_error("connect to the system bus for systemd", -r);
  return std::unique_ptr<Systemd>(std::make_unique<BusSystemd>(bus::BusPtr(raw)));
}

Result<FakeSystemd::Unit*> FakeSystemd::find(const std::string& unit) {
  auto it = units.find(unit);
  if (it == units.end()) return make_error(Errc::not_found, "Unit " + unit + " not loaded.");
  return &it->second;
}

Result<std::vector<int>> FakeSystemd::allowed_cpus(const std::string& unit) {
  auto u = find(unit);
  if (!u) return u.error();
  return (*u)->allowed_cpus;
}

Status FakeSystemd::set_allowed_cpus(const std::string& unit, const std::vector<int>& cpus) {
  auto u = find(unit);
  if (!u) return u.error();
  if (fail_set) return make_error(Errc::io, "set AllowedCPUs of " + unit + ": refused");
  (*u)->allowed_cpus = cpus;
  return {};
}

Result<std::vector<std::string>> FakeSystemd::top_level_slices() {
  std::vector<std::string> slices;
  for (const auto& [name, unit] : units)
    if (is_top_level_slice(name)) slices.push_back(name);  // a std::map: sorted
  return slices;
}

Result<bool> FakeSystemd::unit_active(const std::string& unit) {
  auto u = find(unit);
  if (!u) return false;  // a unit that is not installed does not run
  return (*u)->active;
}

Status FakeSystemd::stop_unit(const std::string& unit) {
  auto u = find(unit);
  if (!u) return u.error();
  (*u)->active = false;
  return {};
}

Status FakeSystemd::start_unit(const std::string& unit) {
  auto u = find(unit);
  if (!u) return u.error();
  (*u)->active = true;
  return {};
}

}  // namespace bb::tuning
