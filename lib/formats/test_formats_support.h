// Helpers the format tests share: fixtures by name, parsing that fails the
// test with the parser's message, and the message of a parse that must fail.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "model/result_set.h"
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
                                    const model::Params& params = {}) {
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

// A fixture's whole text.
inline std::string fixture_text(const std::string& name) {
  auto text = read_file(fixture(name), 1 << 20);
  REQUIRE(text);
  return *text;
}

// `text` read as `format` by the simdjson readers and by the SAX path
// alone: the same benchmarks (as JSON), or the same error's wording. True
// when it was read.
inline bool same_both_ways(const std::string& format, const std::string& text, bool allow_empty = false) {
  INFO(text);
  ParseOptions o = opts();
  o.allow_empty = allow_empty;
  detail::use_simdjson(false);
  auto slow = parse_text(format, text, "in", o);
  detail::use_simdjson(true);
  auto fast = parse_text(format, text, "in", o);
  REQUIRE(fast.ok() == slow.ok());
  if (!fast) {
    CHECK(fast.error().message == slow.error().message);
    return false;
  }
  REQUIRE(fast->size() == slow->size());
  for (size_t i = 0; i < fast->size(); ++i) CHECK(model::to_json((*fast)[i]) == model::to_json((*slow)[i]));
  return true;
}

}  // namespace bb::formats::testing
