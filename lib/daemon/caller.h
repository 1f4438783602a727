// The daemons' side of bus access control (bus/access.h decides): each
// method that changes state asks before it acts, and a refusal is logged
// here, once, with the caller's uid, so an operator sees in the journal who
// tried what.
#pragma once

#include <systemd/sd-bus.h>

#include "bus/access.h"
#include "config/appliance.h"

namespace bb::daemon {

// Root and the operators' group (access.admin_group), plus `users`.
bus::Allowed operators_and(const config::AccessConfig& access, std::vector<std::string> users = {});

// For a vtable handler: 0 when the caller may; else the refusal is logged
// (METHOD=, CALLER_UID=) and set on *error as AccessDenied, and the negative
// errno to return from the handler comes back.
int refuse_unless(sd_bus_message* m, sd_bus_error* error, const bus::Allowed& who);

}  // namespace bb::daemon
