// Internal interface between the format dispatcher (formats.cpp) and the
// per-format parsers (fmt_*.cpp). Not installed; tests and fuzzers use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "model/result_set.h"
#include "util/result.h"

namespace bb::formats::detail {

// One parsed benchmark and where it came from ("12:1" or a JSON pointer), so
// the dispatcher can name both places when two benchmarks share a key.
struct Parsed {
  model::Benchmark bench;
  std::string place;
};

// Asks the kernel to back the whole 2 MiB pages within [p, p + bytes) with
// transparent huge pages (THP's "madvise" mode, this machine's setting). A
// list of 300,000 benchmarks is 110 MB, and touching it 4 KiB page by page
// for the first time cost a fifth of a BMF parse in page faults. A hint:
// where THP is off, nothing changes.
void huge_pages(void* p, size_t bytes);

// Benchmarks and their places side by side, so the dispatcher can hand the
// benchmarks on without copying: a result can hold hundreds of thousands.
// A place is kept once for a run of benchmarks from the same place (the
// metrics of one row), each benchmark holding only its index. The places'
// text is one string: a place is read only to word an error, and a string
// each was an allocation and a free per benchmark.
struct ParsedList {
  std::vector<model::Benchmark> benches;
  // The parser made every key once by construction (it groups by key):
  // finish() need not look for duplicates, a sort of the whole list.
  bool keys_unique = false;

  void push_back(Parsed&& p) {
    benches.push_back(std::move(p.bench));
    if (!rule_) add_place(p.place);
  }
  // A default benchmark at the end, to be filled in place; its place is
  // copied only when it is not the last one's.
  model::Benchmark& emplace(std::string_view place) {
    benches.emplace_back();
    if (!rule_) add_place(place);
    return benches.back();
  }
  // A reader whose places follow from its benchmarks alone names the rule
  // before its first benchmark and stores none: place(i) makes it when an
  // error needs it. BMF has a place per benchmark ("/<name>/<measure>"),
  // and their text with its doublings was about half a file's size on top
  // of the benchmarks.
  using PlaceRule = std::string (*)(const model::Benchmark&);
  void place_by(PlaceRule rule) { rule_ = rule; }
  // A benchmark at the end of a list placed by its rule (in another list:
  // placed nowhere, "").
  model::Benchmark& emplace() { return emplace(std::string_view()); }
  // Puts benchmark order[k] at position k, with its place: in place, by
  // following the permutation's cycles. `order` holds every index once.
  // Filling a second list instead held every benchmark twice (304 bytes
  // each) until the first was freed: asv's peak beyond what it kept was
  // 1.64 times its file's size (bench-formats, scale 1), 0.85 without it.
  void permute(const std::vector<size_t>& order);
  // Where the count is known before the first push: a vector of 100,000s
  // that grows by doubling holds the old and the new array at once.
  void reserve(size_t n) {
    benches.reserve(n);
    if (!rule_) place_of_.reserve(n);
    huge_pages(benches.data(), n * sizeof(model::Benchmark));
  }
  // Made for an error's wording, not kept: a string each.
  std::string place(size_t i) const {
    return rule_ ? rule_(benches[i]) : std::string(place_text(place_of_[i]));
  }
  size_t size() const { return benches.size(); }
  bool empty() const { return benches.empty(); }

 private:
  void add_place(std::string_view place) {
    if (place_ends_.empty() || place_text(place_ends_.size() - 1) != place) {
      places_.append(place);
      place_ends_.push_back(places_.size());
    }
    place_of_.push_back(uint32_t(place_ends_.size() - 1));
  }
  std::string_view place_text(size_t p) const {
    const size_t begin = p == 0 ? 0 : place_ends_[p - 1];
    return std::string_view(places_).substr(begin, place_ends_[p] - begin);
  }

  std::string places_;               // every place, one after another
  std::vector<size_t> place_ends_;   // where each ends in places_
  std::vector<uint32_t> place_of_;   // each benchmark's place, unless rule_
  PlaceRule rule_ = nullptr;
};

struct Input {
  std::string_view text;
  const std::string& source;  // file name used in every error
  const ParseOptions& options;

  JsonText json() const { return {text, options.text_padded}; }
};

// "source:place: what" as an Errc::parse error. place is "line:column" or a
// JSON pointer; empty place gives "source: what".
Error error_at(const std::string& source, std::string_view place, const std::string& what);

Result<ParsedList> parse_hyperfine(const Input& in);
Result<ParsedList> parse_benchbox(const Input& in);
Result<ParsedList> parse_google_benchmark(const Input& in);
Result<ParsedList> parse_asv(const Input& in);
Result<ParsedList> parse_pytest_benchmark(const Input& in);
// A format's simdjson reader alone, for the tests: the benchmarks, or
// nullopt where the DOM reader reads the file (anything but the plain
// shape, and every error).
std::optional<ParsedList> pytest_benchmark_fast(JsonText text);
std::optional<ParsedList> bmf_fast(JsonText text);
std::optional<ParsedList> asv_fast(JsonText text, const std::string& source);
Result<ParsedList> parse_catch2_xml(const Input& in);
Result<ParsedList> parse_go_test(const Input& in);
// go's rule for a benchmark function's name: "Benchmark", then nothing or a
// character that is not a lower-case letter.
bool go_benchmark_name(std::string_view s);
Result<ParsedList> parse_cargo_bench(const Input& in);
Result<ParsedList> parse_bmf(const Input& in);
Result<ParsedList> parse_pyperf(const Input& in);
Result<ParsedList> parse_vitest(const Input& in);
Result<ParsedList> parse_jmh(const Input& in);
Result<ParsedList> parse_benchmarkdotnet(const Input& in);
Result<ParsedList> parse_iai_callgrind(const Input& in);
Result<ParsedList> parse_julia_benchmarktools(const Input& in);

// criterion keeps one benchmark in three files of one directory
// (<id>/new/{benchmark,estimates,sample}.json); estimates may be absent.
struct CriterionFiles {
  std::string benchmark_json, benchmark_source;
  std::string sample_json, sample_source;
  std::string estimates_json, estimates_source;  // empty text: not present
};
Result<Parsed> parse_criterion_files(const CriterionFiles& files);
// The throughput criterion reports beside the time when benchmark.json
// declares one ({"Bytes": n}, {"BytesDecimal": n}, {"Elements": n} or
// {"ElementsAndBytes": {"elements": e, "bytes": b}}): per sample, n over
// the seconds per iteration, higher-is-better. Nothing when none is declared.
std::vector<Parsed> criterion_throughput(const Parsed& wall);
Result<ParsedList> parse_criterion_dir(const std::string& dir, const ParseOptions& options);
// criterion's raw.csv: one row per sample, any number of benchmarks.
Result<ParsedList> parse_criterion_csv(const Input& in);

// asv: the results file plus, when known, benchmarks.json (units, parameter
// names, and the benchmarks that should have produced a result).
Result<ParsedList> parse_asv_with_benchmarks(const Input& results, std::string_view benchmarks_json,
                                             const std::string& benchmarks_source);

// Checks every parser's output the same way: finite samples, known statuses,
// no duplicate keys, not empty unless allowed. Sets the suite.
Result<std::vector<model::Benchmark>> finish(ParsedList parsed, const std::string& source,
                                             const ParseOptions& options);

}  // namespace bb::formats::detail
