// systemd's D-Bus API is an OS edge of the tuner: CPU shielding by slices
// (AllowedCPUs= on cgroup v2) and stopping irqbalance go through it. The
// daemon passes a BusSystemd only when systemd is PID 1 (sd_booted());
// tests pass a FakeSystemd.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::tuning {

class Systemd {
 public:
  virtual ~Systemd() = default;
  // AllowedCPUs= of a slice or scope; an empty list means "all CPUs" (unset).
  virtual Result<std::vector<int>> allowed_cpus(const std::string& unit) = 0;
  // Sets AllowedCPUs= at runtime (not persisted: a reboot forgets it, which
  // is what a crash-restore wants). An empty list resets it to all CPUs.
  virtual Status set_allowed_cpus(const std::string& unit, const std::vector<int>& cpus) = 0;
  // The slices directly under the root slice that systemd has loaded
  // (system.slice, user.slice, machine.slice, any an admin made), sorted:
  // what shielding keeps off the benchmark CPUs besides init.scope.
  virtual Result<std::vector<std::string>> top_level_slices() = 0;
  virtual Result<bool> unit_active(const std::string& unit) = 0;
  virtual Status stop_unit(const std::string& unit) = 0;
  virtual Status start_unit(const std::string& unit) = 0;
};

// "machine.slice" yes; "-.slice" (the root) and "system-getty.slice" (a
// slice inside system.slice: a '-' in the name is a level) no.
bool is_top_level_slice(const std::string& unit);

// systemd over its D-Bus API on the system bus (org.freedesktop.systemd1).
Result<std::unique_ptr<Systemd>> connect_systemd();

// In-memory systemd for tests: units that exist, their AllowedCPUs= and
// whether they run. Unknown units are "not loaded" errors, as on a real host.
class FakeSystemd final : public Systemd {
 public:
  struct Unit {
    std::vector<int> allowed_cpus;
    bool active = false;
  };
  std::map<std::string, Unit> units;
  bool fail_set = false;  // SetUnitProperties refused (e.g. no cpuset controller)

  Result<std::vector<int>> allowed_cpus(const std::string& unit) override;
  Status set_allowed_cpus(const std::string& unit, const std::vector<int>& cpus) override;
  Result<std::vector<std::string>> top_level_slices() override;
  Result<bool> unit_active(const std::string& unit) override;
  Status stop_unit(const std::string& unit) override;
  Status start_unit(const std::string& unit) override;

 private:
  Result<Unit*> find(const std::string& unit);
};

}  // namespace bb::tuning
