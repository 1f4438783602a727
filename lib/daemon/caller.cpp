#include "daemon/caller.h"

#include "bus/errors.h"
#include "daemon/log.h"

namespace bb::daemon {

bus::Allowed operators_and(const config::AccessConfig& access, std::vector<std::string> users) {
  return bus::Allowed{access.admin_group, std::move(users)};
}

int refuse_unless(sd_bus_message* m, sd_bus_error* error, const bus::Allowed& who) {
  Status st = bus::authorize(m, who);
  if (st) return 0;
  const char* member = sd_bus_message_get_member(m);
  const char* sender = sd_bus_message_get_sender(m);
  log_warning("refused a bus call: " + st.error().message,
              {{"METHOD", member ? member : ""}, {"SENDER", sender ? sender : ""}});
  return bus::set_error(error, st.error());
}

}  // namespace bb::daemon
