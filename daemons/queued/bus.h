// The org.benchbox.Queue1 bus objects of benchbox-queued.
#pragma once

#include <vector>

#include "bus/handles.h"
#include "manager.h"
#include "util/result.h"

namespace bb::queued {

// Registers /org/benchbox/Queue1 and the per-job objects under
// /org/benchbox/Queue1/job/<id>. The slots unregister them when dropped.
Result<std::vector<bus::SlotPtr>> register_queue_objects(sd_bus* bus, Manager* manager);

}  // namespace bb::queued
