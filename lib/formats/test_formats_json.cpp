// hyperfine and benchbox canonical JSON, plus what every format shares:
// errors that name file, place and expectation; duplicates; emptiness.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "formats/formats.h"
#include "formats/json_support.h"
#include "formats/test_formats_support.h"
#include "util/file.h"

using namespace bb;
using namespace bb::formats;
using testing::fixture;
using testing::opts;

namespace {

std::string parse_error(const std::string& format, const std::string& text, const ParseOptions& o = opts()) {
  auto r = parse_text(format, text, "in.json", o);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("line_col counts lines and columns from 1") {
  using detail::line_col;
  CHECK(line_col("abc", 0) == "1:1");
  CHECK(line_col("abc\nde", 4) == "2:1");
  CHECK(line_col("abc\nde", 5) == "2:2");
  CHECK(line_col("ab", 99) == "1:3");
}

TEST_CASE("format_names lists every format") {
  auto names = format_names();
  for (const char* n : {"hyperfine", "benchbox"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
}

TEST_CASE("hyperfine: real export with two commands") {
  auto r = parse_path("hyperfine", fixture("hyperfine-real-basic.json"), opts("cmds"));
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  const auto& b = (*r)[0];
  CHECK(b.key.suite == "cmds");
  CHECK(b.key.name == "sleep 0.01");
  CHECK(b.key.metric == "wall_time");
  CHECK(b.unit == "s");
  CHECK(b.samples.size() == 5);
  CHECK(b.samples[0] > 0.009);
  CHECK(b.summary.count("mean"));
  CHECK(b.summary.count("median"));
  CHECK(b.extra.contains("user_mean_s"));
  CHECK(b.extra["exit_codes"].size() == 5);
  CHECK(b.status == model::BenchmarkStatus::ok);
  CHECK((*r)[1].key.name == "true");
}

TEST_CASE("hyperfine: parameters become benchmark parameters") {
  auto r = parse_path("hyperfine", fixture("hyperfine-real-parameter-scan.json"), opts());
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  CHECK((*r)[0].key.params.at("n") == "1");
  CHECK((*r)[2].key.params.at("n") == "3");
  CHECK((*r)[1].samples.size() == 4);

  auto named = parse_path("hyperfine", fixture("hyperfine-real-list-named.json"), opts());
  REQUIRE(named.ok());
  CHECK((*named)[0].key.name == "echo-a");
  CHECK((*named)[0].key.params.at("word") == "a");
}

TEST_CASE("hyperfine: non-zero exit codes mark the benchmark failed, samples kept") {
  auto r = parse_path("hyperfine", fixture("hyperfine-real-ignore-failure.json"), opts());
  REQUIRE(r.ok());
  const auto& b = r->at(0);
  CHECK(b.status == model::BenchmarkStatus::failed);
  CHECK(b.reason.find("3 of 3 runs") != std::string::npos);
  CHECK(b.samples.size() == 3);
}

TEST_CASE("hyperfine: bad input names file, place and expectation") {
  SECTION("truncated") {
    auto text = read_file(fixture("hyperfine-real-basic.json"));
    REQUIRE(text.ok());
    auto msg = parse_error("hyperfine", text->substr(0, text->size() / 2));
    CHECK(msg.rfind("in.json:", 0) == 0);
    CHECK(msg.find("unexpected end of input") != std::string::npos);
  }
  SECTION("syntax error position is line:column") {
    auto msg = parse_error("hyperfine", "{\n  \"results\": [\n    {,}\n  ]\n}");
    CHECK(msg.rfind("in.json:3:6: ", 0) == 0);
  }
  SECTION("NaN is not JSON") {
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": [NaN]}]})");
    CHECK(msg.rfind("in.json:1:", 0) == 0);
    CHECK(msg.find("NaN is not a JSON number") != std::string::npos);
  }
  SECTION("overflowing number") {
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": [1e999]}]})");
    CHECK(msg.find("in.json:1:") == 0);
  }
  SECTION("wrong type") {
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": ["1"]}]})");
    CHECK(msg == "in.json:/results/0/times/0: expected a number, got the string \"1\"");
  }
  SECTION("missing field") {
    auto msg = parse_error("hyperfine", R"({"results": [{"times": [1]}]})");
    CHECK(msg == "in.json:/results/0/command: is missing, expected a string");
  }
  SECTION("results is not an array") {
    auto msg = parse_error("hyperfine", R"({"results": 3})");
    CHECK(msg == "in.json:/results: expected an array, got a number");
    msg = parse_error("hyperfine", R"({"other": []})");
    CHECK(msg == "in.json:/results: is missing, expected an array");
    msg = parse_error("hyperfine", R"([1])");
    CHECK(msg.find("in.json:(document root): expected an object with a \"results\" array") == 0);
  }
  SECTION("exit codes do not match the runs") {
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": [1, 2], "exit_codes": [0]}]})");
    CHECK(msg.find("in.json:/results/0/exit_codes: has 1 entries for 2 times") == 0);
  }
  SECTION("duplicate commands") {
    auto msg = parse_error("hyperfine",
                           R"({"results": [{"command": "x", "times": [1]}, {"command": "x", "times": [2]}]})");
    CHECK(msg == "in.json:/results/1: duplicate benchmark 's/x:wall_time' (first at /results/0); "
                 "expected every name/parameters/metric once");
  }
  SECTION("of several duplicates, the earliest is named, with its first place") {
    // x y y x: the second y (at 2) comes before the second x (at 3).
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": [1]}, {"command": "y", "times": [1]},
        {"command": "y", "times": [1]}, {"command": "x", "times": [1]}]})");
    CHECK(msg == "in.json:/results/2: duplicate benchmark 's/y:wall_time' (first at /results/1); "
                 "expected every name/parameters/metric once");
  }
  SECTION("no runs at all") {
    auto msg = parse_error("hyperfine", R"({"results": [{"command": "x", "times": []}]})");
    CHECK(msg == "in.json:/results/0: benchmark 'x' has no samples, expected at least one");
  }
  SECTION("zero benchmarks is an error unless allowed") {
    auto msg = parse_error("hyperfine", R"({"results": []})");
    CHECK(msg.find("in.json: holds no benchmarks") == 0);
    auto o = opts();
    o.allow_empty = true;
    auto r = parse_text("hyperfine", R"({"results": []})", "in.json", o);
    REQUIRE(r.ok());
    CHECK(r->empty());
  }
  SECTION("deep nesting is refused, not recursed") {
    std::string deep = "{\"results\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto msg = parse_error("hyperfine", deep);
    CHECK(msg.find("nesting deeper than") != std::string::npos);
  }
  SECTION("too large") {
    auto o = opts();
    o.max_bytes = 10;
    auto msg = parse_error("hyperfine", R"({"results": []})", o);
    CHECK(msg.find("more than the limit of 10") != std::string::npos);
  }
}

TEST_CASE("parse_path: a directory where a file should be, a missing file") {
  auto r = parse_path("hyperfine", BB_FORMATS_FIXTURES, opts());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == std::string(BB_FORMATS_FIXTURES) + ": is a directory; expected a hyperfine result file");
  auto m = parse_path("hyperfine", fixture("does-not-exist.json"), opts());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("does-not-exist.json") != std::string::npos);
}

TEST_CASE("unknown format name") {
  auto r = parse_text("nope", "{}", "x", opts());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("unknown result format 'nope'; expected one of: ") == 0);
}

TEST_CASE("benchbox: canonical JSON round-trips through to_json") {
  model::ResultSet rs;
  rs.commit = "abc";
  model::Benchmark b;
  b.key = {"suite1", "bench", {{"n", "8"}}, "wall_time"};
  b.samples = {1.5e-3, 1.6e-3};
  b.iterations = {10, 10};
  b.summary["mean"] = 1.55e-3;
  b.extra["k"] = "v";
  rs.benchmarks.push_back(b);
  model::Benchmark f;
  f.key = {"suite1", "broken", {}, "wall_time"};
  f.status = model::BenchmarkStatus::failed;
  f.reason = "crashed";
  rs.benchmarks.push_back(f);
  std::string text = model::to_json(rs).dump(2);

  auto r = parse_text("benchbox", text, "rs.json", ParseOptions{});
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK(model::to_json((*r)[0]) == model::to_json(b));
  CHECK(model::to_json((*r)[1]) == model::to_json(f));
  CHECK((*r)[0].key.suite == "suite1");  // kept when the options name no suite

  auto o = opts("other");
  auto s = parse_text("benchbox", text, "rs.json", o);
  REQUIRE(s.ok());
  CHECK((*s)[0].key.suite == "other");
}

TEST_CASE("benchbox: fixture and bad input") {
  auto r = parse_path("benchbox", fixture("benchbox-canonical.json"), ParseOptions{});
  REQUIRE(r.ok());
  CHECK(r->size() == 3);

  auto msg = parse_error("benchbox", R"({"schema": "benchbox.resultset/2", "benchmarks": []})");
  CHECK(msg == "in.json:/schema: expected 'benchbox.resultset/1', got 'benchbox.resultset/2'");
  msg = parse_error("benchbox", R"({"benchmarks": []})");
  CHECK(msg == "in.json:/schema: is missing");
  msg = parse_error("benchbox",
                    R"({"schema": "benchbox.resultset/1", "benchmarks": [{"suite": "s", "name": "x", "samples": "no"}]})");
  CHECK(msg == "in.json:/benchmarks/0/samples: has the wrong type (string)");
  msg = parse_error("benchbox",
                    R"({"schema": "benchbox.resultset/1", "benchmarks": [{"suite": "s", "samples": [1]}]})");
  CHECK(msg == "in.json:/benchmarks/0/name: is missing");
  msg = parse_error("benchbox", R"({"schema": "benchbox.resultset/1", "benchmarks": {}})");
  CHECK(msg == "in.json:/benchmarks: expected an array, got an object");
  msg = parse_error("benchbox", R"({"schema": "benchbox.resultset/1", "cpus": "x", "benchmarks": []})");
  CHECK(msg == "in.json:/cpus: has the wrong type (string)");
}
