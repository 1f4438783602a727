#pragma once

#include "bus/handles.h"
#include "manager.h"
#include "util/result.h"

namespace bb::reporterd {

// Exports org.benchbox.Reporter1 at /org/benchbox/Reporter1.
Result<bus::SlotPtr> register_reporter_object(sd_bus* bus, Manager* manager);

}  // namespace bb::reporterd
