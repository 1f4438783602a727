// The tuning profile (/etc/benchbox/tuning.yml): which CPUs benchmarks get,
// which host settings the tuner enforces and with which values. Documented
// item by item in docs/tuning.md; example in config/tuning.yml.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::tuning {

// Every item the tuner knows, in the order it checks and applies them
// (irqbalance is stopped before IRQs are moved, so it cannot move them back).
inline const std::vector<std::string>& item_names() {
  static const std::vector<std::string> names = {
      "governor",     "min_freq",   "boost",     "smt",       "swappiness",
      "aslr",         "thp",        "perf_event_paranoid",   "nmi_watchdog",
      "irqbalance",   "irq_affinity", "workqueue", "shielding", "kernel_cmdline"};
  return names;
}

struct ItemConfig {
  bool enabled = true;
  std::string value;  // the wanted value where the item takes one, else ""
};

struct Profile {
  std::string source = "(defaults)";  // file name for messages
  std::string housekeeping_cpus;      // CPU list; "" = every online CPU not for benchmarks
  std::string benchmark_cpus;         // CPU list; "" = the last online CPU
  bool restore_on_stop = true;        // SIGTERM (systemctl stop) restores the originals
  bool apply_on_start = false;        // apply at start, after any crash restore
  std::map<std::string, ItemConfig> items;  // every name in item_names(), defaults filled

  const ItemConfig& item(const std::string& name) const { return items.at(name); }
  bool enabled(const std::string& name) const { return items.at(name).enabled; }
};

// The profile with every default (all items on).
Profile default_profile();

// Parses YAML text. Errors name source:line:column and the key
// ("tuning.yml:7:15: items.swappiness.value: expected an integer 0-200").
Result<Profile> parse_profile(const std::string& text, const std::string& source);
// A missing file is an error here; the daemon decides whether defaults do.
Result<Profile> load_profile(const std::string& path);

inline constexpr const char* kDefaultProfilePath = "/etc/benchbox/tuning.yml";

// The CPU roles after checking the profile against the online CPUs.
struct Roles {
  std::vector<int> online;
  std::vector<int> housekeeping;
  std::vector<int> benchmark;
};

// Fills the defaults and refuses lists that name offline CPUs, overlap, or
// leave no housekeeping (or no benchmark) core.
Result<Roles> resolve_roles(const Profile& profile, const std::vector<int>& online);

}  // namespace bb::tuning
