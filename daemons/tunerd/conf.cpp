#include "conf.h"

#include "util/file.h"

namespace bb::tunerd {

Result<Conf> load_conf(const config::ConfigSource& source) {
  Conf conf;
  conf.source = source;
  conf.config_found = path_exists(source.path);
  auto appliance = config::load_appliance_config(source);
  if (!appliance) return appliance.error();
  conf.appliance = std::move(*appliance);
  const std::string& config_path = source.path;
  bool explicit_profile = !conf.appliance.tuner.profile.empty();
  conf.profile_path = explicit_profile ? conf.appliance.tuner.profile : tuning::kDefaultProfilePath;
  if (path_exists(conf.profile_path)) {
    auto profile = tuning::load_profile(conf.profile_path);
    if (!profile) return profile.error();
    conf.profile = std::move(*profile);
    conf.profile_found = true;
  } else if (explicit_profile) {
    return make_error(Errc::not_found, config_path + ": tuner.profile: " + conf.profile_path + " does not exist");
  } else {
    conf.profile = tuning::default_profile();
  }
  if (conf.appliance.tuner.verify_interval_seconds == 0)
    return make_error(Errc::invalid_argument, config_path + ": tuner.verify_interval_seconds must be at least 1");
  conf.save_path = path_join(path_join(conf.appliance.state_dir, "tuner"), "originals.json");
  return conf;
}

}  // namespace bb::tunerd
