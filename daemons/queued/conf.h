// benchbox-queued's command line and configuration.
#pragma once

#include <string>

#include "config/appliance.h"
#include "store/queue_store.h"
#include "util/result.h"

namespace bb::queued {

struct Conf {
  std::string config_path = config::kDefaultConfigPath;
  bool config_path_given = false;
  config::ApplianceConfig appliance;
};

// Parses argv and loads the appliance config. A missing file at the default
// path means defaults; a missing file named with --config is an error.
Result<Conf> load_conf(int argc, char** argv);
Result<config::ApplianceConfig> reload_appliance(const Conf& conf);

// The queue section as the store's options.
store::QueueOptions queue_options(const config::ApplianceConfig& cfg);

}  // namespace bb::queued
