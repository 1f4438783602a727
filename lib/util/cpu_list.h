// The kernel's CPU list syntax ("0-3,8,10-11"), used by sysfs, cgroups,
// isolcpus= and our own configuration.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace bb {

// Parses "0-3,8" into a sorted, de-duplicated list. An empty string is an
// empty list. Rejects anything else with a message naming the bad piece.
Result<std::vector<int>> parse_cpu_list(const std::string& text);

// Formats a list back into the compact kernel syntax ("0-3,8").
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace bb
