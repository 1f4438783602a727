// A harness's own listing of the benchmarks it has, as a suite's `list:`
// command prints it. Only names are read: the listing says what is
// declared, the results say what was measured.
//   google-benchmark  ./bench --benchmark_list_tests     one full name a line
//   go-test           go test -list 'Benchmark.*' ./...  names, then "ok  pkg 0.01s"
//   pytest-benchmark  pytest --collect-only -q           "file.py::test[id]", then a count
//   anything else                                        one name a line
// Blank lines and lines starting with '#' are never names.
#include <algorithm>

#include "formats/formats.h"
#include "formats/parsers.h"

namespace bb::formats {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::vector<std::string>> parse_listing(const std::string& format, std::string_view text,
                                               const std::string& source) {
  std::vector<std::string> names;
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (line.find('\0') != std::string_view::npos)
      return make_error(Errc::parse, source + ":" + std::to_string(line_no) + ": a NUL byte in the listing");
    if (format == "go-test") {
      // "ok  \tpkg\t0.003s", "?   \tpkg\t[no test files]" and tests are not benchmarks.
      if (!detail::go_benchmark_name(line) || line.find_first_of(" \t") != std::string_view::npos) continue;
    } else if (format == "pytest-benchmark") {
      // The node ids; the closing "12 tests collected in 0.03s" and warnings are not.
      if (line.find("::") == std::string_view::npos || line.find(' ') != std::string_view::npos) continue;
    }
    names.emplace_back(line);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace bb::formats
