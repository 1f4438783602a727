// Unit names the harnesses use, mapped to benchbox's canonical units.
#pragma once

#include <optional>
#include <string_view>

namespace bb::formats::detail {

// Seconds per one `unit` of time ("ns", "us", "µs", "ms", "s", "seconds",
// "min"...), or nullopt when `unit` is not a time unit benchbox knows.
std::optional<double> seconds_per(std::string_view unit);

// "a time unit (ns, us, ms, s)" for error messages.
inline constexpr const char* kTimeUnitsExpected = "a time unit (ns, us, µs, ms, s, seconds)";

}  // namespace bb::formats::detail
