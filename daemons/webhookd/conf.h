// benchbox-webhookd's command line, configuration, secret and listening socket.
#pragma once

#include <string>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::webhookd {

inline constexpr const char* kSecretCredential = "webhook-secret";
inline constexpr const char* kListenFdName = "webhook";

struct Conf {
  std::string config_path = config::kDefaultConfigPath;
  bool config_path_given = false;
  std::string listen;  // --listen ADDR:PORT (development); "" = socket activation
  config::ApplianceConfig appliance;
};

// Parses argv and loads the appliance config. A missing file at the default
// path means defaults; a missing file named with --config is an error.
Result<Conf> load_conf(int argc, char** argv);
Result<config::ApplianceConfig> reload_appliance(const Conf& conf);

// The webhook secret from $CREDENTIALS_DIRECTORY/webhook-secret (one trailing
// newline is dropped: `echo secret >file` is the common way to make one).
// Refuses an absent or empty credential with a message that says how to
// provide it.
Result<std::string> read_secret();

// The socket to serve on: the one systemd passed (named "webhook", else the
// first), or a new one bound to --listen. Without either it is an error that
// says so.
Result<int> listening_socket(const Conf& conf);

}  // namespace bb::webhookd
