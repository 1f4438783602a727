// The simdjson readers of pytest-benchmark and BMF: which files each takes,
// and that what it takes reads exactly as the DOM reader reads it; what it
// refuses, the DOM reader reads, with the same result or error. (Google
// Benchmark's has test_google_benchmark_rows.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
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
           pytest_row(R"("stats": {"mean": 1e-5,"stddev":NaN,"iqr":Infinity, "data": [1e-5]})"),
           // Python's tokens elsewhere: read again from a copy with them replaced.
           pytest_row(R"("stats": {"mean": 1e-5, "stddev": -Infinity, "data": [1e-5]})"),
           pytest_row(R"("stats": {"mean": 1e-5, "rounds": NaN, "data": [1e-5]}, "extra_info": {"k": [NaN, "NaN"]})"),
           pytest_row(R"("stats": {"mean": 1e-5, "outliers": Infinity, "data": [1e-5]}, "params": {"x": NaN})"),
           // No raw data: the mean alone; "rounds" kept even when null.
           pytest_row(R"("stats": {"mean": 2, "min": 1, "rounds": null})"),
           pytest_row(R"("stats": {"mean": 2, "data": [], "iterations": null})"),
           // Parameters of every kind, the last of a repeated one; nulls as absent.
           pytest_row(R"("fullname": "t.py::test_a[1-x]", "params": {"n": 1, "s": "x", "l": [1, {"a": null}], "n": 2},
                         "group": null, "param": "1-x", "extra_info": {"k": [true, false]}, "options": null,
                         "stats": {"mean": 1, "data": [-0, 0.5, 3], "iterations": 4, "ops": 2, "outliers": "0;0"})"),
           pytest_row(R"("params": {}, "fullname": null, "stats": {"data": [1, 2], "mean": 1.5}, "newer": {"x": [1]})"),
           // Integers read as their text, and every other number as nlohmann dumps it.
           pytest_row(R"("params": {"a": -0, "b": -12, "c": 123456789012345678901, "d": 1.5e3, "e": true, "f": null,
                         "g": "q\"u\u00e9", "h": 0, "i": 1.0, "j": 999999999999999999, "k": -1E2}, "stats": {"mean": 1})"),
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
           pytest_row(R"("stats": {"mean": 1, "min": Infinity})"),
           pytest_row(R"("stats": {"mean": 1, "max": NaNa})"),
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
  REQUIRE(detail::bmf_fast(doc));
  read_both_ways("bmf", doc);
  const std::string text = R"({"b": {"latency": {"value": -0, "upper_value": 2, "lower_value": 0.5}, "mine": {"value": 3}}})";
  REQUIRE(detail::bmf_fast(text));
  read_both_ways("bmf", text);
  const std::string repeated = R"({"b": {"latency": {"value": 1, "value": 2}}})";  // the last counts
  REQUIRE(detail::bmf_fast(repeated));
  read_both_ways("bmf", repeated);
  // Taken, then refused by finish(): the fast reader stores no places, so
  // these check that the ones it makes for the error are the DOM reader's.
  // A project's own measure named as latency's metric; a name a JSON
  // pointer escapes.
  const std::string own_wall_time = R"({"a/b~c": {"latency": {"value": 1}, "wall_time": {"value": 2}}})";
  for (const std::string& duplicate : std::vector<std::string>{
           own_wall_time,
           // Every built-in measure, and a name given twice.
           R"({"x": {"throughput": {"value": 1}, "file-size": {"value": 5}},
               "x": {"build-time": {"value": 3}, "throughput": {"value": 4}}})",
           R"({"y": {"build-time": {"value": 3}}, "z": {"file-size": {"value": 1}}, "y": {"build-time": {"value": 4}}})"}) {
    INFO(duplicate);
    REQUIRE(detail::bmf_fast(duplicate));
    CHECK_FALSE(testing::same_both_ways("bmf", duplicate, true));
  }
  auto dup = parse_text("bmf", own_wall_time, "in", testing::opts());
  REQUIRE_FALSE(dup);
  CHECK(dup.error().message ==
        "in:/a~1b~0c/wall_time: duplicate benchmark 's/a/b~c:wall_time' (first at /a~1b~0c/latency); "
        "expected every name/parameters/metric once");
  for (const std::string& refused : std::vector<std::string>{
           R"({"b": {"latency": {"value": NaN}}})",
           R"({"b": {"latency": {"value": 1}, "latency": {"value": 2}}})", R"({"b": {}})"}) {
    INFO(refused);
    CHECK_FALSE(detail::bmf_fast(refused));
    read_both_ways("bmf", refused);
  }
}

namespace {

size_t asv_fast(const std::string& text) {
  auto r = detail::asv_fast(text, "in");
  return r ? r->size() : 0;
}

// An api version 2 file with these columns and rows, as asv writes it.
std::string asv_file(const std::string& columns, const std::string& rows, const std::string& tail = R"(, "version": 2)") {
  return R"({"commit_hash": "abc", "params": {"python": "3.11"}, "result_columns": [)" + columns +
         R"(], "results": {)" + rows + "}" + tail + "}";
}

const std::string kAsvColumns =
    R"("result", "params", "version", "started_at", "duration", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", )"
    R"("stats_q_75", "stats_number", "stats_repeat", "samples", "profile")";

}  // namespace

TEST_CASE("asv: the fast reader takes api version 2 as asv writes it, read as the DOM reader reads it") {
  const std::string doc = fixture_text("asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json");
  CHECK(asv_fast(doc) > 0);
  read_both_ways("asv", doc);
  for (const std::string& text : std::vector<std::string>{
           // Every column, parameters of every kind, NaN (skipped) and null (failed) results.
           asv_file(kAsvColumns, R"("b.S.time_a": [[1e-6, NaN, null, 2e-6], [[1, "x"], [2.5, {"k": [null]}]], "v1", 17e11, 1.5,
                                    [1e-7, null, 3, "x"], [2e-6], [NaN], [1, 2, 3, 4], [10, -1, 0, null], [3], [[1, 2], null, [3], []],
                                    "profile bytes"])"),
           // Rows out of name order, a row without samples, stats that are not lists.
           asv_file(kAsvColumns, R"("b.time_z": [[3], [], "v"], "b.mem_a": [[1024], null, null, 0, 0, "x", {}, 1, true, [5]],
                                    "b.peakmem_m": [[7], [], 5, 0, 0, null, null, null, null, null, null, [[1, 2]]],
                                    "b.track_t": [[0.5]])"),
           // Only the result column, listed twice (the last counts); a version
           // that is not a string; no version member; an empty row list.
           asv_file(R"("result", "x", "result")", R"("b.time_x": [[9], {"any": 1}, [1]], "b.time_y": [null, 2, [null]])", ""),
           asv_file(kAsvColumns, ""),
           // Mantissas longer than simdjson's get_number reads right; -0.
           asv_file(kAsvColumns, R"("b.time_l": [[1.2345678901234567891], [], "v", 0, 0, [-0], [12345678901234567890123], [], [],
                                    [1], [1], [[1.00000000000000000001e-5, -0]]])"),
           // No parameter values at all: no benchmarks.
           asv_file(kAsvColumns, R"("b.time_e": [[], [[]]])"),
           // A parameter value listed twice: two benchmarks with one key,
           // which finish() words as a duplicate for both readers.
           asv_file(kAsvColumns, R"("b.time_d": [[1, 2], [["1", "1"]]])"),
           // Python's tokens in place (results, stats), and elsewhere (a
           // parameter value, the params member): read from the copy.
           asv_file(kAsvColumns, R"("b.time_n": [[NaN,1], [["1", "2"]], "v", 0, 0, [Infinity, -Infinity], [NaN, 1]])"),
           asv_file(kAsvColumns, R"("b.time_p": [[1], [[NaN]]])"),
           R"({"params": {"x": NaN}, "result_columns": ["result"], "results": {"b.time_q": [[1]]}, "version": 2})",
       }) {
    INFO(text);
    CHECK(detail::asv_fast(text, "in").has_value());
    read_both_ways("asv", text);
  }
}

TEST_CASE("asv: rows in any order come out in name order, each row's benchmarks together") {
  // Rows of 1-3 parameter combinations in a seeded shuffle: putting them in
  // name order moves benchmarks along cycles of every length.
  for (unsigned seed : {1u, 2u, 20261207u}) {
    std::mt19937 rng(seed);
    std::vector<int> ids(60);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    std::string rows;
    for (int id : ids) {
      const int combos = 1 + id % 3;
      std::string results, values;
      for (int c = 0; c < combos; ++c) {
        results += (c ? ", " : "") + std::to_string(id + c * 0.25);
        values += std::string(c ? ", " : "") + "\"" + std::to_string(c) + "\"";
      }
      rows += std::string(rows.empty() ? "" : ", ") + "\"b.time_" + std::to_string(id) + "\": [[" + results +
              "], [[" + values + "]], \"v\"]";
    }
    const std::string text = asv_file(kAsvColumns, rows);
    INFO("seed " << seed);
    auto fast = detail::asv_fast(text, "in");
    REQUIRE(fast);
    CHECK(fast->size() == 120);
    read_both_ways("asv", text);
  }
}

TEST_CASE("ParsedList::permute moves each benchmark with its place") {
  for (unsigned seed : {7u, 8u, 9u}) {
    std::mt19937 rng(seed);
    detail::ParsedList list;
    const size_t n = 50;
    for (size_t i = 0; i < n; ++i) {
      // Runs of equal places, as a row's benchmarks have: stored once each.
      list.emplace("/p" + std::to_string(i / 3)).key.name = "b" + std::to_string(i);
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    list.permute(order);
    REQUIRE(list.size() == n);
    for (size_t k = 0; k < n; ++k) {
      INFO("seed " << seed << ", position " << k);
      CHECK(list.benches[k].key.name == "b" + std::to_string(order[k]));
      CHECK(list.place(k) == "/p" + std::to_string(order[k] / 3));
    }
  }
}

TEST_CASE("asv: what the fast reader refuses, the DOM reader reads or words") {
  for (const std::string& text : std::vector<std::string>{
           // Errors the DOM reader words.
           asv_file(kAsvColumns, R"("b.time_a": [["x"]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[Infinity]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[-Infinity]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[NaNx]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[1, 2]])"),
           asv_file(kAsvColumns, R"("b.time_a": [1])"),
           asv_file(kAsvColumns, R"("b.time_a": [[1], [1]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[1], [], "v", 0, 0, [], [], [], [], [], [], [[1, "x"]]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[1], [], "v", 0, 0, [], [], [], [], [], [], [3]])"),
           asv_file(kAsvColumns, R"("b.x": [[1]])"),
           asv_file(kAsvColumns, R"("b.time_a": "row")"),
           asv_file(kAsvColumns, R"("b.time_a": [[1], [], "v", 0, 0, [1x]])"),
           asv_file(R"("params")", R"("b.time_a": [[1]])"),
           asv_file(kAsvColumns, R"("b.time_a": [[1]])", R"(, "version": 3)"),
           asv_file(kAsvColumns, R"("b.time_a": [[1]])", R"(, "version": 2.0)"),
           asv_file(kAsvColumns, R"("b.time_a": [[1]])", R"(, "durations": {"x": 1 2})"),
           // Read as the DOM reads it, but not by the fast reader.
           asv_file(kAsvColumns, R"("b.time_a": [[1]], "b.time_a": [[2]])"),              // the last row counts
           asv_file(kAsvColumns, R"("b.time_a": {"result": [1]})"),                        // a row of named columns
           asv_file(kAsvColumns, R"("b.time_a": [[1]])", R"(, "result_columns": ["result"])"),  // columns after the rows
           R"({"results": {"b.time_a": [[1]]}, "result_columns": ["result"]})",
           R"({"version": 1, "results": {"b.time_a": 1}})",
           asv_file(kAsvColumns, R"("b.time_a": [[1], [], "v", 0, 0, [1e999]])"),         // infinite stats: ignored
       }) {
    INFO(text);
    CHECK_FALSE(detail::asv_fast(text, "in").has_value());
    read_both_ways("asv", text);
  }
}

TEST_CASE("asv: with benchmarks.json, the fast reader reads as the DOM reader reads") {
  // parse_path reads benchmarks.json beside the results; both readers are
  // given the same declarations, and the same ones are marked as having run.
  const std::string path = testing::fixture("asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json");
  detail::use_simdjson(false);
  auto slow = parse_path("asv", path, testing::opts());
  detail::use_simdjson(true);
  auto fast = parse_path("asv", path, testing::opts());
  REQUIRE(slow);
  REQUIRE(fast);
  REQUIRE(fast->size() == slow->size());
  for (size_t i = 0; i < fast->size(); ++i) CHECK(model::to_json((*fast)[i]) == model::to_json((*slow)[i]));
}
