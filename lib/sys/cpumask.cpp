#include "sys/cpumask.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "util/text.h"

namespace bb::sys {

Result<std::vector<int>> parse_cpu_mask(const std::string& input) {
  std::string text = trim(input);
  auto bad = [&] { return make_error(Errc::parse, "bad CPU mask '" + text + "'"); };
  if (text.empty()) return bad();
  std::vector<std::string> groups = split(text, ',');
  std::vector<int> cpus;
  // The last group holds CPUs 0-31, the one before it 32-63, and so on.
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string& hex = groups[groups.size() - 1 - g];
    if (hex.empty() || hex.size() > 8) return bad();
    for (size_t i = 0; i < hex.size(); ++i) {
      char c = hex[hex.size() - 1 - i];
      if (!std::isxdigit(static_cast<unsigned char>(c))) return bad();
      int nibble = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
      for (int bit = 0; bit < 4; ++bit)
        if (nibble & (1 << bit)) cpus.push_back(static_cast<int>(g * 32 + i * 4) + bit);
    }
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::string format_cpu_mask(const std::vector<int>& cpus) {
  int highest = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end());
  std::vector<unsigned> groups(static_cast<size_t>(highest / 32 + 1), 0u);
  for (int c : cpus) groups[static_cast<size_t>(c / 32)] |= 1u << (c % 32);
  std::string out;
  char buf[16];
  for (size_t i = groups.size(); i-- > 0;) {
    std::snprintf(buf, sizeof buf, i + 1 == groups.size() ? "%x" : ",%08x", groups[i]);
    out += buf;
  }
  return out;
}

bool cpus_intersect(const std::vector<int>& a, const std::vector<int>& b) {
  for (int c : a)
    if (std::binary_search(b.begin(), b.end(), c)) return true;
  return false;
}

}  // namespace bb::sys
