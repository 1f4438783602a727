// PID 1's org.freedesktop.systemd1.Manager, as the runners that put
// commands into transient units use it: start a unit and wait for its job,
// stop or kill it, read its properties. An OS edge the runner tests reach
// only where systemd is PID 1 (the nspawn system test).
#pragma once

#include <systemd/sd-bus.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bus/handles.h"
#include "util/result.h"

namespace bb::exec {

// AllowedCPUs= and CPUAffinity= travel as a little-endian bitmask, one bit per CPU.
std::vector<uint8_t> cpu_mask_bytes(const std::vector<int>& cpus);

// A unit name of the given type ("scope", "service") that systemd accepts.
bool valid_unit_name(const std::string& name, const std::string& type);

// One connection to PID 1 for one command. sd-bus objects belong to one
// thread; runnerd calls run() from its worker, so the connection is made
// there rather than shared with the daemon's main loop.
class SystemdManager {
 public:
  static Result<SystemdManager> connect(std::chrono::milliseconds timeout);

  // StartTransientUnit(unit, "fail", properties, []) and waits for the
  // start job. `append` adds the (sv) entries inside the a(sv) container
  // and returns a negative errno on failure.
  Status start_transient(const std::string& unit, const std::function<int(sd_bus_message*)>& append);
  // StopUnit; `wait` also waits for the job. A unit that no longer exists
  // is already stopped.
  Status stop_unit(const std::string& unit, bool wait);
  Status kill_unit(const std::string& unit, int sig);
  // Whether PID 1 still has the unit loaded (a collected unit is gone).
  Result<bool> unit_exists(const std::string& unit);
  Result<std::string> version();
  // The unit's object path (GetUnit).
  Result<std::string> unit_path(const std::string& unit);
  // Asks PID 1 for unit signals (PropertiesChanged), so wait() wakes when
  // a unit changes state.
  Status subscribe();
  // Also a match for the unit's PropertiesChanged: the bus delivers a
  // signal only to a connection that asked for it, Subscribe or not.
  Status watch_properties(const std::string& path);
  Result<std::string> string_property(const std::string& path, const char* iface, const char* name);
  Result<uint64_t> u64_property(const std::string& path, const char* iface, const char* name);
  Result<int32_t> i32_property(const std::string& path, const char* iface, const char* name);
  Result<uint32_t> u32_property(const std::string& path, const char* iface, const char* name);
  // Drops the reference AddRef=yes took, so the unit can be collected.
  Status unref(const std::string& path);

  // For a caller's own poll(): dispatch what arrived, then the fd to poll.
  Status process();
  int fd() const { return sd_bus_get_fd(bus_.get()); }

 private:
  SystemdManager() = default;
  Status wait_job(const std::string& job, const std::string& what);
  static int on_job_removed(sd_bus_message* m, void* userdata, sd_bus_error*);

  bus::BusPtr bus_;
  bus::SlotPtr match_;
  std::vector<bus::SlotPtr> watches_;
  std::unique_ptr<std::map<std::string, std::string>> removed_;
  std::chrono::milliseconds timeout_{};
};

// A property entry "(sv)" with a byte array value (AllowedCPUs=, CPUAffinity=).
int append_bytes_property(sd_bus_message* m, const char* name, const std::vector<uint8_t>& bytes);
// A property entry "(sv)" for ExecStart= and the like: one command, argv[0]
// its path; a(sasb), or with `flags` ("privileged", ...) the Ex form a(sasas).
int append_exec_property(sd_bus_message* m, const char* name, const std::vector<std::string>& argv,
                         const std::vector<std::string>* flags);
// A property entry "(sv)" with a string array value (Environment=, ReadWritePaths=).
int append_strv_property(sd_bus_message* m, const char* name, const std::vector<std::string>& values);

}  // namespace bb::exec
