// Opening buses. Daemons always use the system bus; sd-bus honours
// DBUS_SYSTEM_BUS_ADDRESS, which is how tests and the demo point every
// daemon at a private dbus-daemon (no "test mode" in the code).
#pragma once

#include <string>

#include "bus/handles.h"
#include "util/result.h"

namespace bb::bus {

Result<BusPtr> open_system_bus();
// Connects as a client to an explicit address (tests).
Result<BusPtr> open_address(const std::string& address);

}  // namespace bb::bus
