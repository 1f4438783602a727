// A benchmark's summary statistics as its harness reported them (mean,
// median, stddev, min, max, ...), by name, in name order (model/flat_map.h
// says why not a std::map).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/flat_map.h"

namespace bb::model {

using Summary = FlatMap<double>;

// A JSON object of the names and values, in name order.
void to_json(nlohmann::json& j, const Summary& s);

}  // namespace bb::model
