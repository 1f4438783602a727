// Helpers the format tests share: fixtures by name, parsing that fails the
// test with the parser's message, and the message of a parse that must fail.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"
#include "formats/parsers.h"
#include "util/file.h"

namespace bb::formats::testing {

inline std::string fixture(const std::string& name) { return std::string(BB_FORMATS_FIXTURES) + "/" + name; }

inline ParseOptions opts(const std::string& suite = "s") {
  ParseOptions o;
  o.suite = suite;
  return o;
}

// The benchmarks of fixture `path` read as `format`; the test fails with
// the parser's error otherwise.
inline std::vector<model::Benchmark> ok(const std::string& format, const std::string& path) {
  auto r = parse_path(format, fixture(path), opts());
  if (!r) FAIL(r.error().message);
  return *r;
}

inline const model::Benchmark& find(const std::vector<model::Benchmark>& v, const std::string& name,
                                    const std::string& metric = "wall_time",
                                    const std::map<std::string, std::string>& params = {}) {
  for (const auto& b : v)
    if (b.key.name == name && b.key.metric == metric && (params.empty() || b.key.params == params)) return b;
  FAIL("no benchmark " << name << ":" << metric);
  return v.front();
}

// The benchmarks of `text` (named "in") read as `format`; the test fails
// with the parser's error otherwise.
inline std::vector<model::Benchmark> ok_text(const std::string& format, std::string_view text) {
  auto r = parse_text(format, text, "in", opts());
  if (!r) FAIL(r.error().message);
  return *r;
}

// The error of parsing `text` (named "in") as `format`, which must fail.
inline std::string err(const std::string& format, const std::string& text) {
  auto r = parse_text(format, text, "in", opts());
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

// The first two thirds of a fixture: a file cut off mid-write.
inline std::string truncated(const std::string& path) {
  auto t = read_file(fixture(path));
  REQUIRE(t.ok());
  return t->substr(0, t->size() * 2 / 3);
}

}  // namespace bb::formats::testing
