#include "exec/suite_check.h"

#include <algorithm>

#include "exec/counters.h"
#include "formats/formats.h"

namespace bb::exec {

Status check_suites(const std::vector<config::Suite>& suites) {
  const auto known = formats::format_names();
  for (const auto& s : suites) {
    if (s.format == config::kCommandFormat || std::find(known.begin(), known.end(), s.format) != known.end())
      continue;
    std::string list = config::kCommandFormat;
    for (const auto& k : known) list += ", " + k;
    return make_error(Errc::invalid_argument, s.format_location + ": suite '" + s.name + "': unknown format '" +
                                                  s.format + "' (known: " + list + ")");
  }
  const auto& counters = counter_names();
  for (const auto& s : suites)
    for (const auto& c : s.counters) {
      if (std::find(counters.begin(), counters.end(), c) != counters.end()) continue;
      std::string list;
      for (const auto& k : counters) list += (list.empty() ? "" : ", ") + k;
      return make_error(Errc::invalid_argument, "suite '" + s.name + "': unknown counter '" + c + "' (known: " + list + ")");
    }
  return {};
}

}  // namespace bb::exec
