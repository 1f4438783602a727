// The simdjson fast path against the SAX path it stands in for: the same
// values, the same benchmarks from every fixture, the same errors.
#include <string>
#include <vector>

#include "formats/json_support.h"
#include "formats/test_formats_support.h"
#include "model/result_set.h"

using namespace bb;
using namespace bb::formats;
using namespace bb::formats::testing;
using detail::use_simdjson;

namespace {

// parse_json's answer, as text: the DOM dumped, or "error: <message>".
std::string dom(std::string_view text, bool simd, bool python_nan = false) {
  use_simdjson(simd);
  auto r = detail::parse_json(text, "in", python_nan);
  use_simdjson(true);
  return r ? r->dump() : "error: " + r.error().message;
}

// stream_children's answer: every child with its place, then the rest.
std::string streamed(std::string_view text, const std::string& key, bool simd) {
  std::string seen;
  use_simdjson(simd);
  auto r = detail::stream_children(text, "in", key, [&](const std::string& k, detail::json&& v, const detail::Loc& at) {
    seen += k + "@" + at.ptr + "=" + v.dump() + ";";
    if (v.is_object() && v.contains("refuse")) return Status(at.bad("refused"));
    return Status{};
  });
  use_simdjson(true);
  if (!r) return seen + " error: " + r.error().message;
  return seen + " rest=" + r->rest.dump() + " children=" + std::to_string(r->children);
}

std::string benchmarks(const std::string& format, const std::string& file, bool simd) {
  use_simdjson(simd);
  auto r = parse_path(format, fixture(file), opts());
  use_simdjson(true);
  if (!r) return "error: " + r.error().message;
  std::string out;
  for (const auto& b : *r) out += model::to_json(b).dump() + "\n";
  return out;
}

}  // namespace

TEST_CASE("simdjson path: the same DOM as the SAX path") {
  const char* docs[] = {
      R"({"a": 1, "b": -2, "c": 1.5, "d": "x", "e": null, "f": true, "g": [false, {}], "h": []})",
      R"({"big": 18446744073709551616, "neg": -9223372036854775809, "max": 18446744073709551615, "z": -0})",
      R"({"esc\u00e9\n": "tab\there \"quoted\" \\ \u00e9 \ud83d\ude00", "plain": "é"})",
      R"({"dup": 1, "dup": 2})",
      R"([1, 2, 3])",
      "  {\"ws\" : [ 1 , 2 ]  }\n\n",
      R"({"small": 1e-400, "exp": 2.5E+3})",
      R"({"t": [0.0039759550000000001, 1.0039759550000000001, 1.003975955000000001, 0.847703492557773098423, 2]})",
      R"({"long": 333333333333333333333333333333333333333333333333333881413.0, "l2": 0.1234567890123456789012345})",
      "42",  // a scalar root: the SAX path reads it
  };
  for (const char* d : docs) {
    INFO(d);
    CHECK(dom(d, true) == dom(d, false));
    CHECK(dom(d, true).rfind("error", 0) != 0);
  }
  // Python's tokens, where the format allows them.
  CHECK(dom(R"({"a": NaN, "b": [Infinity, -Infinity], "s": "NaN"})", true, true) ==
        dom(R"({"a": NaN, "b": [Infinity, -Infinity], "s": "NaN"})", false, true));
}

TEST_CASE("simdjson path: the same errors as the SAX path") {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  const std::string docs[] = {
      "",
      "   ",
      R"({"a": 1} x)",
      R"({"a": 1} {})",
      R"({"a": tru})",
      R"({"a": nwll})",
      R"({"a": fals})",
      R"({"a": [truex]})",
      R"({"a": nulls})",
      R"({"a": "unclosed})",
      "{\"a\": \"ctl\x01\"}",
      R"({"a": 01})",
      R"({"a": 1e400})",
      "{\"a\": 1" + std::string(400, '0') + "}",
      R"({"a": NaN})",
      R"({"a": "\ud800"})",
      R"({"a": [1, 2,]})",
      "{\"a\": \"\xff\"}",
      deep,
  };
  for (const auto& d : docs) {
    INFO(d);
    CHECK(dom(d, true) == dom(d, false));
    CHECK(dom(d, true).rfind("error", 0) == 0);
  }
}

TEST_CASE("simdjson path: streamed children, their places, and errors after some were handed out") {
  const std::string docs[] = {
      R"({"head": 1, "rows": [{"x": 1}, {"x": 2}], "tail": "t"})",
      R"({"rows": {"a/b": 1, "c~d": 2}})",
      R"({"rows": 5, "other": []})",
      R"([{"x": 1}])",
      R"({"rows": [{"x": 1}, {"refuse": 1}, {"x": 3}]})",
      R"({"rows": [{"x": 1}, {"x": tru}, {"x": 3}]})",
      R"({"rows": [{"x": 1}, {"x": 2}]} trailing)",
      R"({"rows": [{"x": 1}, {"x": 18446744073709551616}]})",
      R"({"rows": [{"x": 1}, 5 6]})",                  // the SAX path hands out 5 before the syntax error
      R"({"rows": [{"x": 1}, {"refuse": 1} 7]})",
      std::string(R"({"rows": [{"x": 1}, {"x": 2}]})") + std::string(3, '\0'),  // nlohmann stops at NUL
  };
  for (const auto& d : docs) {
    INFO(d);
    CHECK(streamed(d, "rows", true) == streamed(d, "rows", false));
    CHECK(streamed(d, "", true) == streamed(d, "", false));
  }
}

TEST_CASE("simdjson path: every JSON fixture gives the same benchmarks") {
  const std::pair<const char*, const char*> kCases[] = {
      {"hyperfine-real-basic.json", "hyperfine"},
      {"hyperfine-real-parameter-scan.json", "hyperfine"},
      {"benchbox-canonical.json", "benchbox"},
      {"google-benchmark-real-basic.json", "google-benchmark"},
      {"google-benchmark-real-repetitions.json", "google-benchmark"},
      {"google-benchmark-real-aggregates-only.json", "google-benchmark"},
      {"google-benchmark-real-complexity.json", "google-benchmark"},
      {"pytest-benchmark-documented-schema.json", "pytest-benchmark"},
      {"bmf-documented-schema.json", "bmf"},
      {"asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json", "asv"},
      {"asv-documented-v1.json", "asv"},
      {"go-test-real-json.jsonl", "go-test"},
      {"pyperf-documented-schema.json", "pyperf"},
      {"vitest-real-bench.json", "vitest"},
      {"jmh-documented-schema.json", "jmh"},
      {"benchmarkdotnet-documented-full.json", "benchmarkdotnet"},
      {"julia-benchmarktools-documented-save.json", "julia-benchmarktools"},
      {"criterion-documented-schema/criterion", "criterion"},
      {"iai-callgrind-documented-summary.json", "iai-callgrind"},
      {"iai-callgrind-documented-output.jsonl", "iai-callgrind"},
      {"iai-callgrind-documented-v7.json", "iai-callgrind"},
  };
  for (const auto& [file, format] : kCases) {
    INFO(file);
    auto fast = benchmarks(format, file, true);
    CHECK(fast.rfind("error", 0) != 0);
    CHECK(fast == benchmarks(format, file, false));
  }
}

TEST_CASE("bmf: the fast reader and the DOM reader agree, and the DOM reader words the errors") {
  const std::string docs[] = {
      R"({"b": {"latency": {"value": 3, "lower_value": 2, "upper_value": 4}, "a-custom": {"value": 1}}})",
      R"({"b": {"latency": {"value": 3, "lower_value": null}}})",
      R"({"b": {"~/x": {"value": 1}, "throughput": {"value": 2}, "/y": {"value": 3}}})",  // map order, not pointer order
      R"({"b": {"latency": {"value": 3, "note": "kept out"}}})",
      R"({"b": {"latency": {"value": 1}, "latency": {"value": 2}}})",
      R"({"b": {"latency": {"value": 1}}, "b": {"latency": {"value": 2}}})",
      R"({"b": {"latency": {"value": "3"}}})",
      R"({"b": {"latency": {"value": null}}})",
      R"({"b": {}})",
      R"({"b": {"latency": {"value": 1e400}}})",
  };
  for (const auto& d : docs) {
    INFO(d);
    use_simdjson(false);
    auto slow = parse_text("bmf", d, "in", opts());
    use_simdjson(true);
    auto fast = parse_text("bmf", d, "in", opts());
    REQUIRE(fast.ok() == slow.ok());
    if (!fast) {
      CHECK(fast.error().message == slow.error().message);
      continue;
    }
    REQUIRE(fast->size() == slow->size());
    for (size_t i = 0; i < fast->size(); ++i) CHECK(model::to_json((*fast)[i]) == model::to_json((*slow)[i]));
  }
}
