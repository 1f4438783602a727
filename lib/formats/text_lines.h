// Line-by-line reading for the text formats, with 1-based line numbers and
// whitespace-separated fields that remember their column for errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bb::formats::detail {

struct Field {
  std::string_view text;
  size_t column;  // 1-based byte column
};

// Calls fn(line_number, line) for each line (without "\n" or "\r\n").
template <class Fn>
bool for_each_line(std::string_view text, Fn fn) {
  size_t start = 0, number = 1;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!fn(number, line)) return false;
    start = end + 1;
    ++number;
  }
  return true;
}

std::vector<Field> fields(std::string_view line);

// A decimal number, with optional thousands commas ("1,234.5") when
// allow_commas; nullopt unless the whole text is one finite number.
std::optional<double> parse_decimal(std::string_view text, bool allow_commas = false);

// "12:5"
inline std::string place(size_t line, size_t column) {
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace bb::formats::detail
