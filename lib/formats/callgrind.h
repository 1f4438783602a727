// callgrind's output files (valgrind --tool=callgrind): the event totals a
// run counted, per file (one per process with --trace-children=yes).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/result.h"

namespace bb::formats {

// Event name ("Ir", "Bcm", ...) -> count, from the file's "events:" and
// "summary:" (else "totals:") lines.
Result<std::map<std::string, double>> parse_callgrind_totals(std::string_view text, const std::string& source);

// The metric benchbox records a callgrind event as: "Ir" -> "instructions",
// "D1mr" -> "l1d_read_misses", ...; "" for an event it does not know.
std::string callgrind_metric(const std::string& event);

}  // namespace bb::formats
