// `--format auto`: recognise a format from its content, only where the
// content says so unambiguously. JSON is looked at through its shape (member
// names, no DOM), so even a very large file costs little memory.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "util/file.h"

namespace bb::formats {

namespace {

using detail::Kind;

bool has(const std::vector<std::string>& v, const char* s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// An iai-callgrind summary: what every schema version holds.
bool is_iai_summary(std::string_view s) {
  auto holds = [&](std::string_view k) { return s.find(k) != std::string_view::npos; };
  return holds("\"module_path\"") && holds("\"benchmark_exe\"") &&
         (holds("\"profiles\"") || holds("\"callgrind_summary\""));
}

Result<std::string> detect_json(std::string_view text, const std::string& path) {
  auto shape = detail::json_shape(text, path);
  // Python writes NaN/Infinity (asv, pytest-benchmark): look again allowing them.
  if (!shape) shape = detail::json_shape(text, path, /*python_nan=*/true);
  if (!shape) return shape.error();
  const auto& s = *shape;
  auto member = [&](const char* k, Kind kind) {
    auto it = s.members.find(k);
    return it != s.members.end() && it->second == kind;
  };
  auto first = [&](const char* k) {
    auto it = s.first_child_members.find(k);
    return it == s.first_child_members.end() ? std::vector<std::string>{} : it->second;
  };
  // Julia BenchmarkTools.save: [{"Julia": v, "BenchmarkTools": v}, [values...]]
  // (member_keys[""] holds the keys of a root array's objects).
  if (s.root == Kind::array) {
    auto it = s.member_keys.find("");
    if (it != s.member_keys.end() && has(it->second, "Julia") && has(it->second, "BenchmarkTools"))
      return std::string("julia-benchmarktools");
  }
  // iai-callgrind's summaries gathered into an array (jq -s).
  if (s.root == Kind::array && is_iai_summary(text.substr(0, 65536))) return std::string("iai-callgrind");
  // JMH's -rf json: an array of runs, each with its primaryMetric.
  if (s.root == Kind::array && text.substr(0, 65536).find("\"primaryMetric\"") != std::string_view::npos)
    return std::string("jmh");
  if (s.root != Kind::object)
    return detail::error_at(path, "", "is JSON but not an object; no known format has that shape");
  if (!s.schema.empty()) {
    if (s.schema == model::kResultSetSchema) return std::string("benchbox");
    return detail::error_at(path, "/schema", "names schema '" + s.schema +
                                                 "', expected '" + model::kResultSetSchema + "'");
  }
  // One iai-callgrind summary.json: module_path and benchmark_exe in every
  // schema version, the metrics under profiles (v4 on) or callgrind_summary.
  if (member("module_path", Kind::string) && s.members.count("benchmark_exe") &&
      (member("profiles", Kind::array) || s.members.count("callgrind_summary")))
    return std::string("iai-callgrind");
  // PkgBenchmark's writeresults: the BenchmarkTools document as a string.
  if (member("benchmarkgroup", Kind::string) && member("benchmarkconfig", Kind::object))
    return std::string("julia-benchmarktools");
  if (member("results", Kind::array) && has(first("results"), "command") &&
      has(first("results"), "times"))
    return std::string("hyperfine");
  if (member("benchmarks", Kind::array) && member("context", Kind::object))
    return std::string("google-benchmark");
  if (member("benchmarks", Kind::array) &&
      (member("machine_info", Kind::object) || has(first("benchmarks"), "fullname")))
    return std::string("pytest-benchmark");
  if (member("files", Kind::array) && has(first("files"), "groups")) return std::string("vitest");
  if (member("benchmarks", Kind::array) && s.members.count("version") && has(first("benchmarks"), "runs"))
    return std::string("pyperf");
  // BenchmarkDotNet's JsonExporter: {"Title", "HostEnvironmentInfo", "Benchmarks": [...]}.
  if (member("Benchmarks", Kind::array) &&
      (member("HostEnvironmentInfo", Kind::object) || has(first("Benchmarks"), "FullName") ||
       has(first("Benchmarks"), "Statistics")))
    return std::string("benchmarkdotnet");
  if (member("results", Kind::object) &&
      (s.members.count("result_columns") || s.members.count("commit_hash")))
    return std::string("asv");
  if (s.members.count("group_id") && s.members.count("full_id"))
    return detail::error_at(path, "",
                            "is one criterion benchmark.json; give the criterion directory "
                            "(target/criterion) with --format criterion");
  // asv's benchmarks.json: every benchmark object has "code" and "type".
  bool all_objects = !s.members.empty();
  for (const auto& [name, kind] : s.members)
    if (kind != Kind::object && name != "version") all_objects = false;
  if (all_objects) {
    const auto& firstname = s.members.begin()->first;
    auto keys_it = s.member_keys.find(firstname);
    std::vector<std::string> keys = keys_it == s.member_keys.end() ? std::vector<std::string>{} : keys_it->second;
    if (has(keys, "code") && has(keys, "type"))
      return detail::error_at(path, "",
                              "is asv's benchmarks.json (the list of benchmarks), not results; give "
                              "a results/<machine>/<commit>-<env>.json file with --format asv");
    auto measures = first(firstname.c_str());
    if (has(measures, "value")) return std::string("bmf");
  }
  std::string seen;
  for (const auto& [name, kind] : s.members) {
    if (seen.size() > 60) break;
    seen += (seen.empty() ? "" : ", ") + name;
  }
  return detail::error_at(path, "",
                          "is JSON with members {" + seen +
                              "}, which matches no known format; name it with --format");
}

// Line shapes are matched by hand rather than with std::regex: it is cheap,
// and gcc 12's <regex> trips -Wmaybe-uninitialized under the sanitizers.
size_t skip(std::string_view s, size_t i, bool (*pred)(char)) {
  while (i < s.size() && pred(s[i])) ++i;
  return i;
}
bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_not_space(char c) { return !is_space(c) && c != '\n' && c != '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_number_char(char c) { return is_digit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'; }
bool is_bench_number_char(char c) { return is_digit(c) || c == '.' || c == ','; }

// "BenchmarkX-8   1000   1234 ns/op"
bool is_go_bench_line(std::string_view line) {
  if (line.substr(0, 9) != "Benchmark") return false;
  size_t i = skip(line, 9, is_not_space);
  size_t j = skip(line, i, is_space);
  if (j == i) return false;
  size_t k = skip(line, j, is_digit);
  if (k == j) return false;
  size_t l = skip(line, k, is_space);
  if (l == k) return false;
  size_t m = skip(line, l, is_number_char);
  if (m == l) return false;
  // Then a unit: any word that is not a number (ns/op, or b.ReportMetric's).
  size_t u = skip(line, m, is_space);
  return u > m && u < line.size() && !is_number_char(line[u]) && is_not_space(line[u]);
}

// go test -json: one test2json event per line, {"Time":…,"Action":…,"Package":…}.
bool is_test2json(std::string_view text, size_t first) {
  std::string_view line = text.substr(first, text.find('\n', first) - first);
  return line.find("\"Action\"") != std::string_view::npos &&
         (line.find("\"Package\"") != std::string_view::npos || line.find("\"Time\"") != std::string_view::npos);
}

// "test name ... bench:       1,234 ns/iter (+/- 5)"
bool is_cargo_bench_line(std::string_view line) {
  if (line.substr(0, 5) != "test ") return false;
  size_t i = skip(line, 5, is_not_space);
  if (i == 5) return false;
  size_t j = skip(line, i, is_space);
  if (j == i || line.substr(j, 10) != "... bench:") return false;
  size_t k = skip(line, j + 10, is_space);
  if (k == j + 10) return false;
  size_t l = skip(line, k, is_bench_number_char);
  return l > k && line.substr(l, 8) == " ns/iter";
}

// iai-callgrind's summaries, one a line (--output-format=json, or
// summary.json files concatenated): the first line is one whole summary.
bool is_iai_stream(std::string_view text, size_t first) {
  size_t end = text.find('\n', first);
  return is_iai_summary(text.substr(first, std::min<size_t>(end == std::string_view::npos ? text.size() : end - first, 65536)));
}

bool any_line(std::string_view text, bool (*matches)(std::string_view)) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (matches(text.substr(start, std::min<size_t>(end - start, 4096)))) return true;
    start = end + 1;
  }
  return false;
}

Result<std::string> detect_text(std::string_view text, const std::string& path) {
  size_t first = text.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first == std::string_view::npos) return detail::error_at(path, "", "is empty; cannot tell its format");
  char c = text[first];
  if (c == '{' && is_test2json(text, first)) return std::string("go-test");
  if (c == '{' && is_iai_stream(text, first)) return std::string("iai-callgrind");
  if (text.substr(first, 41) == "group,function,value,throughput_num,throu") return std::string("criterion-csv");
  if (c == '{' || c == '[') return detect_json(text, path);
  if (c == '<') {
    if (text.find("<Catch2TestRun") != std::string_view::npos ||
        text.find("<Catch ") != std::string_view::npos || text.find("<Catch>") != std::string_view::npos)
      return std::string("catch2-xml");
    return detail::error_at(path, "", "is XML but not a Catch2 XML report (no <Catch> or <Catch2TestRun> root)");
  }
  bool is_go = any_line(text, is_go_bench_line), is_cargo = any_line(text, is_cargo_bench_line);
  if (is_go && is_cargo)
    return detail::error_at(path, "", "has both go test -bench and cargo bench lines; name the format with --format");
  if (is_go) return std::string("go-test");
  if (is_cargo) return std::string("cargo-bench");
  return detail::error_at(path, "",
                          "is text without go test -bench (\"BenchmarkX  N  T ns/op\") or cargo bench "
                          "(\"test x ... bench: N ns/iter\") lines; name the format with --format");
}

bool holds_criterion(const std::string& dir) {
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 6) {
      it.disable_recursion_pending();
      continue;
    }
    const auto& p = it->path();
    if (p.filename() == "benchmark.json" && p.parent_path().filename() == "new") return true;
  }
  return false;
}

}  // namespace

Result<std::string> detect_format(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) < 0) return errno_error(path, errno);
  if (S_ISDIR(st.st_mode)) {
    if (holds_criterion(path)) return std::string("criterion");
    return detail::error_at(path, "", "is a directory without criterion output (*/new/benchmark.json)");
  }
  auto text = read_file(path, ParseOptions{}.max_bytes);
  if (!text) return make_error(Errc::parse, text.error().message);
  return detect_text(*text, path);
}

}  // namespace bb::formats
