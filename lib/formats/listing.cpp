// A harness's own listing of the benchmarks it has, as a suite's `list:`
// command prints it. Only names are read: the listing says what is
// declared, the results say what was measured.
//   google-benchmark  ./bench --benchmark_list_tests     one full name a line
//   go-test           go test -list 'Benchmark.*' ./...  names, then "ok  pkg 0.01s"
//   pytest-benchmark  pytest --collect-only -q           "file.py::test[id]", then a count
//   anything else                                        one name a line
// Blank lines and lines starting with '#' are never names.
#include <algorithm>
#include <optional>

#include "formats/formats.h"
#include "formats/parsers.h"
#include "formats/text_lines.h"
#include "util/text.h"

namespace bb::formats {

Result<std::vector<std::string>> parse_listing(const std::string& format, std::string_view text,
                                               const std::string& source) {
  std::vector<std::string> names;
  std::optional<Error> bad;
  detail::for_each_line(text, [&](size_t line_no, std::string_view raw) {
    std::string line = trim(raw);
    if (line.empty() || line.front() == '#') return true;
    if (line.find('\0') != std::string::npos) {
      bad = make_error(Errc::parse, source + ":" + std::to_string(line_no) + ": a NUL byte in the listing");
      return false;
    }
    if (format == "go-test") {
      // "ok  \tpkg\t0.003s", "?   \tpkg\t[no test files]" and tests are not benchmarks.
      if (!detail::go_benchmark_name(line) || line.find_first_of(" \t") != std::string::npos) return true;
    } else if (format == "pytest-benchmark") {
      // The node ids; the closing "12 tests collected in 0.03s" and warnings are not.
      if (line.find("::") == std::string::npos || line.find(' ') != std::string::npos) return true;
    }
    names.push_back(std::move(line));
    return true;
  });
  if (bad) return *bad;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace bb::formats
