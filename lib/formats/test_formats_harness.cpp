// Every harness format against its fixture (real tool output where the
// machine has the tool, the documented schema otherwise), its bad input,
// and --format auto.
#include <algorithm>
#include <cmath>
#include <string>

#include "formats/callgrind.h"
#include "formats/test_formats_support.h"

using namespace bb;
using namespace bb::formats;
using model::BenchmarkStatus;
using model::Direction;

using namespace bb::formats::testing;

TEST_CASE("google-benchmark: real output") {
  auto v = ok("google-benchmark", "google-benchmark-real-basic.json");
  const auto& memcpy = find(v, "BM_memcpy/64");
  CHECK(memcpy.unit == "s");
  REQUIRE(memcpy.samples.size() == 1);
  CHECK(memcpy.samples[0] > 1e-10);
  CHECK(memcpy.samples[0] < 1e-6);
  CHECK(memcpy.iterations.at(0) > 1000);
  CHECK(find(v, "BM_memcpy/64", "cpu_time").samples.size() == 1);
  CHECK(find(v, "BM_memcpy/64", "bytes_per_second").unit == "bytes/s");
  // time_unit "us" is converted to seconds
  const auto& map = find(v, "BM_map_insert/size:256/stride:3");
  CHECK(map.samples[0] > 1e-6);
  CHECK(map.samples[0] < 1e-3);
  CHECK(find(v, "BM_map_insert/size:16/stride:1", "nodes").samples.at(0) == 16);
  CHECK(find(v, "BM_string_append/threads:2").extra["threads"] == 2);
  const auto& fails = find(v, "BM_fails");
  CHECK(fails.status == BenchmarkStatus::failed);
  CHECK(fails.reason == "input file missing");
  CHECK(fails.samples.empty());
  find(v, "BM_template<8>");
}

TEST_CASE("google-benchmark: repetitions are samples, aggregates are summaries") {
  auto v = ok("google-benchmark", "google-benchmark-real-repetitions.json");
  const auto& b = find(v, "BM_memcpy/64");
  CHECK(b.samples.size() == 3);
  CHECK(b.iterations.size() == 3);
  CHECK_FALSE(b.summary_only);
  REQUIRE(b.summary.count("mean"));
  REQUIRE(b.summary.count("cv"));
  double mean = (b.samples[0] + b.samples[1] + b.samples[2]) / 3;
  CHECK(std::abs(b.summary.at("mean") - mean) < mean * 1e-6);
  CHECK(b.summary.at("cv") < 1.0);  // a ratio, not scaled as a time

  auto agg = ok("google-benchmark", "google-benchmark-real-aggregates-only.json");
  const auto& a = find(agg, "BM_map_insert/size:16/stride:1");
  CHECK(a.summary_only);
  CHECK(a.samples.size() == 1);
  CHECK(a.samples[0] == a.summary.at("mean"));
}

TEST_CASE("google-benchmark: a complexity fit stays with its family, or is kept without it") {
  auto v = ok("google-benchmark", "google-benchmark-real-complexity.json");
  const auto& run = find(v, "BM_Sort/64");
  CHECK(run.extra["complexity"]["BigO"]["big_o"] == "NlgN");
  CHECK(run.extra["complexity"].contains("RMS"));
  for (const auto& b : v) CHECK(b.key.metric.find("coefficient") == std::string::npos);  // its runs carry it

  // The same file without its runs (filtered, or trimmed by a CI step): the
  // fit is what is left, and it is kept rather than dropped.
  auto all = nlohmann::json::parse(*read_file(fixture("google-benchmark-real-complexity.json")));
  auto& rows = all["benchmarks"];
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const nlohmann::json& r) { return r["run_type"] == "iteration"; }),
             rows.end());
  REQUIRE(rows.size() == 2);
  auto fits = parse_text("google-benchmark", all.dump(), "in", {});
  REQUIRE(fits.ok());
  REQUIRE(fits->size() == 2);
  const auto& real = find(*fits, "BM_Sort", "real_coefficient");
  CHECK(real.summary_only);
  CHECK(real.samples.at(0) == Approx(rows[0]["real_coefficient"].get<double>() * 1e-9));
  CHECK(real.extra["complexity"]["BigO"]["big_o"] == "NlgN");
  CHECK(find(*fits, "BM_Sort", "cpu_coefficient").samples.at(0) ==
        Approx(rows[0]["cpu_coefficient"].get<double>() * 1e-9));

  // Only the RMS row: nothing measured, and it says so.
  rows.erase(rows.begin());
  auto rms = parse_text("google-benchmark", all.dump(), "in", {});
  REQUIRE(rms.ok());
  CHECK(rms->at(0).status == BenchmarkStatus::skipped);
  CHECK(rms->at(0).reason.find("complexity fit (RMS)") != std::string::npos);

  CHECK(err("google-benchmark", R"({"benchmarks": [{"name": "F_BigO", "run_name": "F", "run_type": "aggregate",
        "aggregate_name": "BigO", "real_coefficient": 1, "cpu_coefficient": 1, "time_unit": "fortnights"}]})") ==
        "in:/benchmarks/0/time_unit: unknown unit \"fortnights\", expected a time unit (ns, us, µs, ms, s, seconds)");
}

TEST_CASE("google-benchmark: bad input") {
  CHECK(err("google-benchmark", truncated("google-benchmark-real-basic.json")).find("in:") == 0);
  CHECK(err("google-benchmark",
            R"({"benchmarks": [{"name": "a", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "fortnights"}]})") ==
        "in:/benchmarks/0/time_unit: unknown unit \"fortnights\", expected a time unit (ns, us, µs, ms, s, seconds)");
  CHECK(err("google-benchmark", R"({"benchmarks": [{"name": "a", "iterations": 1, "cpu_time": 1, "time_unit": "ns"}]})") ==
        "in:/benchmarks/0/real_time: is missing, expected a number");
  CHECK(err("google-benchmark",
            R"({"benchmarks": [{"name": "a", "iterations": 1, "real_time": "1", "cpu_time": 1, "time_unit": "ns"}]})") ==
        "in:/benchmarks/0/real_time: expected a number, got the string \"1\"");
  CHECK(err("google-benchmark", R"({"benchmarks": [{"name": 5}]})") == "in:/benchmarks/0/name: expected a string, got a number");
  CHECK(err("google-benchmark", R"({"context": {}})") == "in:/benchmarks: is missing, expected an array");
  CHECK(err("google-benchmark", R"({"benchmarks": [3]})") == "in:/benchmarks/0: expected an object, got a number");
  CHECK(err("google-benchmark", R"({"benchmarks": [{"name": "a", "iterations": 1, "real_time": Infinity}]})")
            .find("Infinity is not a JSON number") != std::string::npos);
  CHECK(err("google-benchmark", R"({"benchmarks": []})").find("in: holds no benchmarks") == 0);
}

TEST_CASE("go-test: real -benchmem -count 3 output") {
  auto v = ok("go-test", "go-test-real-benchmem-count3.txt");
  model::Params p5{{"pkg", "example.com/fib"}, {"procs", "2"}};
  const auto& fib = find(v, "BenchmarkFib/n=5", "wall_time", p5);
  CHECK(fib.samples.size() == 3);
  CHECK(fib.iterations == std::vector<double>{2000, 2000, 2000});
  CHECK(std::abs(fib.samples[0] - 19.35e-9) < 1e-15);
  CHECK(find(v, "BenchmarkFib/n=5", "alloc_bytes").samples.size() == 3);
  CHECK(find(v, "BenchmarkJoin", "allocs").samples.at(0) == 1);
  CHECK(find(v, "BenchmarkJoin", "throughput").unit == "MB/s");
  CHECK(find(v, "BenchmarkJoin", "commas/op").samples.at(0) == 3);
  const auto& fails = find(v, "BenchmarkFails");
  CHECK(fails.status == BenchmarkStatus::failed);
  CHECK(fails.reason == "fib_test.go:40: backend unreachable");
}

TEST_CASE("go-test: -cpu list and -v output") {
  auto v = ok("go-test", "go-test-real-cpu-list.txt");
  CHECK(find(v, "BenchmarkFib/n=5", "wall_time", {{"pkg", "example.com/fib"}, {"procs", "1"}}).samples.size() == 1);
  CHECK(find(v, "BenchmarkFib/n=5", "wall_time", {{"pkg", "example.com/fib"}, {"procs", "2"}}).samples.size() == 1);
  auto verbose = ok("go-test", "go-test-real-verbose.txt");
  CHECK(find(verbose, "BenchmarkSkipped").status == BenchmarkStatus::skipped);
  CHECK(find(verbose, "BenchmarkFails").status == BenchmarkStatus::failed);
  CHECK(find(verbose, "BenchmarkJoin").samples.size() == 1);
}

TEST_CASE("go-test: any unit without spaces is a metric, and a line needs no ns/op (as benchfmt reads it)") {
  auto v = ok("go-test", "go-test-real-custom-units.txt");
  const auto& aux = find(v, "BenchmarkAux", "auxMetricUnits");
  CHECK(aux.samples == std::vector<double>{4, 4});
  CHECK(aux.unit == "auxMetricUnits");
  CHECK(aux.direction == Direction::lower_is_better);
  CHECK(find(v, "BenchmarkAux", "wall_time").samples.size() == 2);
  const auto& real = find(v, "BenchmarkBuild", "build-real-ns/op");
  CHECK(real.samples == std::vector<double>{1.25e9, 1.25e9});
  CHECK(find(v, "BenchmarkBuild", "user-sys-ns/op").samples.at(1) == 3.5e9);
  for (const auto& b : v) CHECK_FALSE((b.key.name == "BenchmarkBuild" && b.key.metric == "wall_time"));
  // A rate of ReportMetric's is higher-is-better.
  auto rate = parse_text("go-test", "BenchmarkR-2  10  5 ns/op  300 widgets/s\n", "in", {});
  REQUIRE(rate.ok());
  CHECK(rate->at(1).direction == Direction::higher_is_better);
}

TEST_CASE("go-test: benchfmt to the letter: any Benchmark name, and an empty key unsets it") {
  auto v = ok("go-test", "go-test-benchfmt-names.txt");
  const auto& storage = find(v, "Benchmarkethereum_storage_total", "total-bytes", {{"pkg", "example.com/chain"}, {"procs", "1"}});
  CHECK(storage.samples == std::vector<double>{7844211, 7851002});
  CHECK(find(v, "BenchmarkImport", "wall_time", {{"pkg", "example.com/chain"}, {"procs", "4"}}).samples.size() == 1);
  // After "pkg:" with no value, results carry no package.
  CHECK(find(v, "Benchmarkethereum_state_total", "total-bytes", {{"procs", "1"}}).samples ==
        std::vector<double>{1204});
  // Prose that begins with "Benchmark" is not a result.
  for (const auto& b : v) CHECK(b.key.name.rfind("Benchmarking", 0) != 0);
  CHECK(v.size() == 3);
}

TEST_CASE("go-test: go test -json output is read as the text it carries") {
  auto text = ok("go-test", "go-test-real-custom-units.txt");
  auto json = ok("go-test", "go-test-real-json.jsonl");
  REQUIRE(json.size() == text.size());
  for (size_t i = 0; i < json.size(); ++i) {
    CHECK(json[i].key == text[i].key);  // package and procs too
    CHECK(json[i].samples.size() == text[i].samples.size());
  }
  CHECK(find(json, "BenchmarkAux", "auxMetricUnits", {{"pkg", "example.com/units"}, {"procs", "2"}}).samples.size() == 2);
}

TEST_CASE("go-test: bad input") {
  CHECK(err("go-test", "BenchmarkX-2   \t  abc\t 12 ns/op\n") ==
        "in:1:19: expected the iteration count after 'BenchmarkX-2', got 'abc'");
  CHECK(err("go-test", "pkg: x\nBenchmarkX-2  100  1e999 ns/op\n") == "in:2:20: expected a finite number, got '1e999'");
  CHECK(err("go-test", "BenchmarkX-2  100  NaN ns/op\n") == "in:1:20: expected a finite number, got 'NaN'");
  CHECK(err("go-test", "BenchmarkX-2  100  12 ns/op  7\n") == "in:1:30: expected pairs of <value> <unit> after the iteration count");
  CHECK(err("go-test", "BenchmarkX-2  100  12 ns/op  7 8\n") == "in:1:32: expected a unit after the value 7, got '8'");
  CHECK(err("go-test", "{\"Action\":\"output\",\"Output\":\"BenchmarkX-2  1  NaN ns/op\\n\"}\n")
            .find("in (go test -json output, as text):1:18: expected a finite number, got 'NaN'") == 0);
  CHECK(err("go-test", "{\"Action\":\"output\"}\nBenchmarkX-2 1 2 ns/op\n") ==
        "in:2: not a test2json event (one JSON object per line)");
  CHECK(err("go-test", "{\"Action\":\"output\"}\n{\"Action\": [[[\n").find("in:2:15: ") == 0);
  // A member of the wrong type is not an output event (found by fuzz-go-test).
  CHECK(err("go-test", "{\"Action\":1,\"Output\":\"x\"}\n{\"Action\":\"output\",\"Package\":2,\"Output\":\"y\"}\n")
            .find("holds no benchmarks") != std::string::npos);
  CHECK(err("go-test", "PASS\nok  x 0.1s\n").find("in: holds no benchmarks") == 0);
}

TEST_CASE("cargo-bench: libtest lines") {
  auto v = ok("cargo-bench", "cargo-bench-documented-format.txt");
  const auto& add = find(v, "bench_add");
  CHECK(add.summary_only);
  CHECK(add.samples.at(0) == Approx(12e-9));
  CHECK(add.summary.at("range") == Approx(1e-9));
  CHECK(find(v, "bench_parse_large").samples.at(0) == Approx(20839388e-9));
  CHECK(find(v, "bench_copy", "throughput").samples.at(0) == 3319);
  CHECK(find(v, "bench_hash").samples.at(0) == Approx(42.17e-9));
  CHECK(find(v, "bench_panics").status == BenchmarkStatus::failed);
  CHECK(v.size() == 6);

  CHECK(err("cargo-bench", "test x ... bench: lots ns/iter (+/- 1)\n") ==
        "in:1:19: expected \"bench: N ns/iter (+/- M)\" after the benchmark name");
  CHECK(err("cargo-bench", "test x ... bench:  1 ns/iter (+/- 1)\ntest x ... bench:  2 ns/iter (+/- 1)\n")
            .find("in:2:1: duplicate benchmark 's/x:wall_time' (first at 1:1)") == 0);
  CHECK(err("cargo-bench", "test result: ok. 0 passed\n").find("holds no benchmarks") != std::string::npos);
}

TEST_CASE("pytest-benchmark: a [...] id stays in the name unless params names the parameters") {
  auto v = parse_text("pytest-benchmark",
                      R"({"benchmarks": [
                        {"name": "t[a]", "fullname": "m.py::t[a]", "params": null, "stats": {"mean": 1}},
                        {"name": "t[b]", "fullname": "m.py::t[b]", "params": null, "stats": {"mean": 2}},
                        {"name": "u[1]", "fullname": "m.py::u[1]", "params": {"n": 1}, "stats": {"mean": 3}}]})",
                      "in", {});
  REQUIRE(v.ok());
  REQUIRE(v->size() == 3);
  CHECK(v->at(0).key.name == "m.py::t[a]");  // two ids, two benchmarks
  CHECK(v->at(1).key.name == "m.py::t[b]");
  CHECK(v->at(2).key.name == "m.py::u");
  CHECK(v->at(2).key.params.at("n") == "1");
}

TEST_CASE("pytest-benchmark: documented schema") {
  auto v = ok("pytest-benchmark", "pytest-benchmark-documented-schema.json");
  const auto& parse = find(v, "tests/test_perf.py::test_parse");
  CHECK(parse.key.params == model::Params{{"mode", "strict"}, {"size", "small"}});
  CHECK(parse.samples.size() == 5);
  CHECK(parse.iterations == std::vector<double>(5, 10));
  CHECK(parse.summary.at("median") == 1.2e-05);
  // Summary values are seconds; ops (rounds per second) is not one of them.
  CHECK_FALSE(parse.summary.count("ops"));
  CHECK(parse.extra["ops"] == 80000.0);
  CHECK(parse.summary.at("total") == 6.25e-05);
  const auto& write = find(v, "tests/test_perf.py::test_write");
  CHECK(write.summary_only);  // no stats.data
  CHECK(write.samples == std::vector<double>{0.002});
  CHECK_FALSE(write.summary.count("stddev"));  // NaN for one round: dropped
  CHECK(write.extra["group"] == "io");

  CHECK(err("pytest-benchmark", R"({"benchmarks": [{"name": "t", "stats": {"mean": NaN}}]})") ==
        "in:/benchmarks/0/stats/mean: expected a finite number, got NaN");
  CHECK(err("pytest-benchmark", R"({"benchmarks": [{"name": "t", "stats": {"mean": 1, "data": [1, "x"]}}]})") ==
        "in:/benchmarks/0/stats/data/1: expected a number, got the string \"x\"");
  CHECK(err("pytest-benchmark", R"({"benchmarks": [{"name": "t"}]})") == "in:/benchmarks/0/stats: is missing, expected an object");
  CHECK(err("pytest-benchmark", truncated("pytest-benchmark-documented-schema.json")).find("in:") == 0);
}

TEST_CASE("bmf: documented schema") {
  auto v = ok("bmf", "bmf-documented-schema.json");
  CHECK(v.size() == 4);
  const auto& lat = find(v, "parser::json_small");
  CHECK(lat.samples.at(0) == Approx(8814e-9));
  CHECK(lat.summary.at("lower_value") == Approx(8712.5e-9));
  CHECK(lat.summary_only);
  CHECK(find(v, "parser::json_small", "throughput").unit == "ops/s");
  CHECK(find(v, "binary", "file-size").unit == "bytes");
  CHECK(find(v, "queue::depth", "queue-depth").unit == "unspecified");

  CHECK(err("bmf", R"({"b": {"latency": {"lower_value": 1}}})") == "in:/b/latency/value: is missing, expected a number");
  CHECK(err("bmf", R"({"b": {"latency": 3}})") == "in:/b/latency: expected an object, got a number");
  CHECK(err("bmf", R"({"b": {}})") == "in:/b: expected at least one measure (e.g. \"latency\")");
  CHECK(err("bmf", R"([1, 2])") == "in:(document root): expected an object of benchmarks (Bencher Metric Format)");
}

TEST_CASE("catch2-xml: real v2 output and documented v3 layout") {
  auto v = ok("catch2-xml", "catch2-v2-real-benchmarks.xml");
  CHECK(v.size() == 5);
  const auto& fib = find(v, "Fibonacci/fib 10");
  CHECK(fib.summary_only);
  CHECK(fib.samples.at(0) == Approx(242.593e-9));
  CHECK(fib.summary.at("stddev") == Approx(0.949611e-9));
  CHECK(fib.extra["iterations"] == 121);
  find(v, "Containers/vector/push_back 100");
  const auto& thrown = find(v, "Throws/throws");
  CHECK(thrown.status == BenchmarkStatus::failed);
  CHECK(thrown.reason == "backend unreachable");

  auto v3 = ok("catch2-xml", "catch2-v3-documented-schema.xml");
  CHECK(v3.size() == 2);
  CHECK(find(v3, "Parsing/json/small document").samples.at(0) == Approx(987.25e-9));

  CHECK(err("catch2-xml", truncated("catch2-v2-real-benchmarks.xml")).find("XML error") != std::string::npos);
  CHECK(err("catch2-xml", "<Catch>\n<TestCase name=\"t\">\n<BenchmarkResults name=\"b\">\n<mean value=\"x\"/>\n</BenchmarkResults></TestCase></Catch>") ==
        "in:4:1: <mean> value=\"x\" is not a finite number");
  CHECK(err("catch2-xml", "<Catch><TestCase name=\"t\"><BenchmarkResults name=\"b\"></BenchmarkResults></TestCase></Catch>") ==
        "in:1:1: <BenchmarkResults name=\"b\"> has no <mean> or <failed> element");
  CHECK(err("catch2-xml", "<testsuites/>") ==
        "in:1:1: expected a Catch2 XML report (root element <Catch> or <Catch2TestRun>)");
  CHECK(err("catch2-xml", "<Catch>\n  <oops></Catch>").rfind("in:2:", 0) == 0);
}

TEST_CASE("asv: results with benchmarks.json beside them") {
  auto v = ok("asv", "asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json");
  const auto& keys = find(v, "benchmarks.TimeSuite.time_keys");
  CHECK(keys.samples.size() == 10);
  CHECK(keys.iterations == std::vector<double>(10, 4096));
  CHECK(keys.summary.at("median") == 2.3e-06);
  CHECK(keys.summary.at("ci_99_a") == 2.1e-06);
  CHECK(keys.extra["benchmark_version"].get<std::string>().substr(0, 6) == "a1b2c3");

  const auto& q10 = find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"n", "10"}, {"kind", "'quick'"}});
  CHECK(q10.summary_only);
  CHECK(q10.samples == std::vector<double>{1.1e-07});
  CHECK(find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"n", "1000"}, {"kind", "'quick'"}}).status ==
        BenchmarkStatus::skipped);  // NaN
  CHECK(find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"n", "1000"}, {"kind", "'merge'"}}).status ==
        BenchmarkStatus::failed);  // null
  CHECK(find(v, "benchmarks.MemSuite.mem_list", "memory").unit == "bytes");
  CHECK(find(v, "benchmarks.track_queue_depth", "track").unit == "jobs");
  const auto& missing = find(v, "benchmarks.TimeSuite.time_not_run");
  CHECK(missing.status == BenchmarkStatus::skipped);
  CHECK(missing.reason == "listed in benchmarks.json but absent from this results file");
}

TEST_CASE("asv: results alone, and bad input") {
  auto text = read_file(fixture("asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json"));
  REQUIRE(text.ok());
  auto r = parse_text("asv", *text, "r.json", opts());
  REQUIRE(r.ok());
  // Without benchmarks.json parameters are named param1, param2 and the
  // type comes from the name's prefix.
  CHECK(find(*r, "benchmarks.TimeSuite.time_sort", "wall_time", {{"param1", "10"}, {"param2", "'merge'"}}).samples.size() == 1);
  CHECK(r->size() == 7);

  std::string head = R"({"version": 2, "result_columns": ["result", "params"], "results": )";
  CHECK(err("asv", head + R"({"b.time_x": [[1, 2], []]}})") ==
        "in:/results/b.time_x/0: has 2 values for 1 parameter combinations");
  CHECK(err("asv", head + R"({"b.time_x": [["1"], []]}})") ==
        "in:/results/b.time_x/0/0: expected a number, null (failed) or NaN (skipped)");
  CHECK(err("asv", head + R"({"b.time_x": [[Infinity], []]}})") ==
        "in:/results/b.time_x/0/0: expected a finite number, got infinity");
  CHECK(err("asv", head + R"({"b.x": [[1], []]}})").find("in:/results/b.x: cannot tell the benchmark type") == 0);
  CHECK(err("asv", R"({"version": 3, "results": {}})") == "in:/version: expected asv results api version 1 or 2, got 3");
  CHECK(err("asv", R"({"version": 2, "results": {}})") == "in:/result_columns: is missing, expected an array");
  CHECK(err("asv", truncated("asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json")).find("in:3:") == 0);
}

TEST_CASE("asv: api version 1 (asv 0.4) is read as asv reads it") {
  auto v = ok("asv", "asv-documented-v1.json");
  CHECK(v.size() == 9);
  const auto& keys = find(v, "benchmarks.TimeSuite.time_keys");
  CHECK(keys.samples.size() == 10);
  CHECK(keys.iterations == std::vector<double>(10, 4096));  // stats.number
  CHECK(keys.summary.at("median") == 2.3e-06);
  CHECK(keys.summary.at("ci_99_b") == 2.5e-06);
  CHECK(keys.summary.at("q_25") == 2.25e-06);
  CHECK(keys.extra["benchmark_version"].get<std::string>().substr(0, 6) == "a1b2c3");
  const auto& q10 = find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"param1", "10"}, {"param2", "'quick'"}});
  CHECK(q10.summary_only);
  CHECK(q10.summary.at("ci_99_a") == 1.0e-07);
  CHECK(find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"param1", "1000"}, {"param2", "'quick'"}}).status ==
        BenchmarkStatus::skipped);  // NaN
  CHECK(find(v, "benchmarks.TimeSuite.time_sort", "wall_time", {{"param1", "1000"}, {"param2", "'merge'"}}).status ==
        BenchmarkStatus::failed);  // null
  // A bare result and a single stats dict (before lists), and a bare number.
  const auto& parse = find(v, "benchmarks.TimeSuite.time_parse");
  CHECK(parse.samples == std::vector<double>{4.5e-05});
  CHECK(parse.summary.at("q_75") == 4.6e-05);
  CHECK(find(v, "benchmarks.MemSuite.mem_list", "memory").samples == std::vector<double>{2104});
  CHECK(find(v, "benchmarks.track_queue_depth", "track").samples == std::vector<double>{42});
  CHECK(find(v, "benchmarks.TimeSuite.time_broken").status == BenchmarkStatus::failed);

  // Errors point into the file as it is.
  std::string head = R"({"version": 1, "results": )";
  CHECK(err("asv", head + R"({"b.time_x": {"result": ["1"]}}})") ==
        "in:/results/b.time_x/result/0: expected a number, null (failed) or NaN (skipped)");
  CHECK(err("asv", head + R"({"b.time_x": {"result": [1, 2], "params": [["a"]]}}})") ==
        "in:/results/b.time_x/result: has 2 values for 1 parameter combinations");
  CHECK(err("asv", head + R"({"b.time_x": {"stats": [3]}}})") == "in:/results/b.time_x/result: is missing, expected a number, null or a list");
  CHECK(err("asv", head + R"({"b.time_x": {"result": [1], "stats": [3]}}})") == "in:/results/b.time_x/stats/0: expected an object or null");
  CHECK(err("asv", head + R"({"b.time_x": {"result": [1], "samples": [[1, "x"]]}}})") ==
        "in:/results/b.time_x/samples/0/1: expected a number, got the string \"x\"");
  CHECK(err("asv", R"({"version": 1})") == "in:/results: is missing, expected an object");
}

TEST_CASE("criterion: directory output") {
  auto v = ok("criterion", "criterion-documented-schema/criterion");
  REQUIRE(v.size() == 3);  // base/ and report/ are not read; parse's throughput is a metric
  const auto& fib = find(v, "fib/iterative");
  CHECK(fib.key.params.at("value") == "20");
  CHECK(fib.samples.size() == 5);
  CHECK(fib.samples[0] == Approx(40610.0 / 1310.0 * 1e-9));
  CHECK(fib.iterations[4] == 6550);
  CHECK(fib.summary.at("mean") == Approx(30.76e-9));
  CHECK(fib.summary.at("slope") == Approx(30.74e-9));
  const auto& parse = find(v, "parse");
  CHECK(parse.summary.empty());  // no estimates.json
  CHECK(parse.extra["throughput"]["Bytes"] == 4096);
  const auto& rate = find(v, "parse", "throughput");
  CHECK(rate.unit == "bytes/s");
  CHECK(rate.direction == model::Direction::higher_is_better);
  CHECK(rate.samples[0] == Approx(4096 / parse.samples[0]));

  auto file = parse_path("criterion", fixture("criterion-documented-schema/criterion/parse/new/sample.json"), opts());
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().message.find("is not a directory; expected criterion's output directory") != std::string::npos);
  auto empty = parse_path("criterion", fixture("criterion-documented-schema/criterion/report"), opts());
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("holds no benchmarks") != std::string::npos);
}

TEST_CASE("criterion: the layout before 0.3 (sample pairs, capitalised estimates)") {
  auto v = ok("criterion", "criterion-documented-pre-0.3/criterion");
  REQUIRE(v.size() == 2);  // wall_time and the declared throughput
  const auto& wall = find(v, "sort", "wall_time", {{"value", "1000"}});
  CHECK(wall.iterations == std::vector<double>{10, 20, 30, 40, 50});
  CHECK(wall.samples.at(0) == Approx(152000.0 / 10 * 1e-9));
  CHECK(wall.summary.at("mean") == Approx(15127e-9));
  CHECK(wall.summary.at("stddev") == Approx(103e-9));
  CHECK(wall.summary.at("median_abs_dev") == Approx(74.1e-9));
  CHECK(wall.summary.at("slope") == Approx(15110e-9));
  CHECK(find(v, "sort", "throughput", {{"value", "1000"}}).unit == "elements/s");

  using detail::CriterionFiles;
  CriterionFiles f;
  f.benchmark_source = "b.json";
  f.sample_source = "s.json";
  f.benchmark_json = R"({"group_id": "g"})";
  f.sample_json = "[[1, 2], [1]]";
  CHECK(detail::parse_criterion_files(f).error().message ==
        "s.json:/1: has 1 entries for 2 iters; expected one time per entry of iters");
  f.sample_json = "[[1], [1], [1]]";
  CHECK(detail::parse_criterion_files(f).error().message.find("expected an object {\"iters\", \"times\"} or, before criterion 0.3, a pair") != std::string::npos);
  f.sample_json = "[[0], [1]]";
  CHECK(detail::parse_criterion_files(f).error().message == "s.json:/0/0: expected a positive iteration count");
  f.sample_json = "[[1], 5]";
  CHECK(detail::parse_criterion_files(f).error().message == "s.json:/1: expected an array, got a number");
}

TEST_CASE("criterion-csv: raw.csv, one row per sample, files concatenated") {
  auto v = ok("criterion-csv", "criterion-csv-documented-raw.csv");
  REQUIRE(v.size() == 4);  // sort (and its throughput), parse, fib
  const auto& sort = find(v, "sort", "wall_time", {{"value", "1000"}});
  CHECK(sort.iterations == std::vector<double>{10, 20, 30, 40});
  CHECK(sort.samples.at(1) == Approx(301000.0 / 20 * 1e-9));
  const auto& rate = find(v, "sort", "throughput", {{"value", "1000"}});
  CHECK(rate.unit == "elements/s");
  CHECK(rate.direction == Direction::higher_is_better);
  CHECK(find(v, "parse/json, strict").samples.size() == 3);  // a quoted comma
  CHECK(find(v, "fib \"fast\"/iterative", "wall_time", {{"value", "20"}}).samples.at(0) == Approx(30e-9));

  const std::string head = "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n";
  CHECK(err("criterion-csv", "a,b\n1,2\n").find("in:1:1: expected criterion's raw.csv header") == 0);
  CHECK(err("criterion-csv", head + "g,,,,,x,ns,1\n") == "in:2:7: sample_measured_value: expected a finite number, got 'x'");
  CHECK(err("criterion-csv", head + "g,,,,,1,ns,0\n") == "in:2:12: iteration_count: expected a positive count");
  CHECK(err("criterion-csv", head + "g,,,,,1,ns\n") == "in:2:1: has 7 fields, expected 8");
  CHECK(err("criterion-csv", head + "\"g,,,,,1,ns,1\n") == "in:2:1: a quoted field is not closed");
  CHECK(err("criterion-csv", head + "\"g\"x,,,,,1,ns,1\n") == "in:2:4: expected ',' or the end of the line after a quoted field");
  CHECK(err("criterion-csv", head + "g,,,5,bits,1,ns,1\n") == "in:2:7: throughput_type: expected bytes or elements, got 'bits'");
  CHECK(err("criterion-csv", head).find("in: holds no benchmarks") == 0);
  // A custom measurement keeps its unit.
  auto custom = parse_text("criterion-csv", head + "g,,,,,30,cycles,10\n", "in", {});
  REQUIRE(custom.ok());
  CHECK(custom->at(0).key.metric == "cycles");
  CHECK(custom->at(0).samples.at(0) == 3);
}

TEST_CASE("pyperf: every value of every run, warmups and calibration apart") {
  auto v = ok("pyperf", "pyperf-documented-schema.json");
  REQUIRE(v.size() == 3);
  const auto& meteor = find(v, "meteor_contest");
  CHECK(meteor.samples == std::vector<double>{0.1598, 0.1603, 0.1595, 0.1601, 0.1596, 0.1599});
  CHECK(meteor.iterations == std::vector<double>(6, 4));  // loops, from the benchmark's metadata
  CHECK(meteor.extra["runs"] == 2);      // the calibration run measured nothing
  CHECK(meteor.extra["warmups"] == 5);   // and none of its warmups is a sample
  const auto& unpack = find(v, "unpack_sequence");
  CHECK(unpack.iterations == std::vector<double>(3, 8192.0 * 400));  // loops x inner_loops
  const auto& rss = find(v, "startup_rss", "memory");
  CHECK(rss.unit == "bytes");
  CHECK(rss.samples.at(1) == 18878464);

  CHECK(err("pyperf", R"({"version": "2.0", "benchmarks": []})") == "in:/version: expected pyperf format version 1.x, got \"2.0\"");
  CHECK(err("pyperf", R"({"version": "1.0", "benchmarks": [{"runs": []}]})") ==
        "in:/benchmarks/0/metadata/name: is missing, expected the benchmark's name (a string)");
  CHECK(err("pyperf", R"({"version": "1.0", "benchmarks": [{"metadata": {"name": "a", "unit": "parsec"}, "runs": []}]})") ==
        "in:/benchmarks/0/metadata/unit: unknown unit \"parsec\", expected second, byte or integer");
  CHECK(err("pyperf", R"({"version": "1.0", "benchmarks": [{"metadata": {"name": "a"}, "runs": [{"values": [1, "x"]}]}]})") ==
        "in:/benchmarks/0/runs/0/values/1: expected a number, got the string \"x\"");
  CHECK(err("pyperf", R"({"version": "1.0", "benchmarks": [{"metadata": {"name": "a", "loops": 0}, "runs": [{"values": [1]}]}]})") ==
        "in:/benchmarks/0/runs/0/metadata/loops: expected a positive number of loops");
  // The name may be the file's (a single-benchmark file); no values: skipped.
  auto one = parse_text("pyperf", R"({"version": "1.0", "metadata": {"name": "solo"}, "benchmarks": [{"runs": [{"warmups": [[1, 2]]}]}]})", "in", {});
  REQUIRE(one.ok());
  CHECK(one->at(0).key.name == "solo");
  CHECK(one->at(0).status == BenchmarkStatus::skipped);
}

TEST_CASE("vitest: bench --outputJson, summaries in milliseconds, samples when kept") {
  auto v = ok("vitest", "vitest-real-bench.json");
  REQUIRE(v.size() == 3);
  const auto& native = find(v, "bench/sort.bench.js > sort > native");
  CHECK(native.summary_only);  // vitest leaves samples out unless asked
  CHECK(native.samples.at(0) == Approx(native.summary.at("mean")));
  CHECK(native.summary.at("mean") < 0.01);  // milliseconds became seconds
  CHECK(native.summary.count("p99"));
  CHECK(native.summary.count("stddev"));
  CHECK(native.extra.contains("hz"));
  CHECK(find(v, "bench/sort.bench.js > json roundtrip").unit == "s");

  auto doc = nlohmann::json::parse(*read_file(fixture("vitest-real-bench.json")));
  doc["files"][0]["groups"][0]["benchmarks"][0]["samples"] = {0.5, 0.25, 0.75};
  auto kept = parse_text("vitest", doc.dump(), "in", {});
  REQUIRE(kept.ok());
  CHECK(kept->at(0).samples == std::vector<double>{0.5e-3, 0.25e-3, 0.75e-3});
  CHECK_FALSE(kept->at(0).summary_only);

  CHECK(err("vitest", R"({"files": [{"groups": [{"fullName": "g", "benchmarks": [{"name": "b", "samples": [1, "x"]}]}]}]})") ==
        "in:/files/0/groups/0/benchmarks/0/samples/1: expected a number, got the string \"x\"");
  CHECK(err("vitest", R"({"files": [{"groups": [{"fullName": "g", "benchmarks": [{"name": "b"}]}]}]})") ==
        "in:/files/0/groups/0/benchmarks/0/mean: is missing, expected a number");
  CHECK(err("vitest", R"({"files": [{"groups": [{"benchmarks": []}]}]})") ==
        "in:/files/0/groups/0/fullName: is missing, expected a string");
}

TEST_CASE("jmh: primary and secondary metrics, every iteration of every fork, modes and units") {
  auto v = ok("jmh", "jmh-documented-schema.json");
  REQUIRE(v.size() == 5);
  const model::Params p{{"size", "100"}, {"strict", "true"}};
  const auto& thrpt = find(v, "org.example.ParseBench.parse", "throughput", p);
  CHECK(thrpt.samples == std::vector<double>{1498.2, 1521.3, 1530.1, 1518.6, 1525.2, 1547.0});
  CHECK(thrpt.direction == Direction::higher_is_better);  // thrpt
  CHECK(thrpt.unit == "ops/s");
  CHECK(thrpt.summary.at("score_error") == 21.7);
  CHECK(thrpt.extra["forks"] == 2);
  const auto& alloc = find(v, "org.example.ParseBench.parse", "gc.alloc.rate", p);
  CHECK(alloc.direction == Direction::higher_is_better);  // MB/sec is a rate
  const auto& norm = find(v, "org.example.ParseBench.parse", "gc.alloc.rate.norm", p);
  CHECK(norm.direction == Direction::lower_is_better);
  CHECK(norm.unit == "B/op");
  const auto& avgt = find(v, "org.example.ParseBench.tokenize", "wall_time", p);
  CHECK(avgt.samples.at(0) == Approx(408.1e-6));  // us/op in seconds
  CHECK(avgt.summary.at("score") == Approx(412.3e-6));
  CHECK(avgt.direction == Direction::lower_is_better);
  const auto& sample = find(v, "org.example.ParseBench.lookup", "wall_time");
  CHECK(sample.samples.size() == 11);  // the histogram's counts
  CHECK(sample.samples.back() == Approx(31e-9));

  CHECK(err("jmh", R"({"benchmark": "x"})") == "in:(document root): expected an array of JMH runs (-rf json)");
  CHECK(err("jmh", R"([{"benchmark": "x", "mode": "fast", "primaryMetric": {}}])") ==
        "in:/0/mode: expected thrpt, avgt, sample or ss, got \"fast\"");
  CHECK(err("jmh", R"([{"benchmark": "x", "mode": "avgt", "primaryMetric": {"score": 1, "scoreUnit": "ops/s"}}])") ==
        "in:/0/primaryMetric/scoreUnit: expected a time per operation (e.g. ms/op) in mode avgt, got \"ops/s\"");
  CHECK(err("jmh", R"([{"benchmark": "x", "mode": "thrpt", "primaryMetric": {"score": 1, "scoreUnit": "ops/s", "rawData": [[1, "y"]]}}])") ==
        "in:/0/primaryMetric/rawData/0/1: expected a number, got the string \"y\"");
  CHECK(err("jmh", R"([{"benchmark": "x", "mode": "sample", "primaryMetric": {"score": 1, "scoreUnit": "ns/op", "rawDataHistogram": [[[[1, 2.5]]]]}}])") ==
        "in:/0/primaryMetric/rawDataHistogram/0/0/0/1: expected a count (a whole number)");
  CHECK(err("jmh", R"([{"benchmark": "x", "mode": "sample", "primaryMetric": {"score": 1, "scoreUnit": "ns/op", "rawDataHistogram": [[[[1, 1e12]]]]}}])")
            .find("holds more than 10000000 samples") != std::string::npos);
}

TEST_CASE("criterion: bad files") {
  using detail::CriterionFiles;
  CriterionFiles f;
  f.benchmark_source = "b.json";
  f.sample_source = "s.json";
  f.estimates_source = "e.json";
  f.benchmark_json = R"({"group_id": "g"})";
  f.sample_json = R"({"iters": [1, 2], "times": [1]})";
  auto r = detail::parse_criterion_files(f);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "s.json:/times: has 1 entries for 2 iters; expected one time per entry of iters");
  f.sample_json = R"({"iters": [0], "times": [1]})";
  CHECK(detail::parse_criterion_files(f).error().message == "s.json:/iters/0: expected a positive iteration count");
  f.sample_json = R"({"iters": [1], "times": [1]})";
  f.benchmark_json = R"({"group": "g"})";
  CHECK(detail::parse_criterion_files(f).error().message == "b.json:/group_id: is missing, expected a string");
  f.benchmark_json = R"({"group_id": "g"})";
  f.estimates_json = R"({"mean": {"point_estimate": "x"}})";
  CHECK(detail::parse_criterion_files(f).error().message ==
        "e.json:/mean/point_estimate: expected a number, got the string \"x\"");
}

TEST_CASE("detect_format recognises each fixture") {
  const std::pair<const char*, const char*> kCases[] = {
      {"hyperfine-real-basic.json", "hyperfine"},
      {"benchbox-canonical.json", "benchbox"},
      {"google-benchmark-real-basic.json", "google-benchmark"},
      {"pytest-benchmark-documented-schema.json", "pytest-benchmark"},
      {"bmf-documented-schema.json", "bmf"},
      {"asv-documented-schema/results/ci-box/4f1c2b3a-virtualenv-py3.11.json", "asv"},
      {"asv-documented-v1.json", "asv"},
      {"catch2-v2-real-benchmarks.xml", "catch2-xml"},
      {"catch2-v3-documented-schema.xml", "catch2-xml"},
      {"go-test-real-benchmem-count3.txt", "go-test"},
      {"go-test-real-custom-units.txt", "go-test"},
      {"go-test-real-json.jsonl", "go-test"},
      {"cargo-bench-documented-format.txt", "cargo-bench"},
      {"criterion-documented-schema/criterion", "criterion"},
      {"criterion-csv-documented-raw.csv", "criterion-csv"},
      {"pyperf-documented-schema.json", "pyperf"},
      {"vitest-real-bench.json", "vitest"},
      {"jmh-documented-schema.json", "jmh"},
      {"benchmarkdotnet-documented-full.json", "benchmarkdotnet"},
      {"julia-benchmarktools-documented-save.json", "julia-benchmarktools"},
      {"iai-callgrind-documented-summary.json", "iai-callgrind"},
      {"iai-callgrind-documented-output.jsonl", "iai-callgrind"},
      {"iai-callgrind-documented-v2.json", "iai-callgrind"},
      {"iai-callgrind-documented-v3.json", "iai-callgrind"},
      {"iai-callgrind-documented-v7.json", "iai-callgrind"},
  };
  for (const auto& [file, format] : kCases) {
    INFO(file);
    auto r = detect_format(fixture(file));
    REQUIRE(r.ok());
    CHECK(*r == format);
    auto parsed = parse_path(*r, fixture(file), opts());
    CHECK(parsed.ok());
  }
  auto list = detect_format(fixture("asv-documented-schema/results/benchmarks.json"));
  REQUIRE_FALSE(list.ok());
  CHECK(list.error().message.find("is asv's benchmarks.json") != std::string::npos);
  auto one = detect_format(fixture("criterion-documented-schema/criterion/parse/new/benchmark.json"));
  REQUIRE_FALSE(one.ok());
  CHECK(one.error().message.find("give the criterion directory") != std::string::npos);
  auto src = detect_format(fixture("sources/gbench_fixture.cpp"));
  REQUIRE_FALSE(src.ok());
  CHECK(src.error().message.find("name the format with --format") != std::string::npos);
}

TEST_CASE("listings: each harness's own list format") {
  auto names = [](const std::string& format, const std::string& text) {
    auto r = parse_listing(format, text, "list");
    if (!r) FAIL(r.error().message);
    return *r;
  };
  using V = std::vector<std::string>;
  // ./bench --benchmark_list_tests
  CHECK(names("google-benchmark", "BM_memcpy/8\nBM_memcpy/64\n\nBM_sort\n") == V{"BM_memcpy/64", "BM_memcpy/8", "BM_sort"});
  // go test -list 'Benchmark.*' ./...: tests and the package lines are not benchmarks
  CHECK(names("go-test", "BenchmarkFib\nTestFib\nBenchmarkJoin\nok  \texample.com/fib\t0.003s\n"
                         "?   \texample.com/cmd\t[no test files]\n") == V{"BenchmarkFib", "BenchmarkJoin"});
  // pytest --collect-only -q
  CHECK(names("pytest-benchmark", "tests/test_sort.py::test_sort[10]\ntests/test_sort.py::test_sort[100]\n\n"
                                  "2 tests collected in 0.01s\n") ==
        V{"tests/test_sort.py::test_sort[100]", "tests/test_sort.py::test_sort[10]"});
  // anything else: one name a line; comments, blanks and repeats dropped; CRLF is fine
  CHECK(names("hyperfine", "# header\r\nsort\r\nsort\r\n  grep  \r\n") == V{"grep", "sort"});
  auto nul = parse_listing("hyperfine", std::string("a\nb\0c\n", 6), "list");
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().message == "list:2: a NUL byte in the listing");
}

TEST_CASE("callgrind totals: events and their summary, trailing zeros left out") {
  const std::string out = "version: 1\ncreator: callgrind-3.19.0\npid: 22361\ncmd:  /bin/sh -c true\n"
                          "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
                          "summary: 227654 55390 22775 1556 1740 739 1531 1281 703 41804 4483\n"
                          "fl=(1) ???\nfn=(1) 0x0\n0 3 1\n"
                          "totals: 227661 55393 22776 1557 1741 739 1532 1281 703 41807 4485 1163 250\n";
  auto t = parse_callgrind_totals(out, "callgrind.out.1");
  REQUIRE(t.ok());
  CHECK(t->at("Ir") == 227654);  // summary: wins over totals:
  CHECK(t->at("Bcm") == 4483);
  CHECK(t->at("Bim") == 0);
  CHECK(callgrind_metric("Ir") == "instructions");
  CHECK(callgrind_metric("D1mr") == "l1d_read_misses");
  CHECK(callgrind_metric("sysTime") == "");
  CHECK(parse_callgrind_totals("hello\n", "x").error().message == "x: no 'events:' line; not a callgrind output file");
  CHECK(parse_callgrind_totals("events: Ir\n", "x").error().message ==
        "x: no 'summary:' or 'totals:' line (did valgrind finish?)");
  CHECK(parse_callgrind_totals("events: Ir\nsummary: lots\n", "x").error().message ==
        "x: count 'lots' of Ir is not a number");
}

TEST_CASE("callgrind profiles: self and inclusive per function, and the diff base -> head") {
  // main calls work twice (inclusive cost on the line after calls=);
  // names are compressed after their first use.
  auto profile = [](int work_cost) {
    const std::string w = std::to_string(work_cost);
    return "version: 1\npositions: line\nevents: Ir Dr\n"
           "fl=(1) main.c\nfn=(1) main\n10 5 1\ncfn=(2) work\ncalls=2 20\n11 " + std::to_string(2 * work_cost) +
           " 0\n+1 3\n"
           "fn=(2)\n20 " + w + " 2\n* 0\n"
           "fn=(3) helper\n30 7\n";
  };
  std::map<std::string, FunctionCost> base, head;
  REQUIRE(add_callgrind_functions(profile(100), "base", base).ok());
  CHECK(base["main"].self == 8);
  CHECK(base["main"].inclusive == 208);
  CHECK(base["work"].self == 100);
  CHECK(base["helper"].self == 7);
  REQUIRE(add_callgrind_functions(profile(110), "head", head).ok());
  auto diff = profile_diff(base, head);
  REQUIRE(diff.size() == 2);  // helper did not change
  CHECK(diff[0].function == "work");
  CHECK(diff[0].head.self - diff[0].base.self == 10);
  CHECK(diff[0].share == Approx(1.0));
  CHECK(diff[1].function == "main");  // its self did not change, its inclusive did
  CHECK(diff[1].head.inclusive - diff[1].base.inclusive == 20);
  std::map<std::string, FunctionCost> junk;
  CHECK_FALSE(add_callgrind_functions("events: Dr\n", "x", junk).ok());
}
