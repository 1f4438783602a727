// benchbox-webhookd's command line, configuration, secret and listening socket.
#pragma once

#include <string>
#include <vector>

#include "config/appliance.h"
#include "daemon/args.h"
#include "util/result.h"

namespace bb::webhookd {

inline constexpr const char* kSecretCredential = "webhook-secret";
inline constexpr const char* kListenFdName = "webhook";

// webhookd's one option besides --config.
inline const std::vector<daemon::ExtraOption> kOptions = {
    {"listen", "ADDR:PORT", "serve on this address instead of the socket systemd passes (development)"}};

struct Conf {
  config::ConfigSource source;  // --config, or the default path
  std::string listen;           // --listen ADDR:PORT (development); "" = socket activation
  config::ApplianceConfig appliance;
};

// Loads the appliance config named by the command line
// (config::load_appliance_config's rule for a missing file).
Result<Conf> load_conf(const daemon::Args& args);

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
