#include "formats/text_lines.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace bb::formats::detail {

std::vector<Field> fields(std::string_view line) {
  std::vector<Field> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    out.push_back({line.substr(start, i - start), start + 1});
  }
  return out;
}

std::optional<double> parse_decimal(std::string_view text, bool allow_commas) {
  std::string digits;
  for (char c : text) {
    if (c == ',' && allow_commas) continue;
    bool ok = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
    if (!ok) return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits.size() > 64) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace bb::formats::detail
