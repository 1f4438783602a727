// Harness output parsers: pure functions from a file's bytes (or a
// directory, for criterion) to canonical benchmarks. The list of formats and
// how their names map to benchmark keys is docs/formats.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/result_set.h"
#include "util/result.h"

namespace bb::formats {

struct ParseOptions {
  std::string suite;          // goes into every BenchmarkKey.suite
  bool allow_empty = false;   // a result with zero benchmarks is an error unless set
  size_t max_bytes = size_t(2) << 30;  // larger inputs are refused, not read
  // The caller promises kTextPadding readable bytes after parse_text's text
  // (their content does not matter): JSON is then read in place instead of
  // from a padded copy. has_text_padding says whether a string has them;
  // bb::read_file leaves them. parse_path sets it itself.
  bool text_padded = false;
};

// What ParseOptions::text_padded promises: simdjson reads up to this many
// bytes past the end of the text (in SIMD blocks, masking what it reads).
inline constexpr size_t kTextPadding = 64;
inline bool has_text_padding(const std::string& text) { return text.capacity() >= text.size() + kTextPadding; }

// Every format name benchbox knows, e.g. "hyperfine", "google-benchmark",
// "benchbox" (canonical JSON), "asv", "criterion", "pytest-benchmark",
// "catch2-xml", "go-test", "cargo-bench", "bmf", "criterion-csv", "pyperf", "vitest", "jmh",
// "benchmarkdotnet", "iai-callgrind", "julia-benchmarktools".
std::vector<std::string> format_names();

// Parses text already in memory. `source` names it in errors.
Result<std::vector<model::Benchmark>> parse_text(const std::string& format, std::string_view text,
                                                 const std::string& source,
                                                 const ParseOptions& options);

// Parses a file, or a directory where the format is one (criterion).
Result<std::vector<model::Benchmark>> parse_path(const std::string& format, const std::string& path,
                                                 const ParseOptions& options);

// The names in a harness's own listing (a suite's `list:` output), read
// the way `format`'s harness prints it (listing.cpp says how), sorted.
Result<std::vector<std::string>> parse_listing(const std::string& format, std::string_view text,
                                               const std::string& source);

// Recognises the format from content where that is unambiguous; an error
// that says what it looked like otherwise.
Result<std::string> detect_format(const std::string& path);

}  // namespace bb::formats
