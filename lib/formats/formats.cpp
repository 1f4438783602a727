// The format table, the checks every parser's output goes through, and
// reading inputs from the filesystem.
#include "formats/formats.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "formats/name_index.h"
#include "formats/parsers.h"
#include "util/file.h"

namespace bb::formats {

namespace detail {

void huge_pages(void* p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

Error error_at(const std::string& source, std::string_view place, const std::string& what) {
  if (place.empty()) return make_error(Errc::parse, source + ": " + what);
  return make_error(Errc::parse, source + ":" + std::string(place) + ": " + what);
}

namespace {

// What is wrong with a benchmark, if anything: its place is made only then.
std::optional<std::string> problem(const model::Benchmark& b) {
  if (b.key.name.empty()) return "benchmark has an empty name";
  if (b.key.metric.empty()) return "benchmark '" + b.key.name + "' has an empty metric";
  if (b.unit.empty()) return "benchmark '" + b.key.name + "' has an empty unit";
  for (size_t i = 0; i < b.samples.size(); ++i)
    if (!std::isfinite(b.samples[i]))
      return "benchmark '" + b.key.name + "': sample " + std::to_string(i) + " is not a finite number";
  for (const auto& [name, v] : b.summary)
    if (!std::isfinite(v)) return "benchmark '" + b.key.name + "': summary '" + name + "' is not a finite number";
  if (!b.rounds.empty() && b.rounds.size() != b.samples.size())
    return "benchmark '" + b.key.name + "': rounds and samples differ in length";
  if (!b.iterations.empty() && b.iterations.size() != b.samples.size())
    return "benchmark '" + b.key.name + "': iterations and samples differ in length";
  if (b.status == model::BenchmarkStatus::ok && b.samples.empty())
    return "benchmark '" + b.key.name + "' has no samples, expected at least one";
  return std::nullopt;
}

uint64_t key_hash(const model::BenchmarkKey& k) {
  std::hash<std::string> h;
  uint64_t x = h(k.name) * 0x9e3779b97f4a7c15ull ^ h(k.metric);
  for (const auto& [name, value] : k.params) x = (x * 0x100000001b3ull) ^ h(name) ^ (h(value) << 1);
  return x;  // the suite is the same for every benchmark of one file
}

// The earliest benchmark whose key an earlier one has, and the first that
// has it; nullopt when every key is distinct. Keys are compared only where
// their hashes are equal. Sorting every (hash, index) pair instead was
// 12 % of a large BMF file's parse; the index is one pass, its slots asked
// for a few keys ahead (without, it was no faster than the sort).
std::optional<std::pair<size_t, size_t>> earliest_duplicate(const std::vector<model::Benchmark>& benches,
                                                            const std::vector<uint64_t>& hash_of) {
  NameIndex index;
  index.reserve(hash_of.size());
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < hash_of.size(); ++i) {
    if (i + kAhead < hash_of.size()) index.prefetch(hash_of[i + kAhead]);
    const size_t first =
        index.find_or_add_hashed(hash_of[i], i, [&](size_t j) { return benches[j].key == benches[i].key; });
    if (first != i) return std::pair<size_t, size_t>{i, first};
  }
  return std::nullopt;
}

}  // namespace

void ParsedList::permute(const std::vector<size_t>& order) {
  std::vector<bool> done(order.size());
  for (size_t start = 0; start < order.size(); ++start) {
    if (done[start] || order[start] == start) continue;
    // start's benchmark waits aside while each position in the cycle takes
    // the one it is given, until the cycle comes back to start.
    model::Benchmark held = std::move(benches[start]);
    const bool places = !rule_;  // else they follow the benchmarks
    const uint32_t held_place = places ? place_of_[start] : 0;
    size_t at = start;
    for (size_t from = order[at]; from != start; at = from, from = order[at]) {
      benches[at] = std::move(benches[from]);
      if (places) place_of_[at] = place_of_[from];
      done[at] = true;
    }
    benches[at] = std::move(held);
    if (places) place_of_[at] = held_place;
    done[at] = true;
  }
}

Result<std::vector<model::Benchmark>> finish(ParsedList parsed, const std::string& source,
                                             const ParseOptions& options) {
  auto& benches = parsed.benches;
  // Each key's hash is taken in the same pass as the checks: a pass reads
  // every benchmark (110 MB for 300,000), and a second one cost 3 % more.
  std::vector<uint64_t> hash_of(parsed.keys_unique ? 0 : benches.size());
  for (size_t i = 0; i < benches.size(); ++i) {
    if (!options.suite.empty()) benches[i].key.suite = options.suite;
    if (auto what = problem(benches[i])) return error_at(source, parsed.place(i), *what);
    if (!hash_of.empty()) hash_of[i] = key_hash(benches[i].key);
  }
  if (auto dup = earliest_duplicate(benches, hash_of))
    return error_at(source, parsed.place(dup->first),
                    "duplicate benchmark '" + benches[dup->first].key.to_string() + "' (first at " +
                        parsed.place(dup->second) + "); expected every name/parameters/metric once");
  if (benches.empty() && !options.allow_empty)
    return error_at(source, "",
                    "holds no benchmarks; expected at least one (unless the suite allows an "
                    "empty result)");
  return std::move(benches);
}

}  // namespace detail

namespace {

using ParseFn = Result<detail::ParsedList> (*)(const detail::Input&);

struct Format {
  const char* name;
  ParseFn parse;  // null: not a single text (criterion is a directory)
};

const Format kFormats[] = {
    {"asv", detail::parse_asv},
    {"benchbox", detail::parse_benchbox},
    {"benchmarkdotnet", detail::parse_benchmarkdotnet},
    {"bmf", detail::parse_bmf},
    {"cargo-bench", detail::parse_cargo_bench},
    {"catch2-xml", detail::parse_catch2_xml},
    {"criterion", nullptr},
    {"criterion-csv", detail::parse_criterion_csv},
    {"go-test", detail::parse_go_test},
    {"google-benchmark", detail::parse_google_benchmark},
    {"hyperfine", detail::parse_hyperfine},
    {"iai-callgrind", detail::parse_iai_callgrind},
    {"jmh", detail::parse_jmh},
    {"julia-benchmarktools", detail::parse_julia_benchmarktools},
    {"pytest-benchmark", detail::parse_pytest_benchmark},
    {"pyperf", detail::parse_pyperf},
    {"vitest", detail::parse_vitest},
};

const Format* find_format(const std::string& name) {
  for (const auto& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

Error unknown_format(const std::string& name) {
  std::string list;
  for (const auto& f : kFormats) list += std::string(list.empty() ? "" : ", ") + f.name;
  return make_error(Errc::invalid_argument,
                    "unknown result format '" + name + "'; expected one of: " + list);
}

std::string parent_dir(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

std::vector<std::string> format_names() {
  std::vector<std::string> out;
  for (const auto& f : kFormats) out.emplace_back(f.name);
  return out;
}

Result<std::vector<model::Benchmark>> parse_text(const std::string& format, std::string_view text,
                                                 const std::string& source,
                                                 const ParseOptions& options) {
  const Format* f = find_format(format);
  if (!f) return unknown_format(format);
  if (!f->parse)
    return make_error(Errc::invalid_argument,
                      source + ": " + format + " output is a directory; read it with parse_path");
  if (text.size() > options.max_bytes)
    return detail::error_at(source, "",
                            "is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                                std::to_string(options.max_bytes));
  auto parsed = f->parse(detail::Input{text, source, options});
  if (!parsed) return parsed.error();
  return detail::finish(std::move(*parsed), source, options);
}

Result<std::vector<model::Benchmark>> parse_path(const std::string& format, const std::string& path,
                                                 const ParseOptions& options) {
  const Format* f = find_format(format);
  if (!f) return unknown_format(format);
  struct stat st {};
  if (::stat(path.c_str(), &st) < 0) return errno_error(path, errno);
  if (!f->parse) {
    if (!S_ISDIR(st.st_mode))
      return detail::error_at(path, "",
                              "is not a directory; expected criterion's output directory "
                              "(target/criterion or one benchmark's directory in it)");
    auto parsed = detail::parse_criterion_dir(path, options);
    if (!parsed) return parsed.error();
    return detail::finish(std::move(*parsed), path, options);
  }
  if (S_ISDIR(st.st_mode))
    return detail::error_at(path, "", "is a directory; expected a " + format + " result file");
  auto text = read_file(path, options.max_bytes);
  if (!text) return make_error(Errc::parse, text.error().message);
  ParseOptions read = options;
  read.text_padded = has_text_padding(*text);
  if (format == "asv") {
    // results/<machine>/<commit>-<env>.json; benchmarks.json sits in results/.
    std::string listing = path_join(parent_dir(parent_dir(path)), "benchmarks.json");
    if (path_exists(listing)) {
      auto list_text = read_file(listing, options.max_bytes);
      if (!list_text) return make_error(Errc::parse, list_text.error().message);
      auto parsed = detail::parse_asv_with_benchmarks(detail::Input{*text, path, read},
                                                      *list_text, listing);
      if (!parsed) return parsed.error();
      return detail::finish(std::move(*parsed), path, options);
    }
  }
  return parse_text(format, *text, path, read);
}

}  // namespace bb::formats
