// JSON text that can always be written. nlohmann's dump() throws
// (type_error.316) on a string that is not valid UTF-8, and strings from
// outside (a payload's ref, a header, a harness's output) can hold any
// bytes; an answer or a file must still be written. Invalid sequences
// become U+FFFD.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace bb {

inline std::string dump_json(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace bb
