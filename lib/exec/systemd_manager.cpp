#include "exec/systemd_manager.h"

#include <cctype>

#include "bus/connect.h"

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

uint64_t usec(std::chrono::milliseconds ms) { return static_cast<uint64_t>(ms.count()) * 1000; }

// A property of a fixed-size D-Bus type: `type` is its signature ('t', 'i', 'u').
template <typename T>
Result<T> trivial_property(sd_bus* bus, const std::string& path, const char* iface, const char* name, char type) {
  bus::BusError error;
  T v{};
  int r = sd_bus_get_property_trivial(bus, kSystemd, path.c_str(), iface, name, error.get(), type, &v);
  if (r < 0) return bus_error(std::string("read ") + name, error, r);
  return v;
}

}  // namespace

std::vector<uint8_t> cpu_mask_bytes(const std::vector<int>& cpus) {
  std::vector<uint8_t> mask;
  for (int cpu : cpus) {
    size_t byte = static_cast<size_t>(cpu) / 8;
    if (mask.size() <= byte) mask.resize(byte + 1, 0);
    mask[byte] |= static_cast<uint8_t>(1u << (cpu % 8));
  }
  return mask;
}

bool valid_unit_name(const std::string& name, const std::string& type) {
  const std::string suffix = "." + type;
  if (name.size() <= suffix.size() || name.size() > 255) return false;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  for (char ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == ':' ||
          ch == '\\'))
      return false;
  return true;
}

int append_bytes_property(sd_bus_message* m, const char* name, const std::vector<uint8_t>& bytes) {
  int r = sd_bus_message_open_container(m, 'r', "sv");
  if (r >= 0) r = sd_bus_message_append(m, "s", name);
  if (r >= 0) r = sd_bus_message_open_container(m, 'v', "ay");
  if (r >= 0) r = sd_bus_message_append_array(m, 'y', bytes.data(), bytes.size());
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r >= 0) r = sd_bus_message_close_container(m);
  return r;
}

// One ExecStart=-like entry: a(sasb) or, with flags, a(sasas).
int append_exec_property(sd_bus_message* m, const char* name, const std::vector<std::string>& argv,
                const std::vector<std::string>* flags) {
  const char* sig = flags ? "a(sasas)" : "a(sasb)";
  int r = sd_bus_message_open_container(m, 'r', "sv");
  if (r >= 0) r = sd_bus_message_append(m, "s", name);
  if (r >= 0) r = sd_bus_message_open_container(m, 'v', sig);
  if (r >= 0) r = sd_bus_message_open_container(m, 'a', sig + 1);
  if (r >= 0) r = sd_bus_message_open_container(m, 'r', flags ? "sasas" : "sasb");
  if (r >= 0) r = sd_bus_message_append(m, "s", argv[0].c_str());
  if (r >= 0) r = sd_bus_message_open_container(m, 'a', "s");
  for (const auto& a : argv)
    if (r >= 0) r = sd_bus_message_append(m, "s", a.c_str());
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r >= 0 && flags) {
    r = sd_bus_message_open_container(m, 'a', "s");
    for (const auto& f : *flags)
      if (r >= 0) r = sd_bus_message_append(m, "s", f.c_str());
    if (r >= 0) r = sd_bus_message_close_container(m);
  } else if (r >= 0) {
    r = sd_bus_message_append(m, "b", 0);
  }
  for (int i = 0; i < 4 && r >= 0; ++i) r = sd_bus_message_close_container(m);
  return r;
}

int append_strv_property(sd_bus_message* m, const char* name, const std::vector<std::string>& values) {
  int r = sd_bus_message_open_container(m, 'r', "sv");
  if (r >= 0) r = sd_bus_message_append(m, "s", name);
  if (r >= 0) r = sd_bus_message_open_container(m, 'v', "as");
  if (r >= 0) r = sd_bus_message_open_container(m, 'a', "s");
  for (const auto& v : values)
    if (r >= 0) r = sd_bus_message_append(m, "s", v.c_str());
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r >= 0) r = sd_bus_message_close_container(m);
  if (r >= 0) r = sd_bus_message_close_container(m);
  return r;
}

Result<SystemdManager> SystemdManager::connect(std::chrono::milliseconds timeout) {
  auto bus = bus::open_system_bus();
  if (!bus) return bus.error();
  SystemdManager s;
  s.bus_ = std::move(*bus);
  s.timeout_ = timeout;
  s.removed_ = std::make_unique<std::map<std::string, std::string>>();
  sd_bus_slot* slot = nullptr;
  // Every JobRemoved is recorded; a job's signal can arrive while the call
  // that created it is still waiting for its reply.
  int r = sd_bus_match_signal(s.bus_.get(), &slot, kSystemd, kSystemdPath, kManager, "JobRemoved", on_job_removed,
                              s.removed_.get());
  if (r < 0) return errno_error("watch systemd JobRemoved", -r);
  s.match_.reset(slot);
  return s;
}

Status SystemdManager::start_transient(const std::string& unit,
                                       const std::function<int(sd_bus_message*)>& append) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_call(bus_.get(), &raw, kSystemd, kSystemdPath, kManager, "StartTransientUnit");
  if (r < 0) return errno_error("build StartTransientUnit", -r);
  bus::MessagePtr m(raw);
  r = sd_bus_message_append(m.get(), "ss", unit.c_str(), "fail");
  if (r >= 0) r = sd_bus_message_open_container(m.get(), 'a', "(sv)");
  if (r >= 0) r = append(m.get());
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

Status SystemdManager::stop_unit(const std::string& unit, bool wait) {
  bus::BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "StopUnit", error.get(), &reply_raw, "ss",
                             unit.c_str(), "replace");
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

Status SystemdManager::kill_unit(const std::string& unit, int sig) {
  bus::BusError error;
  int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "KillUnit", error.get(), nullptr, "ssi",
                             unit.c_str(), "all", sig);
  if (r < 0) return bus_error("kill " + unit, error, r);
  return {};
}

Result<bool> SystemdManager::unit_exists(const std::string& unit) {
  auto path = unit_path(unit);
  if (path) return true;
  if (path.error().code == Errc::not_found) return false;
  return path.error();
}

Result<std::string> SystemdManager::unit_path(const std::string& unit) {
  bus::BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "GetUnit", error.get(), &reply_raw, "s",
                             unit.c_str());
  bus::MessagePtr reply(reply_raw);
  if (r < 0) {
    if (error.is_set() && sd_bus_error_has_name(error.get(), "org.freedesktop.systemd1.NoSuchUnit"))
      return make_error(Errc::not_found, unit + " is not loaded");
    return bus_error("look up " + unit, error, r);
  }
  const char* path = nullptr;
  if ((r = sd_bus_message_read(reply.get(), "o", &path)) < 0) return errno_error("read unit path", -r);
  return std::string(path);
}

Result<std::string> SystemdManager::version() {
  return string_property(kSystemdPath, kManager, "Version");
}

Status SystemdManager::subscribe() {
  bus::BusError error;
  int r = sd_bus_call_method(bus_.get(), kSystemd, kSystemdPath, kManager, "Subscribe", error.get(), nullptr, "");
  if (r < 0) return bus_error("subscribe to systemd", error, r);
  return {};
}

Status SystemdManager::watch_properties(const std::string& path) {
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_match_signal(bus_.get(), &slot, kSystemd, path.c_str(), "org.freedesktop.DBus.Properties",
                              "PropertiesChanged", nullptr, nullptr);
  if (r < 0) return errno_error("watch " + path, -r);
  watches_.emplace_back(slot);
  return {};
}

Result<std::string> SystemdManager::string_property(const std::string& path, const char* iface, const char* name) {
  bus::BusError error;
  char* text = nullptr;
  int r = sd_bus_get_property_string(bus_.get(), kSystemd, path.c_str(), iface, name, error.get(), &text);
  if (r < 0) return bus_error(std::string("read ") + name, error, r);
  std::string v = text;
  free(text);
  return v;
}

Result<uint64_t> SystemdManager::u64_property(const std::string& path, const char* iface, const char* name) {
  return trivial_property<uint64_t>(bus_.get(), path, iface, name, 't');
}

Result<int32_t> SystemdManager::i32_property(const std::string& path, const char* iface, const char* name) {
  return trivial_property<int32_t>(bus_.get(), path, iface, name, 'i');
}

Result<uint32_t> SystemdManager::u32_property(const std::string& path, const char* iface, const char* name) {
  return trivial_property<uint32_t>(bus_.get(), path, iface, name, 'u');
}

Status SystemdManager::unref(const std::string& path) {
  bus::BusError error;
  int r = sd_bus_call_method(bus_.get(), kSystemd, path.c_str(), "org.freedesktop.systemd1.Unit", "Unref",
                             error.get(), nullptr, "");
  if (r < 0) return bus_error("unref " + path, error, r);
  return {};
}

Status SystemdManager::process() {
  for (;;) {
    int r = sd_bus_process(bus_.get(), nullptr);
    if (r < 0) return errno_error("D-Bus", -r);
    if (r == 0) return {};
  }
}

int SystemdManager::on_job_removed(sd_bus_message* m, void* userdata, sd_bus_error*) {
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

Status SystemdManager::wait_job(const std::string& job, const std::string& what) {
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
      return make_error(Errc::timeout,
                        what + ": no JobRemoved from systemd within " + std::to_string(timeout_.count()) + " ms");
    auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now).count();
    r = sd_bus_wait(bus_.get(), static_cast<uint64_t>(left));
    if (r < 0 && r != -EINTR) return errno_error(what + ": D-Bus", -r);
  }
}

}  // namespace bb::exec
