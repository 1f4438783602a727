// a{sv} dictionaries: the argument type of Queue1.Enqueue/Get/List. Flat JSON
// objects convert both ways, so a Job travels as model::to_json(job) without
// a second hand-written codec. Strings are "s", integers "x", booleans "b",
// floating point "d", lists of strings "as"; other nested values are refused.
#pragma once

#include <systemd/sd-bus.h>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace bb::bus {

// Appends `object` (a flat JSON object) as a{sv}. Returns <0 errno on failure.
int append_dict(sd_bus_message* m, const nlohmann::json& object);

// Reads one a{sv} from `m` into a flat JSON object. Unknown variant types are
// an invalid-argument error naming the key.
Result<nlohmann::json> read_dict(sd_bus_message* m);

}  // namespace bb::bus
