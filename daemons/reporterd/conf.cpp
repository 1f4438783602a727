#include "conf.h"

#include <cstring>


namespace bb::reporterd {

Result<config::ApplianceConfig> reload_appliance(const Conf& conf) {
  return config::load_appliance_config(config::ConfigSource{conf.config_path, conf.config_path_given});
}

Result<Conf> load_conf(int argc, char** argv) {
  Conf conf;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--config") && i + 1 < argc) {
      conf.config_path = argv[++i];
      conf.config_path_given = true;
    } else {
      return make_error(Errc::invalid_argument,
                        std::string("unknown argument '") + argv[i] + "' (usage: benchbox-reporterd [--config PATH])");
    }
  }
  auto appliance = reload_appliance(conf);
  if (!appliance) return appliance.error();
  conf.appliance = std::move(*appliance);
  return conf;
}

}  // namespace bb::reporterd
