// Which way is better, per format, end to end: each parser marks its rates
// higher-is-better, and the engine then calls a faster head `improved` on
// both the time and the rate. Before, a faster MB/s read as a regression.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "compare/compare.h"
#include "formats/formats.h"
#include "formats/parsers.h"

using namespace bb;
using model::Direction;

namespace {

std::vector<model::Benchmark> parse(const std::string& format, const std::string& text) {
  formats::ParseOptions o;
  o.suite = "s";
  auto r = formats::parse_text(format, text, "in", o);
  if (!r) FAIL(r.error().message);
  return *r;
}

model::ResultSet set_of(std::vector<model::Benchmark> v) {
  model::ResultSet rs;
  rs.benchmarks = std::move(v);
  return rs;
}

const compare::BenchmarkComparison& row(const compare::Comparison& c, const std::string& metric) {
  for (const auto& r : c.rows)
    if (r.key.metric == metric) return r;
  FAIL("no row for metric " << metric);
  return c.rows.front();
}

// Twelve measurements around `center`, ±0.5 %: enough for a decisive 99 % interval.
double jitter(double center, int i) { return center * (1 + 0.005 * std::sin(i * 1.7)); }

std::string go_text(double ns) {
  std::string out = "pkg: example.com/str\n";
  char line[160];
  for (int i = 0; i < 12; ++i) {
    const double t = jitter(ns, i);
    std::snprintf(line, sizeof line, "BenchmarkJoin-2  2000  %.2f ns/op  %.2f MB/s  8 B/op  1 allocs/op\n", t,
                  4000 / t);  // 4 KB per op: MB/s = bytes/ns * 1000
    out += line;
  }
  return out;
}

std::string google_text(double ns) {
  std::string rows;
  char row_text[400];
  for (int i = 0; i < 12; ++i) {
    const double t = jitter(ns, i);
    std::snprintf(row_text, sizeof row_text,
                  "%s{\"name\":\"BM_copy\",\"run_name\":\"BM_copy\",\"run_type\":\"iteration\","
                  "\"repetitions\":12,\"repetition_index\":%d,\"iterations\":1000,\"real_time\":%.4f,"
                  "\"cpu_time\":%.4f,\"time_unit\":\"ns\",\"bytes_per_second\":%.6g,\"items_per_second\":%.6g,"
                  "\"retries\":3}",
                  i ? "," : "", i, t, t, 4096e9 / t, 1e9 / t);
    rows += row_text;
  }
  return "{\"context\":{},\"benchmarks\":[" + rows + "]}";
}

}  // namespace

TEST_CASE("direction: a unit implies it when the harness says nothing") {
  CHECK(model::direction_for_unit("MB/s") == Direction::higher_is_better);
  CHECK(model::direction_for_unit("ops/s") == Direction::higher_is_better);
  CHECK(model::direction_for_unit("items_per_second") == Direction::higher_is_better);
  CHECK(model::direction_for_unit("s") == Direction::lower_is_better);
  CHECK(model::direction_for_unit("ns/op") == Direction::lower_is_better);
  CHECK(model::direction_for_unit("bytes") == Direction::lower_is_better);
  CHECK(model::direction_for_unit("count") == Direction::lower_is_better);
}

TEST_CASE("direction: go test MB/s is higher-is-better, and a faster head improves both") {
  auto base = parse("go-test", go_text(1000)), head = parse("go-test", go_text(900));
  for (const auto& b : head) {
    INFO(b.key.metric);
    CHECK(b.direction == (b.key.metric == "throughput" ? Direction::higher_is_better : Direction::lower_is_better));
  }
  auto c = compare::compare(set_of(base), set_of(head), {});
  CHECK(row(c, "wall_time").verdict == compare::Verdict::improved);
  CHECK(row(c, "throughput").verdict == compare::Verdict::improved);
  CHECK(row(c, "throughput").higher_is_better);
  // And the other way round: a slower head regressed its throughput.
  auto back = compare::compare(set_of(head), set_of(base), {});
  CHECK(row(back, "throughput").verdict == compare::Verdict::regressed);
  CHECK(compare::render_markdown(c).find("`s/BenchmarkJoin[pkg=example.com/str,procs=2]:throughput` ↑") !=
        std::string::npos);
}

TEST_CASE("direction: Google Benchmark's bytes_per_second and items_per_second improve with a faster head") {
  auto base = parse("google-benchmark", google_text(1000)), head = parse("google-benchmark", google_text(950));
  auto c = compare::compare(set_of(base), set_of(head), {});
  CHECK(row(c, "wall_time").verdict == compare::Verdict::improved);
  CHECK(row(c, "bytes_per_second").verdict == compare::Verdict::improved);
  CHECK(row(c, "items_per_second").verdict == compare::Verdict::improved);
  // A user counter (here "retries") is lower-is-better: the JSON has no flags.
  for (const auto& b : head)
    if (b.key.metric == "retries") CHECK(b.direction == Direction::lower_is_better);
}

TEST_CASE("direction: criterion's declared throughput becomes a higher-is-better metric") {
  auto make = [](double ns) {
    formats::detail::CriterionFiles f;
    f.benchmark_json = R"({"group_id":"parse","function_id":null,"value_str":null,"throughput":{"Bytes":4096}})";
    f.benchmark_source = "benchmark.json";
    std::string iters, times;
    for (int i = 0; i < 12; ++i) {
      iters += std::string(i ? "," : "") + std::to_string(10 * (i + 1));
      times += std::string(i ? "," : "") + std::to_string(jitter(ns, i) * 10 * (i + 1));
    }
    f.sample_json = R"({"sampling_mode":"Linear","iters":[)" + iters + R"(],"times":[)" + times + "]}";
    f.sample_source = "sample.json";
    auto wall = formats::detail::parse_criterion_files(f);
    if (!wall) FAIL(wall.error().message);
    auto t = formats::detail::criterion_throughput(*wall);
    REQUIRE(t.size() == 1);
    CHECK(t[0].bench.unit == "bytes/s");
    CHECK(t[0].bench.direction == Direction::higher_is_better);
    CHECK(t[0].bench.samples[0] == Approx(4096 / wall->bench.samples[0]));
    return std::vector<model::Benchmark>{wall->bench, t[0].bench};
  };
  auto c = compare::compare(set_of(make(2000)), set_of(make(1800)), {});
  CHECK(row(c, "wall_time").verdict == compare::Verdict::improved);
  CHECK(row(c, "throughput").verdict == compare::Verdict::improved);
}

TEST_CASE("direction: summary-only rates (cargo bench MB/s, BMF throughput) are higher-is-better") {
  auto cargo = parse("cargo-bench", "test bench_parse ... bench:       1,200 ns/iter (+/- 30) = 3413 MB/s\n");
  for (const auto& b : cargo)
    CHECK(b.direction == (b.key.metric == "throughput" ? Direction::higher_is_better : Direction::lower_is_better));
  auto bmf = parse("bmf", R"({"parse": {"throughput": {"value": 120.5}, "latency": {"value": 1200}}})");
  for (const auto& b : bmf)
    CHECK(b.direction == (b.key.metric == "throughput" ? Direction::higher_is_better : Direction::lower_is_better));
}

TEST_CASE("direction: canonical JSON carries it, and an absent one follows the unit") {
  auto v = parse("benchbox", R"({"schema":"benchbox.resultset/1","benchmarks":[
      {"suite":"x","name":"a","metric":"score","unit":"points","direction":"higher_is_better","samples":[1,2]},
      {"suite":"x","name":"b","metric":"rate","unit":"req/s","samples":[1,2]},
      {"suite":"x","name":"c","unit":"s","samples":[1,2]}]})");
  REQUIRE(v.size() == 3);
  CHECK(v[0].direction == Direction::higher_is_better);
  CHECK(v[1].direction == Direction::higher_is_better);
  CHECK(v[2].direction == Direction::lower_is_better);
  CHECK(model::to_json(v[0])["direction"] == "higher_is_better");
  formats::ParseOptions o;
  auto bad = formats::parse_text("benchbox", R"({"schema":"benchbox.resultset/1","benchmarks":[
      {"suite":"x","name":"a","direction":"up","samples":[1]}]})", "in", o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("/benchmarks/0/direction: expected lower_is_better or higher_is_better") !=
        std::string::npos);
}

TEST_CASE("direction: a benchmark whose direction changed between base and head is not comparable") {
  auto base = parse("benchbox", R"({"schema":"benchbox.resultset/1","benchmarks":[
      {"suite":"x","name":"a","metric":"score","unit":"points","samples":[1,1.01,0.99,1,1,1.02]}]})");
  auto head = base;
  head[0].direction = Direction::higher_is_better;
  auto c = compare::compare(set_of(base), set_of(head), {});
  REQUIRE(c.rows.size() == 1);
  CHECK(c.rows[0].verdict == compare::Verdict::not_comparable);
  CHECK(c.rows[0].note == "direction differs: base lower_is_better, head higher_is_better");
}
