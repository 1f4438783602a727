#include "formats/units.h"

namespace bb::formats::detail {

std::optional<double> seconds_per(std::string_view unit) {
  struct Scale {
    std::string_view name;
    double seconds;
  };
  // Spellings seen in Google Benchmark (ns/us/ms/s), asv ("seconds"),
  // Catch2 and go (ns), criterion (ns) and Rust's µs (U+00B5 or U+03BC).
  static constexpr Scale kScales[] = {
      {"ns", 1e-9}, {"nanoseconds", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6},
      {"\xce\xbcs", 1e-6}, {"microseconds", 1e-6}, {"ms", 1e-3}, {"milliseconds", 1e-3},
      {"s", 1.0}, {"sec", 1.0}, {"seconds", 1.0}, {"min", 60.0}, {"minutes", 60.0},
  };
  for (const auto& s : kScales)
    if (s.name == unit) return s.seconds;
  return std::nullopt;
}

}  // namespace bb::formats::detail
