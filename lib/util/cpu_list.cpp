#include "util/cpu_list.h"

#include <algorithm>
#include <charconv>

#include "util/text.h"

namespace bb {

static bool parse_cpu(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0 && out < 65536;
}

Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string trimmed = trim(text);
  if (trimmed.empty()) return cpus;
  for (const auto& piece : split(trimmed, ',')) {
    std::string p = trim(piece);
    auto dash = p.find('-');
    int lo = 0, hi = 0;
    bool ok = dash == std::string::npos
                  ? parse_cpu(p, lo) && (hi = lo, true)
                  : parse_cpu(std::string_view(p).substr(0, dash), lo) &&
                        parse_cpu(std::string_view(p).substr(dash + 1), hi) && lo <= hi;
    if (!ok)
      return make_error(Errc::invalid_argument,
                        "bad CPU list '" + text + "': cannot read '" + p + "'");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& input) {
  std::vector<int> cpus = input;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace bb
