// benchbox-reporterd's command line and configuration.
#pragma once

#include <string>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::reporterd {

struct Conf {
  std::string config_path = config::kDefaultConfigPath;
  bool config_path_given = false;
  config::ApplianceConfig appliance;
};

// Parses argv and loads the appliance config. A missing file at the default
// path means defaults; a missing file named with --config is an error.
Result<Conf> load_conf(int argc, char** argv);
Result<config::ApplianceConfig> reload_appliance(const Conf& conf);

}  // namespace bb::reporterd
