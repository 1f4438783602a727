// The simdjson fast path against the SAX path it stands in for: the same
// values, the same benchmarks from every fixture, the same errors.
#include <string>
#include <vector>

#include "formats/json_support.h"
#include "formats/test_formats_support.h"
#include "model/result_set.h"
#include "util/file.h"

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

// The same, with an on_start that records what it was given (and refuses
// when the members before hold "refuse_start").
std::string streamed_with_start(std::string_view text, const std::string& key, bool simd) {
  std::string seen;
  use_simdjson(simd);
  const detail::StartFn start = [&](const detail::json& before) -> Status {
    seen += "start(" + before.dump() + ");";
    if (before.contains("refuse_start")) return make_error(Errc::parse, "start refused");
    return {};
  };
  auto r = detail::stream_children(
      text, "in", key,
      [&](const std::string& k, detail::json&& v, const detail::Loc&) {
        seen += k + "=" + v.dump() + ";";
        return Status{};
      },
      false, &start);
  use_simdjson(true);
  if (!r) return seen + " error: " + r.error().message;
  return seen + " rest=" + r->rest.dump();
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

TEST_CASE("simdjson path: on_start sees the members before the container, once, on either path") {
  const std::string docs[] = {
      R"({"head": 1, "rows": [{"x": 1}], "tail": 2})",
      R"({"rows": [{"x": 1}], "head": 1})",
      R"({"refuse_start": 1, "rows": [{"x": 1}]})",
      R"({"head": 1, "rows": [tru]})",              // simdjson stops after the start, before any row
      R"({"head": 1, "rows": [{"x": 1}, tru]})",    // and after a row
      R"({"rows": [1], "rows": [2]})",              // twice: started twice
      R"([{"x": 1}])",
  };
  for (const auto& d : docs) {
    INFO(d);
    CHECK(streamed_with_start(d, "rows", true) == streamed_with_start(d, "rows", false));
    CHECK(streamed_with_start(d, "", true) == streamed_with_start(d, "", false));
  }
  CHECK(streamed_with_start(R"({"head": 1, "rows": [tru]})", "rows", true).rfind(R"(start({"head":1}); error)", 0) == 0);
}

TEST_CASE("simdjson path: padded text is read in place, whatever the padding holds") {
  const std::string docs[] = {
      R"({"a": 1, "b": [1.5, "x", null, true], "c": {"d": -2}})",
      R"({"a": 12345)",
      R"({"n": NaN, "i": [Infinity, -Infinity], "s": "NaN"})",
      R"({"s": "unterminated)",
      R"([1, 2, 3])",
      "  123",
  };
  for (const std::string& d : docs)
    for (const char fill : {'\0', '"', '1', '\\', '}', ' '}) {
      INFO(d << " padded with '" << fill << "'");
      std::string buf = d + std::string(formats::kTextPadding, fill);
      const detail::JsonText padded(std::string_view(buf.data(), d.size()), true);
      for (bool nan : {false, true}) {
        auto in_place = detail::parse_json(padded, "in", nan);
        auto copied = detail::parse_json(d, "in", nan);
        REQUIRE(in_place.ok() == copied.ok());
        if (in_place) CHECK(in_place->dump() == copied->dump());
        else CHECK(in_place.error().message == copied.error().message);
      }
    }
  // What read_file hands parse_path: room to spare.
  auto text = read_file(fixture("google-benchmark-real-basic.json"));
  REQUIRE(text);
  CHECK(formats::has_text_padding(*text));
  ParseOptions o = opts();
  o.text_padded = true;
  auto a = parse_text("google-benchmark", *text, "in", o);
  auto b = parse_text("google-benchmark", std::string_view(*text), "in", opts());
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(a->size() == b->size());
  for (size_t i = 0; i < a->size(); ++i) CHECK(model::to_json((*a)[i]) == model::to_json((*b)[i]));
}

TEST_CASE("asv: rows read as they stream and the DOM reader agree") {
  const std::string cols = R"("result_columns": ["result", "params", "version", "samples"])";
  const std::string docs[] = {
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]], "b.time_y": [[2.0], [], "v1", [[1.0, 2.0]]]}, "version": 2})",
      // in the order asv ran them, not by name
      "{" + cols + R"(, "results": {"z.time_b": [[1.0]], "a.time_c": [[2.0]], "m.time_a": [[3.0, 4.0], [["1", "2"]]]}, "version": 2})",
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]], "a.time_x": [[2.0]]}, "version": 2})",  // the last one kept
      R"({"results": {"a.time_x": [[1.0]]}, )" + cols + R"(, "version": 2})",                    // columns after
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]]}, "result_columns": ["params", "result"], "version": 2})",
      "{" + cols + R"(, "results": {"a.time_x": [[NaN]], "b.time_x": [[null]]}, "version": 2})",
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]]}})",                                      // no version
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]]}, "version": 1})",
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]]}, "version": "2"})",
      "{" + cols + R"(, "results": {"b.time_x": [[1.0]], "a.time_x": "no"}, "version": 2})",
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]], "b.nope": [[1.0]]}, "version": 2})",
      "{" + cols + R"(, "results": [], "version": 2})",
      R"({"result_columns": ["params"], "results": {"a.time_x": [[1.0]]}, "version": 2})",
      R"({"results": {"a.time_x": {"result": 1.5, "stats": {"ci_99": [1, 2]}}}, "version": 1})",
      "{" + cols + R"(, "results": {"a.time_x": [[1.0]], "b.time_x": [[2.0]] tru}, "version": 2})",
  };
  size_t read = 0;
  for (const auto& d : docs) read += same_both_ways("asv", d);
  CHECK(read == 7);  // the others are errors, worded by the DOM reader
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
      R"({"b": {"latency": {"value": 1}}, "c": {"file-size": }})",  // simdjson stops while counting
  };
  for (const auto& d : docs) same_both_ways("bmf", d);
}
