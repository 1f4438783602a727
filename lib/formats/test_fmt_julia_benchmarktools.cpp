// julia-benchmarktools: BenchmarkTools.save's JSON (and PkgBenchmark's
// result file around it) against a fixture written from BenchmarkTools'
// serialization.jl, and its bad input.
#include <algorithm>
#include <string>

#include "formats/test_formats_support.h"

using namespace bb;
using namespace bb::formats;
using namespace bb::formats::testing;
using model::BenchmarkStatus;
using model::Direction;

namespace {

const char* kJulia = "julia-benchmarktools";
const char* kJuliaFixture = "julia-benchmarktools-documented-save.json";

// save()'s document around `values` (the inside of the values array).
std::string saved(const std::string& values) {
  return R"([{"Julia": "1.10.4", "BenchmarkTools": "1.5.0"}, [)" + values + "]]";
}

std::string params(int evals = 1) {
  return R"(["Parameters", {"gctrial": true, "time_tolerance": 0.05, "evals_set": false, "samples": 10000, "evals": )" +
         std::to_string(evals) + R"(, "gcsample": false, "seconds": 5.0, "overhead": 0.0, "memory_tolerance": 0.01}])";
}

std::string trial(const std::string& times = "[100.0, 120.0]", const std::string& gctimes = "[0.0, 0.0]",
                  const std::string& memory = "32", const std::string& params_json = params()) {
  return R"(["Trial", {"allocs": 2, "gctimes": )" + gctimes + R"(, "memory": )" + memory + R"(, "params": )" +
         params_json + R"(, "times": )" + times + "}]";
}

std::string group(const std::string& data, const std::string& tags = "[]") {
  return R"(["BenchmarkGroup", {"data": {)" + data + R"(}, "tags": )" + tags + "}]";
}

std::vector<model::Benchmark> parse_julia(const std::string& text) { return ok_text(kJulia, text); }

}  // namespace

TEST_CASE("julia-benchmarktools: trials and estimates of nested groups") {
  // save("results.json", results, median(results)): two results, so each
  // benchmark carries its position as params value.
  auto v = ok(kJulia, kJuliaFixture);
  REQUIRE(v.size() == 30);  // 5 benchmarks x (wall_time, alloc_bytes, allocs) x 2 values
  const model::Params trials{{"value", "1"}}, medians{{"value", "2"}};

  const auto& quick = find(v, "sort/quicksort/1000", "wall_time", trials);
  CHECK(quick.unit == "s");
  CHECK(quick.direction == Direction::lower_is_better);
  CHECK_FALSE(quick.summary_only);
  REQUIRE(quick.samples.size() == 6);
  CHECK(quick.samples[0] == Approx(12.041e-6));  // 12041.0 ns per evaluation
  CHECK(quick.samples[3] == Approx(12.388e-6));
  CHECK(quick.iterations == std::vector<double>(6, 1.0));
  CHECK(quick.summary.at("gc_time_mean") == 0.0);
  CHECK(quick.extra["keys"] == nlohmann::json{"sort", "quicksort", "1000"});
  CHECK(quick.extra["tags"] == nlohmann::json{"sorting", "base"});  // from the "sort" group
  CHECK(quick.extra["versions"] == nlohmann::json{{"Julia", "1.10.4"}, {"BenchmarkTools", "1.5.0"}});
  CHECK(quick.extra["params"]["samples"] == 10000);
  CHECK(quick.key.suite == "s");

  const auto& big = find(v, "sort/quicksort/10000", "wall_time", trials);
  CHECK(big.samples.size() == 5);
  CHECK(big.samples[2] == Approx(544.016e-6));

  // A tuple key keeps Julia's string() of the tuple; evals = iterations.
  const auto& join = find(v, "string/(\"join\", 100)", "wall_time", trials);
  REQUIRE(join.samples.size() == 6);
  CHECK(join.samples[3] == Approx(2.6119e-6));
  CHECK(join.iterations == std::vector<double>(6, 10.0));
  CHECK(join.summary.at("gc_time_mean") == Approx(341.2e-9 / 6));
  CHECK(join.summary.at("gc_time_max") == Approx(341.2e-9));
  CHECK(join.extra["tags"] == nlohmann::json{"strings"});

  const auto& bytes = find(v, "sort/mergesort/1000", "alloc_bytes", trials);
  CHECK(bytes.unit == "bytes");
  CHECK(bytes.samples == std::vector<double>{12160});
  CHECK(bytes.direction == Direction::lower_is_better);
  CHECK_FALSE(bytes.summary_only);
  const auto& allocs = find(v, "string/replace", "allocs", trials);
  CHECK(allocs.unit == "count");
  CHECK(allocs.samples == std::vector<double>{2});
  CHECK(find(v, "string/replace", "wall_time", trials).iterations.at(0) == 200);

  // median(results): TrialEstimates, summaries only.
  const auto& med = find(v, "string/replace", "wall_time", medians);
  CHECK(med.summary_only);
  REQUIRE(med.samples.size() == 1);
  CHECK(med.samples[0] == Approx(148.4075e-9));
  CHECK(med.summary.at("estimate") == Approx(148.4075e-9));
  CHECK(med.summary.at("gc_time") == 0.0);
  CHECK(med.iterations.empty());
  CHECK(find(v, "sort/quicksort/1000", "wall_time", medians).samples.at(0) == Approx(11.9375e-6));
  CHECK(find(v, "sort/quicksort/10000", "alloc_bytes", medians).samples == std::vector<double>{80064});
  CHECK(std::all_of(v.begin(), v.end(), [](const auto& b) { return b.status == BenchmarkStatus::ok; }));
}

TEST_CASE("julia-benchmarktools: names, positions and what is passed over") {
  SECTION("one group: names from its keys, no value param") {
    auto v = parse_julia(saved(group(R"("a": )" + group(R"("1000": )" + trial() + R"j(, "(\"x\", 2.5)": )j" + trial()))));
    REQUIRE(v.size() == 6);
    CHECK(find(v, "a/1000").key.params.empty());
    const auto& tuple = find(v, "a/(\"x\", 2.5)");
    REQUIRE(tuple.samples.size() == 2);
    CHECK(tuple.samples[1] == Approx(120e-9));
  }
  SECTION("a bare Trial is named by its position; Parameters beside it are not results") {
    auto v = parse_julia(saved(params(4) + ", " + trial("[5.0]", "[0.0]", "0", params(4))));
    REQUIRE(v.size() == 3);
    CHECK(find(v, "2").key.params.empty());
    CHECK(find(v, "2").iterations == std::vector<double>{4});
    CHECK(find(v, "2", "alloc_bytes").samples == std::vector<double>{0});
  }
  SECTION("the fuzzer's seed is a valid file") {
    auto v = ok(kJulia, "../../fuzz/corpus/julia-benchmarktools/seed");
    CHECK(v.size() == 6);
    CHECK(find(v, "sum/(\"a\", 1)").iterations == std::vector<double>{3, 3});
    CHECK(find(v, "sum/100").summary_only);
  }
  SECTION("the type may carry BenchmarkTools' module name") {
    auto v = parse_julia(saved(R"(["BenchmarkTools.BenchmarkGroup", {"data": {"t": )" + trial() + R"(}, "tags": []}])"));
    CHECK(find(v, "t").samples.size() == 2);
  }
  SECTION("a Trial without samples is skipped, all its metrics") {
    auto v = parse_julia(saved(group(R"("empty": )" + trial("[]", "[]", "9223372036854775807"))));
    REQUIRE(v.size() == 3);
    for (const auto& b : v) {
      CHECK(b.status == BenchmarkStatus::skipped);
      CHECK(b.reason == "the Trial has no samples");
      CHECK(b.samples.empty());
    }
  }
  SECTION("an estimate whose time Julia wrote as null (NaN) is skipped") {
    auto v = parse_julia(saved(group(R"("s": ["TrialEstimate", {"allocs": 0, "time": null, "memory": 0, "params": )" + params() +
                               R"(, "gctime": null}])")));
    const auto& w = find(v, "s");
    CHECK(w.status == BenchmarkStatus::skipped);
    CHECK(w.reason.find("null") != std::string::npos);
    CHECK(w.summary.empty());
    CHECK(find(v, "s", "allocs").status == BenchmarkStatus::ok);
  }
  SECTION("PkgBenchmark's result file: the document is its benchmarkgroup string") {
    nlohmann::json pkg = {{"name", "main"},
                          {"commit", "4f1c2b3a"},
                          {"benchmarkgroup", saved(group(R"("g": )" + group(R"("x": )" + trial())))},
                          {"date", "2024-05-01T10:00:00"},
                          {"julia_commit", "48d4fd48430"},
                          {"vinfo", "Julia Version 1.10.4"},
                          {"benchmarkconfig", {{"id", nullptr}, {"juliacmd", {"julia"}}, {"env", nlohmann::json::object()}}}};
    auto v = parse_julia(pkg.dump());
    REQUIRE(v.size() == 3);
    CHECK(find(v, "g/x").extra["pkgbenchmark"]["commit"] == "4f1c2b3a");
    CHECK(find(v, "g/x").extra["versions"]["Julia"] == "1.10.4");

    pkg["benchmarkgroup"] = saved(group(R"("g": ["Benchmark", {}])"));
    CHECK(err(kJulia, pkg.dump()) ==
          "in:/benchmarkgroup:/1/0/1/data/g/0: unknown BenchmarkTools type \"Benchmark\"; expected "
          "BenchmarkGroup, Trial or TrialEstimate");
    pkg["benchmarkgroup"] = "[{\"Julia\": \"1.10.4\",\n \"BenchmarkTools\": \"1.5.0\"}, [";
    CHECK(err(kJulia, pkg.dump()).rfind("in:/benchmarkgroup:2:", 0) == 0);
    pkg.erase("benchmarkgroup");
    CHECK(err(kJulia, pkg.dump()) ==
          "in:(document root): expected BenchmarkTools.save's [{\"Julia\": version, \"BenchmarkTools\": version}, "
          "[values...]] or a PkgBenchmark result file (with \"benchmarkgroup\"), got an object");
  }
  SECTION("two paths that join to one name are duplicates, both places named") {
    auto msg = err(kJulia, saved(group(R"("a/b": )" + trial() + R"(, "a": )" + group(R"("b": )" + trial()))));
    CHECK(msg.find("duplicate benchmark 's/a/b:wall_time'") != std::string::npos);
    CHECK(msg.find("/1/0/1/data/a~1b") != std::string::npos);
    CHECK(msg.find("/1/0/1/data/a/1/data/b") != std::string::npos);
  }
}

TEST_CASE("julia-benchmarktools: bad files") {
  // Unknown and unmeasured types, named at their type tag.
  CHECK(err(kJulia, saved(group(R"("sort": )" + group(R"("q": ["Benchmark", {}])")))) ==
        "in:/1/0/1/data/sort/1/data/q/0: unknown BenchmarkTools type \"Benchmark\"; expected BenchmarkGroup, "
        "Trial or TrialEstimate");
  CHECK(err(kJulia, saved(group(R"("q": ["TrialRatio", {}])"))) ==
        "in:/1/0/1/data/q/0: is a TrialRatio (a comparison of two results, from ratio() or judge()), not a "
        "measurement; save the results themselves");
  CHECK(err(kJulia, saved(group(R"("q": )" + params()))) ==
        "in:/1/0/1/data/q/0: is Parameters (benchmark settings, e.g. params(suite)), not a result; save "
        "run(suite)'s results or an estimate of them");
  CHECK(err(kJulia, saved(R"(["Trial", {}, 1])")) ==
        "in:/1/0: expected a BenchmarkTools value [\"TypeName\", {fields}], got an array of 3 values");
  CHECK(err(kJulia, saved(R"([7, {}])")) == "in:/1/0/0: expected a type name (a string), got a number");
  CHECK(err(kJulia, saved(R"(["Trial", []])")) ==
        "in:/1/0/1: expected an object (the fields of a Trial), got an array of 0 values");
  CHECK(err(kJulia, saved(R"(["BenchmarkGroup", {"tags": []}])")) == "in:/1/0/1/data: is missing, expected an object");

  // The header.
  CHECK(err(kJulia, R"([1, 2, 3])") ==
        "in:(document root): expected BenchmarkTools.save's [{\"Julia\": version, \"BenchmarkTools\": version}, "
        "[values...]], got an array of 3 values");
  CHECK(err(kJulia, R"([{"Julia": "1.10.4"}, []])") == "in:/0/BenchmarkTools: is missing, expected a string");
  CHECK(err(kJulia, R"([{"Julia": "1.10.4", "BenchmarkTools": 1}, []])") ==
        "in:/0/BenchmarkTools: expected a string, got a number");
  CHECK(err(kJulia, R"([[], []])") == "in:/0: expected an object, got an array");
  CHECK(err(kJulia, R"([{"Julia": "1.10.4", "BenchmarkTools": "1.5.0"}, {}])") == "in:/1: expected an array, got an object");

  // Wrong types and values in a Trial.
  CHECK(err(kJulia, saved(trial(R"([1.0, "x"])"))) == "in:/1/0/1/times/1: expected a number, got the string \"x\"");
  CHECK(err(kJulia, saved(trial("[1.0, null]"))) == "in:/1/0/1/times/1: expected a number, got null");
  CHECK(err(kJulia, saved(trial("[1.0, 2.0]", "[0.0]"))) ==
        "in:/1/0/1/gctimes: has 1 entries for 2 times; expected one per sample");
  CHECK(err(kJulia, saved(trial("[1.0]", "[0.0]", "-8"))) ==
        "in:/1/0/1/memory: expected a byte count (a whole number, at least 0), got -8.0");
  CHECK(err(kJulia, saved(trial("[1.0]", "[0.0]", "8.5"))) ==
        "in:/1/0/1/memory: expected a byte count (a whole number, at least 0), got 8.5");
  CHECK(err(kJulia, saved(trial("[1.0]", "[0.0]", "\"8\""))) ==
        "in:/1/0/1/memory: expected a number, got the string \"8\"");
  CHECK(err(kJulia, saved(trial("[1.0]", "[0.0]", "8", params(0)))) ==
        "in:/1/0/1/params/1/evals: expected a number of evaluations per sample (at least 1), got 0.0");
  CHECK(err(kJulia, saved(trial("[1.0]", "[0.0]", "8", R"(["TagFilter", {}])"))) ==
        "in:/1/0/1/params/0: expected Parameters, got \"TagFilter\"");
  CHECK(err(kJulia, saved(trial("{}"))) == "in:/1/0/1/times: expected an array, got an object");
  CHECK(err(kJulia, saved(R"(["TrialEstimate", {"allocs": 0, "memory": 0, "params": )" + params() + "}]")) ==
        "in:/1/0/1/time: is missing, expected a number");

  // Nothing but settings: no benchmarks.
  CHECK(err(kJulia, saved(params())).find("holds no benchmarks") != std::string::npos);

  // A file cut off mid-write: a syntax error at its last line.
  const std::string cut = truncated(kJuliaFixture);
  const auto line = std::count(cut.begin(), cut.end(), '\n') + 1;
  const auto msg = err(kJulia, cut);
  CHECK(msg.rfind("in:" + std::to_string(line) + ":", 0) == 0);
  CHECK(msg.find("unexpected end of input") != std::string::npos);

  // Groups nested past the reader's limit are refused, not recursed into.
  std::string deep = trial();
  for (int i = 0; i < 100; ++i) deep = group(R"("g": )" + deep);
  CHECK(err(kJulia, saved(deep)).find("nesting deeper than 256 levels") != std::string::npos);
}
