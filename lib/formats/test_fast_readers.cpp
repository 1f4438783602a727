// The simdjson readers of pytest-benchmark and BMF: which files each takes,
// and that what it takes reads exactly as the DOM reader reads it; what it
// refuses, the DOM reader reads, with the same result or error. (Google
// Benchmark's has test_google_benchmark_rows.cpp.)
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "formats/parsers.h"
#include "model/result_set.h"
#include "util/file.h"
#include "test_formats_support.h"

using namespace bb;
using namespace bb::formats;

namespace {

using testing::fixture_text;

// Empty lists are answers here, not errors: both readers are asked for them.
void read_both_ways(const std::string& format, const std::string& text) {
  testing::same_both_ways(format, text, /*allow_empty=*/true);
}

size_t pytest_fast(const std::string& text) {
  auto r = detail::pytest_benchmark_fast(text);
  return r ? r->size() : 0;
}

std::string pytest_row(const std::string& members) {
  return R"({"machine_info": {"node": "h"}, "benchmarks": [{"name": "test_a", )" + members + "}]}";
}

}  // namespace

TEST_CASE("pytest-benchmark: the fast reader takes what pytest-benchmark writes, read as the DOM reader reads it") {
  const std::string doc = fixture_text("pytest-benchmark-documented-schema.json");
  CHECK(pytest_fast(doc) > 0);
  read_both_ways("pytest-benchmark", doc);
  for (const std::string& text : std::vector<std::string>{
           // One round: Python's NaN stddev and iqr carry nothing.
           pytest_row(R"("stats": {"mean": 1e-5, "stddev": NaN, "iqr": NaN, "rounds": 1, "data": [1e-5]})"),
           // No raw data: the mean alone; "rounds" kept even when null.
           pytest_row(R"("stats": {"mean": 2, "min": 1, "rounds": null})"),
           pytest_row(R"("stats": {"mean": 2, "data": [], "iterations": null})"),
           // Parameters of every kind, the last of a repeated one; nulls as absent.
           pytest_row(R"("fullname": "t.py::test_a[1-x]", "params": {"n": 1, "s": "x", "l": [1, {"a": null}], "n": 2},
                         "group": null, "param": "1-x", "extra_info": {"k": [true, false]}, "options": null,
                         "stats": {"mean": 1, "data": [-0, 0.5, 3], "iterations": 4, "ops": 2, "outliers": "0;0"})"),
           pytest_row(R"("params": {}, "fullname": null, "stats": {"data": [1, 2], "mean": 1.5}, "newer": {"x": [1]})"),
           // Mantissas longer than simdjson's get_number reads right.
           pytest_row(R"("stats": {"mean": 1, "data": [1.2345678901234567891, 12345678901234567890123, 1.00000000000000000001e-5]})"),
           R"({"benchmarks": []})",
       }) {
    INFO(text);
    CHECK(pytest_fast(text) == (text.find("test_a") == std::string::npos ? 0 : 1));
    read_both_ways("pytest-benchmark", text);
  }
  // The empty list is the fast reader's too (an answer, not a refusal).
  CHECK(detail::pytest_benchmark_fast(std::string(R"({"benchmarks": []})")).has_value());
}

TEST_CASE("long mantissas, which simdjson's get_number misreads, read as strtod reads them") {
  std::mt19937_64 rng(20261206);  // the seed, so a failure can be seen again
  std::string data;
  for (int i = 0; i < 5000; ++i) {
    const int digits = 19 + int(rng() % 10), point = int(rng() % digits);
    std::string n = rng() % 2 ? "-" : "";
    for (int d = 0; d < digits; ++d) {
      if (d == point && d) n += '.';
      n += char('0' + (d == 0 ? 1 + rng() % 9 : rng() % 10));
    }
    if (rng() % 3 == 0) n += "e" + std::to_string(int(rng() % 40) - 20);
    data += (i ? ", " : "") + n;
  }
  const std::string text = pytest_row(R"("stats": {"mean": 1, "data": [)" + data + "]}");
  CHECK(pytest_fast(text) == 1);
  read_both_ways("pytest-benchmark", text);
}

TEST_CASE("pytest-benchmark: what the fast reader refuses, the DOM reader reads or words") {
  for (const std::string& text : std::vector<std::string>{
           // Errors the DOM reader words.
           pytest_row(R"("stats": {"mean": NaN})"),
           pytest_row(R"("stats": {"mean": 1, "data": [1, "x"]})"),
           pytest_row(R"("stats": {"mean": 1, "data": [1, Infinity]})"),
           pytest_row(R"("stats": {"data": []})"),
           pytest_row(R"("stats": null)"),
           pytest_row(R"("stats": {"mean": 1}, "params": [1])"),
           pytest_row(R"("stats": {"mean": 1}, "fullname": 3)"),
           R"({"benchmarks": [{"stats": {"mean": 1}}]})",
           R"({"benchmarks": {}})",
           R"({"machine_info": {"node": "h" x}, "benchmarks": []})",
           pytest_row(R"("stats": {"mean": 1, "hd15iqr": 1x})"),
           // Read as the DOM reads it, but not by the fast reader: a
           // repeated member (the last wins).
           pytest_row(R"("stats": {"mean": 1}, "stats": {"mean": 2})"),
           pytest_row(R"("stats": {"mean": 1, "mean": 2})"),
           R"({"benchmarks": [], "benchmarks": []})",
       }) {
    INFO(text);
    CHECK(pytest_fast(text) == 0);
    read_both_ways("pytest-benchmark", text);
  }
}

TEST_CASE("BMF: the fast reader takes the plain shape, read as the DOM reader reads it") {
  const std::string doc = fixture_text("bmf-documented-schema.json");
  REQUIRE(detail::bmf_fast(doc, "f.json"));
  read_both_ways("bmf", doc);
  const std::string text = R"({"b": {"latency": {"value": -0, "upper_value": 2, "lower_value": 0.5}, "mine": {"value": 3}}})";
  REQUIRE(detail::bmf_fast(text, "f.json"));
  read_both_ways("bmf", text);
  const std::string repeated = R"({"b": {"latency": {"value": 1, "value": 2}}})";  // the last counts
  REQUIRE(detail::bmf_fast(repeated, "f.json"));
  read_both_ways("bmf", repeated);
  for (const std::string& refused : std::vector<std::string>{
           R"({"b": {"latency": {"value": NaN}}})",
           R"({"b": {"latency": {"value": 1}, "latency": {"value": 2}}})", R"({"b": {}})"}) {
    INFO(refused);
    CHECK_FALSE(detail::bmf_fast(refused, "f.json"));
    read_both_ways("bmf", refused);
  }
}
