// benchbox-tunerd's configuration: the `tuner:` section of the appliance
// config (sysfs_root, profile, verify_interval_seconds), its state_dir (where
// the save of originals lives), and the tuning profile itself.
#pragma once

#include <string>

#include "config/appliance.h"
#include "tuning/profile.h"
#include "util/result.h"

namespace bb::tunerd {

struct Conf {
  config::ConfigSource source;  // --config, or the default path
  bool config_found = false;    // absent at the default path: all defaults
  config::ApplianceConfig appliance;
  std::string profile_path;   // resolved: tuner.profile or /etc/benchbox/tuning.yml
  bool profile_found = false; // a missing default profile means the default profile
  tuning::Profile profile;
  std::string save_path;      // <state_dir>/tuner/originals.json

  const std::string& sysfs_root() const { return appliance.tuner.sysfs_root; }
  unsigned verify_interval_seconds() const { return appliance.tuner.verify_interval_seconds; }
};

// Loads the appliance config (config::load_appliance_config's rule for a
// missing file) and the profile it names. A profile named explicitly must
// exist; the default one may be absent.
Result<Conf> load_conf(const config::ConfigSource& source);

}  // namespace bb::tunerd
