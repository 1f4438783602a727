// benchmarkdotnet: JsonExporter's full JSON against a fixture written from
// BenchmarkDotNet's JsonExporterBase, the brief and 0.10 layouts, several
// jobs, and bad input.
#include <string>

#include "formats/test_formats_support.h"

using namespace bb;
using namespace bb::formats;
using namespace bb::formats::testing;
using model::BenchmarkStatus;
using model::Direction;

namespace {

const char* kFormat = "benchmarkdotnet";
const char* kFixture = "benchmarkdotnet-documented-full.json";

std::vector<model::Benchmark> parse(const std::string& text) { return ok_text(kFormat, text); }

// A document holding one benchmark whose members (after Type and Method) are `rest`.
std::string one(const std::string& rest, const std::string& method = "Run") {
  return R"({"HostEnvironmentInfo": {}, "Benchmarks": [{"Namespace": "Ns", "Type": "T", "Method": ")" + method +
         R"(", "FullName": "Ns.T.)" + method + R"(")" + (rest.empty() ? "" : ", " + rest) + "}]}";
}

const std::string kResult =
    R"({"IterationMode": "Workload", "IterationStage": "Result", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 4, "Nanoseconds": 2000})";

}  // namespace

TEST_CASE("benchmarkdotnet: Result measurements, statistics, memory, metrics, a failed benchmark") {
  auto v = ok(kFormat, kFixture);
  REQUIRE(v.size() == 9);  // Parse and Serialize: time, memory, 2 metrics; ParseInvalid: time
  const model::Params p{{"Size", "1000"}, {"Input", "a,b"}};

  const auto& parse = find(v, "Acme.Json.Benchmarks.ParserBench.Parse", "wall_time", p);
  CHECK(parse.key.params == p);  // "Size=1000&Input=a,b": the comma is part of the value
  CHECK(parse.unit == "s");
  CHECK(parse.direction == Direction::lower_is_better);
  CHECK_FALSE(parse.summary_only);
  CHECK(parse.status == BenchmarkStatus::ok);
  // 4 of the 5 Workload/Actual iterations survived BDN's outlier removal;
  // Jitting, Pilot, Warmup, Overhead and Actual measurements are not samples.
  REQUIRE(parse.samples.size() == 4);
  CHECK(parse.samples[0] == Approx(460995670.0 / 262144 * 1e-9));  // 1.758559 us per operation
  CHECK(parse.samples[0] == Approx(1.758558922e-6));
  CHECK(parse.iterations == std::vector<double>(4, 262144));
  CHECK(parse.summary.at("mean") == Approx(1757.033043e-9));
  CHECK(parse.summary.at("median") == Approx(1756.460838e-9));
  CHECK(parse.summary.at("stddev") == Approx(8.759971e-9));
  CHECK(parse.summary.at("stderr") == Approx(4.379986e-9));
  CHECK(parse.summary.at("p95") == Approx(1766.665154e-9));
  CHECK(parse.summary.at("ci_margin") == Approx(56.606935e-9));
  CHECK(parse.summary.count("kurtosis") == 0);
  CHECK(parse.extra["launches"] == 1);
  CHECK(parse.extra["job"] == "DefaultJob");
  CHECK(parse.extra["benchmarkdotnet_version"] == "0.14.0");
  CHECK(parse.extra["runtime_version"] == ".NET 8.0.11 (8.0.1124.51707)");
  CHECK(parse.key.params.count("job") == 0);  // one job in the file

  const auto& mem = find(v, "Acme.Json.Benchmarks.ParserBench.Parse", "memory", p);
  CHECK(mem.unit == "bytes");
  CHECK(mem.summary_only);
  CHECK(mem.samples == std::vector<double>{1184});
  CHECK(mem.direction == Direction::lower_is_better);
  CHECK(mem.extra["Gen0Collections"] == 120);
  CHECK(mem.extra["TotalOperations"] == 1310720);

  const auto& gen0 = find(v, "Acme.Json.Benchmarks.ParserBench.Parse", "Gen0Collects", p);
  CHECK(gen0.unit == "count");
  CHECK(gen0.samples == std::vector<double>{0.0916});
  CHECK(gen0.summary_only);
  CHECK(gen0.direction == Direction::lower_is_better);
  CHECK(gen0.extra["display_name"] == "Gen0");
  find(v, "Acme.Json.Benchmarks.ParserBench.Parse", "CompletedWorkItemCount", p);
  for (const auto& b : v) CHECK(b.key.metric != "Allocated Memory");  // it is `memory`

  const auto& ser = find(v, "Acme.Json.Benchmarks.ParserBench.Serialize");
  CHECK(ser.key.params.empty());
  CHECK(ser.samples.size() == 5);
  CHECK(ser.samples[4] == Approx(512395520.0 / 1048576 * 1e-9));
  CHECK(find(v, "Acme.Json.Benchmarks.ParserBench.Serialize", "memory").samples == std::vector<double>{0});

  const auto& bad = find(v, "Acme.Json.Benchmarks.ParserBench.ParseInvalid", "wall_time", p);
  CHECK(bad.status == BenchmarkStatus::failed);
  CHECK(bad.samples.empty());
  CHECK(bad.reason.find("no Workload Result measurement") != std::string::npos);
  int invalid = 0;
  for (const auto& b : v) invalid += b.key.name == "Acme.Json.Benchmarks.ParserBench.ParseInvalid";
  CHECK(invalid == 1);  // its zero Memory is not a measurement
}

TEST_CASE("benchmarkdotnet: the brief exporter, older layouts, BDN's NaN") {
  // -report-brief.json: no Measurements, the samples are Statistics.OriginalValues (ns per op).
  auto brief = parse(one(R"("Statistics": {"OriginalValues": [1500, 2500], "N": 2, "Mean": 2000, "Skewness": ""})"));
  REQUIRE(brief.size() == 1);
  CHECK(brief[0].key.name == "Ns.T.Run");
  REQUIRE(brief[0].samples.size() == 2);
  CHECK(brief[0].samples[0] == Approx(1500e-9));
  CHECK(brief[0].samples[1] == Approx(2500e-9));
  CHECK(brief[0].iterations.empty());
  CHECK_FALSE(brief[0].summary_only);
  CHECK(brief[0].summary.at("mean") == Approx(2000e-9));

  // Before 0.11.4 Statistics had no OriginalValues: the mean alone.
  auto old = parse(one(R"("Statistics": {"N": 2, "Mean": 2000, "StandardDeviation": NaN})"));
  CHECK(old[0].summary_only);
  REQUIRE(old[0].samples.size() == 1);
  CHECK(old[0].samples[0] == Approx(2000e-9));
  CHECK(old[0].summary.count("stddev") == 0);  // a bare NaN before 0.13

  // 0.10: IterationMode "Result", no IterationStage; no FullName.
  auto v010 = parse(R"({"Benchmarks": [{"Namespace": "Ns", "Type": "T", "Method": "Run", "Parameters": "",
    "Statistics": {"Mean": 500}, "Measurements": [
      {"IterationMode": "MainTarget", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 4, "Nanoseconds": 2100},
      {"IterationMode": "Result", "LaunchIndex": 1, "IterationIndex": 1, "Operations": 4, "Nanoseconds": 2000}]}]})");
  REQUIRE(v010.size() == 1);
  CHECK(v010[0].key.name == "Ns.T.Run");
  REQUIRE(v010[0].samples.size() == 1);  // the Result, not the MainTarget
  CHECK(v010[0].samples[0] == Approx(500e-9));
  CHECK(v010[0].iterations == std::vector<double>{4});

  // Neither Measurements nor Statistics: failed.
  auto none = parse(one(R"("Statistics": null)"));
  CHECK(none[0].status == BenchmarkStatus::failed);
  // Allocations BDN could not compute (null) are left out.
  auto no_alloc = parse(one(R"("Measurements": [)" + kResult + R"(], "Memory": {"TotalOperations": 0, "BytesAllocatedPerOperation": null})"));
  CHECK(no_alloc.size() == 1);
  // A metric BDN could not compute ("" for NaN) is left out.
  auto nan_metric = parse(one(R"("Measurements": [)" + kResult + R"(], "Metrics": [{"Value": "", "Descriptor": {"Id": "Gen0Collects"}}])"));
  CHECK(nan_metric.size() == 1);
  // A diagnoser's own direction and unit.
  auto higher = parse(one(R"("Measurements": [)" + kResult +
                          R"(], "Metrics": [{"Value": 3, "Descriptor": {"Id": "Hits", "Unit": "", "TheGreaterTheBetter": true}}])"));
  const auto& hits = find(higher, "Ns.T.Run", "Hits");
  CHECK(hits.direction == Direction::higher_is_better);
  CHECK(hits.unit == "unspecified");
  // Without a Memory block, the "Allocated Memory" metric is `memory`.
  auto alloc = parse(one(R"("Measurements": [)" + kResult +
                         R"(], "Metrics": [{"Value": 64, "Descriptor": {"Id": "Allocated Memory", "Unit": "B"}}])"));
  CHECK(find(alloc, "Ns.T.Run", "memory").samples == std::vector<double>{64});
}

TEST_CASE("benchmarkdotnet: several jobs make the job a parameter") {
  auto b = [](const std::string& job, double ns) {
    return R"({"DisplayInfo": "T.Run: )" + job + R"j( [N=1]", "Type": "T", "Method": "Run", "MethodTitle": "Run",
      "Parameters": "N=1", "FullName": "Ns.T.Run(N: 1)", "Statistics": {"Mean": 1}, "Measurements": [
      {"IterationMode": "Workload", "IterationStage": "Result", "Operations": 1, "Nanoseconds": )j" +
           std::to_string(ns) + "}]}";
  };
  auto v = parse(R"({"Benchmarks": [)" + b(".NET 8.0(Runtime=.NET 8.0)", 10) + ", " + b(".NET 9.0(Runtime=.NET 9.0)", 20) + "]}");
  REQUIRE(v.size() == 2);
  const auto& net8 = find(v, "Ns.T.Run", "wall_time", {{"N", "1"}, {"job", ".NET 8.0"}});
  CHECK(net8.samples.at(0) == Approx(10e-9));
  CHECK(net8.extra["job"] == ".NET 8.0(Runtime=.NET 8.0)");
  CHECK(find(v, "Ns.T.Run", "wall_time", {{"N", "1"}, {"job", ".NET 9.0"}}).samples.at(0) == Approx(20e-9));
  // The same job twice is the same benchmark twice.
  CHECK(err(kFormat, R"({"Benchmarks": [)" + b("DefaultJob", 10) + ", " + b("DefaultJob", 20) + "]}") ==
        "in:/Benchmarks/1: duplicate benchmark 's/Ns.T.Run[N=1]:wall_time' (first at /Benchmarks/0); expected "
        "every name/parameters/metric once");
}

TEST_CASE("benchmarkdotnet: bad input") {
  CHECK(err(kFormat, "[]") == "in:(document root): expected an object, got an array");
  CHECK(err(kFormat, R"({"Title": "x"})") == "in:/Benchmarks: is missing, expected an array");
  CHECK(err(kFormat, R"({"Benchmarks": {}})") == "in:/Benchmarks: expected an array, got an object");
  CHECK(err(kFormat, R"({"Benchmarks": [{"Type": "T"}]})") == "in:/Benchmarks/0/Method: is missing, expected a string");
  CHECK(err(kFormat, one(R"("Statistics": {"Mean": "x"})")) ==
        "in:/Benchmarks/0/Statistics/Mean: expected a number, got the string \"x\"");
  CHECK(err(kFormat, one(R"("Statistics": {"Mean": Infinity}, "Measurements": [{"IterationMode": "Workload"}])")) ==
        "in:/Benchmarks/0/Statistics/Mean: expected a finite number, got infinity");
  CHECK(err(kFormat, one(R"("Measurements": [{"IterationMode": "Workload", "IterationStage": "Result", "Operations": 1, "Nanoseconds": NaN}])")) ==
        "in:/Benchmarks/0/Measurements/0/Nanoseconds: expected a finite number, got NaN");
  CHECK(err(kFormat, one(R"("Measurements": [{"IterationMode": "Workload", "IterationStage": "Result", "Operations": 0, "Nanoseconds": 5}])")) ==
        "in:/Benchmarks/0/Measurements/0/Operations: expected a positive number of operations");
  CHECK(err(kFormat, one(R"("Measurements": [{"IterationMode": 1}])")) ==
        "in:/Benchmarks/0/Measurements/0/IterationMode: expected a string, got a number");
  CHECK(err(kFormat, one(R"("Measurements": [7])")) ==
        "in:/Benchmarks/0/Measurements/0: expected an object, got a number");
  CHECK(err(kFormat, one(R"("Statistics": {"OriginalValues": [1, true]})")) ==
        "in:/Benchmarks/0/Statistics/OriginalValues/1: expected a number, got true");
  CHECK(err(kFormat, one(R"("Parameters": "=1")")) ==
        "in:/Benchmarks/0/Parameters: expected Name=value pairs joined by '&', got \"=1\"");
  CHECK(err(kFormat, one(R"("Measurements": [)" + kResult + R"(], "Memory": {"BytesAllocatedPerOperation": "lots"})")) ==
        "in:/Benchmarks/0/Memory/BytesAllocatedPerOperation: expected a number, got the string \"lots\"");
  CHECK(err(kFormat, one(R"("Measurements": [)" + kResult + R"(], "Metrics": [{"Value": 1}])")) ==
        "in:/Benchmarks/0/Metrics/0/Descriptor: is missing, expected an object");
  CHECK(err(kFormat, one(R"("Measurements": [)" + kResult +
                         R"(], "Metrics": [{"Value": 1, "Descriptor": {"Id": "X", "TheGreaterTheBetter": "yes"}}])")) ==
        "in:/Benchmarks/0/Metrics/0/Descriptor/TheGreaterTheBetter: expected true or false, got the string \"yes\"");
  CHECK(err(kFormat, one(R"("Measurements": [)" + kResult + R"(], "Metrics": [{"Value": [], "Descriptor": {"Id": "X"}}])")) ==
        "in:/Benchmarks/0/Metrics/0/Value: expected a number, got an array");
  const std::string cut = err(kFormat, truncated(kFixture));
  INFO(cut);
  CHECK(cut.rfind("in:", 0) == 0);
  CHECK(cut.find(": syntax error while parsing") != std::string::npos);
  CHECK(cut.find_first_of("0123456789") == 3);  // in:LINE:COLUMN
}
