// Shared by the tunerd_* integration tests: the real benchbox-tunerd on an
// OpenBus (harness.h), and a small sd-bus client for Tuner1.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "bus/handles.h"
#include "harness.h"

namespace bb::test {


struct TunerItem {
  std::string name, wanted, actual;
  bool ok = false;
  std::string reason;
};

struct TunerReply {
  std::string error_name;  // "" on success
  std::string error_message;
  std::vector<TunerItem> items;
  std::string fingerprint;
  const TunerItem* find(const std::string& name) const;
};

class TunerClient {
 public:
  explicit TunerClient(const std::string& address);
  TunerReply call(const char* member);
  std::string state();
  uint64_t last_verify();
  // Collects Drifted signals; wait_drifted() processes the bus until one
  // arrives (or the timeout passes) and returns the item names it carried.
  void watch_drifted();
  std::vector<std::string> wait_drifted(int timeout_ms);
  bool name_owned();

 private:
  static int on_drifted(sd_bus_message* m, void* userdata, sd_bus_error*);
  bus::BusPtr bus_;
  bus::SlotPtr match_;
  std::vector<std::vector<std::string>> drifted_;
};

// Writes <dir>/benchbox.yml (state_dir <dir>/state, tuner section) and, when
// profile_yaml is not empty, <dir>/tuning.yml.
std::string write_tunerd_config(const std::string& dir, const std::string& sysfs_root,
                                const std::string& profile_yaml, unsigned verify_interval_seconds = 60);

// Starts benchbox-tunerd --config CONFIG on `address`; waits until it owns
// its name (or has exited).
std::unique_ptr<Process> start_tunerd(const std::string& address, const std::string& config,
                                      const std::string& log_path);

}  // namespace bb::test
