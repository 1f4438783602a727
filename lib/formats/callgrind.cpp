#include "formats/callgrind.h"

#include <cstdlib>
#include <vector>

namespace bb::formats {

namespace {

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

Result<std::map<std::string, double>> parse_callgrind_totals(std::string_view text, const std::string& source) {
  std::vector<std::string_view> events, summary, totals;
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.rfind("events:", 0) == 0) events = words(line.substr(7));
    else if (line.rfind("summary:", 0) == 0) summary = words(line.substr(8));
    else if (line.rfind("totals:", 0) == 0) totals = words(line.substr(7));
  }
  if (events.empty()) return make_error(Errc::parse, source + ": no 'events:' line; not a callgrind output file");
  const auto& counts = summary.empty() ? totals : summary;
  if (counts.empty()) return make_error(Errc::parse, source + ": no 'summary:' or 'totals:' line (did valgrind finish?)");
  if (counts.size() > events.size())
    return make_error(Errc::parse, source + ": more counts than events");
  std::map<std::string, double> out;
  for (size_t i = 0; i < events.size(); ++i) {
    double v = 0;  // callgrind leaves trailing zero counts out
    if (i < counts.size()) {
      std::string number(counts[i]);
      char* e = nullptr;
      v = std::strtod(number.c_str(), &e);
      if (e == number.c_str() || *e != '\0' || !(v >= 0))
        return make_error(Errc::parse, source + ": count '" + number + "' of " + std::string(events[i]) + " is not a number");
    }
    out[std::string(events[i])] = v;
  }
  return out;
}

std::string callgrind_metric(const std::string& event) {
  static const std::map<std::string, std::string> names = {
      {"Ir", "instructions"},
      {"Dr", "data_reads"},
      {"Dw", "data_writes"},
      {"I1mr", "l1i_misses"},
      {"D1mr", "l1d_read_misses"},
      {"D1mw", "l1d_write_misses"},
      {"ILmr", "ll_instruction_misses"},
      {"DLmr", "ll_data_read_misses"},
      {"DLmw", "ll_data_write_misses"},
      {"Bc", "conditional_branches"},
      {"Bcm", "conditional_branch_misses"},
      {"Bi", "indirect_branches"},
      {"Bim", "indirect_branch_misses"},
  };
  auto it = names.find(event);
  return it == names.end() ? "" : it->second;
}

}  // namespace bb::formats
