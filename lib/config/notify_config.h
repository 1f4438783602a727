// A repository's `notify:` list in the appliance config: where its events
// are told besides GitHub (docs/notifications.md). lib/notify renders the
// messages; this is only what the file may say, checked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/appliance.h"
#include "util/result.h"

namespace bb::config {

// Every event a destination can ask for, by the name the config, the
// payload's "event" and the docs use.
inline constexpr std::string_view kNotifyEvents[] = {
    "regression_confirmed", "culprit_named",  "regression_closed", "health_held",
    "health_released",      "update_applied", "update_rolled_back",
};
inline constexpr std::string_view kNotifyKinds[] = {"webhook", "slack", "matrix", "email"};

// Reads `node` (a list of destinations) at `path` into `out`.
Status parse_notify(const std::string& source, const YAML::Node& node, const std::string& path,
                    std::vector<NotifyDestination>& out);

// An address as it may stand in a From: or To: header: one mailbox,
// nothing that could end the header or add another.
bool mail_address(const std::string& s);

// Whether `d` wants `event` (an empty events list wants every one).
bool wants_event(const NotifyDestination& d, std::string_view event);

}  // namespace bb::config
