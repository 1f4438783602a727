// libtest's bench output (`cargo bench` with #[bench], nightly):
//   test bench_add ... bench:          12 ns/iter (+/- 1)
//   test bench_io  ... bench:       1,234 ns/iter (+/- 56) = 100 MB/s
// Newer toolchains print decimals ("12.34 ns/iter (+/- 0.56)"). The value is
// libtest's median over its samples and "+/-" the spread (max - min), so
// these are summaries: summary_only, with the median as the one sample.
// "test x ... FAILED" marks a failed benchmark; other lines are ignored.
#include <regex>

#include "formats/parsers.h"
#include "formats/text_lines.h"

namespace bb::formats::detail {

Result<ParsedList> parse_cargo_bench(const Input& in) {
  ParsedList out;
  std::optional<Error> error;
  static const std::regex bench(
      R"(^test (\S+) +\.\.\. bench: +([0-9][0-9,.]*) ns/iter \(\+/- ([0-9][0-9,.]*)\)(?: = ([0-9][0-9,.]*) MB/s)?\s*$)");
  static const std::regex failed(R"(^test (\S+) +\.\.\. FAILED\s*$)");
  for_each_line(in.text, [&](size_t n, std::string_view line) {
    if (line.substr(0, 5) != "test ") return true;
    std::string l(line.substr(0, 4096));
    std::smatch m;
    if (std::regex_match(l, m, bench)) {
      auto median = parse_decimal(m[2].str(), true), spread = parse_decimal(m[3].str(), true);
      if (!median || !spread) {
        error = error_at(in.source, place(n, size_t(m.position(2)) + 1),
                         "expected numbers in \"N ns/iter (+/- M)\"");
        return false;
      }
      Parsed p;
      p.place = place(n, 1);
      p.bench.key.name = m[1].str();
      p.bench.key.metric = "wall_time";
      p.bench.unit = "s";
      p.bench.summary_only = true;
      p.bench.samples = {*median * 1e-9};
      p.bench.summary = {{"median", *median * 1e-9}, {"range", *spread * 1e-9}};
      if (m[4].matched) {
        auto mbs = parse_decimal(m[4].str(), true);
        if (!mbs) {
          error = error_at(in.source, place(n, size_t(m.position(4)) + 1), "expected a number before MB/s");
          return false;
        }
        Parsed t = p;
        t.bench.key.metric = "throughput";
        t.bench.unit = "MB/s";
        t.bench.direction = model::Direction::higher_is_better;
        t.bench.samples = {*mbs};
        t.bench.summary = {{"median", *mbs}};
        out.push_back(std::move(p));
        out.push_back(std::move(t));
      } else {
        out.push_back(std::move(p));
      }
      return true;
    }
    if (std::regex_match(l, m, failed)) {
      Parsed p;
      p.place = place(n, 1);
      p.bench.key.name = m[1].str();
      p.bench.key.metric = "wall_time";
      p.bench.status = model::BenchmarkStatus::failed;
      p.bench.reason = "FAILED (panicked; see the test output)";
      out.push_back(std::move(p));
      return true;
    }
    if (l.find(" ... bench:") != std::string::npos) {
      error = error_at(in.source, place(n, l.find("bench:") + 8),
                       "expected \"bench: N ns/iter (+/- M)\" after the benchmark name");
      return false;
    }
    return true;
  });
  if (error) return *error;
  return out;
}

}  // namespace bb::formats::detail
