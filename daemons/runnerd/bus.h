// The org.benchbox.Runner1 object (bus.cpp holds its one vtable).
#pragma once

#include <systemd/sd-bus.h>

#include "bus/handles.h"
#include "manager.h"
#include "util/result.h"

namespace bb::runnerd {

Result<bus::SlotPtr> register_runner_object(sd_bus* bus, Manager* manager);

}  // namespace bb::runnerd
