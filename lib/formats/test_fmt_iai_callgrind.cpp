// iai-callgrind / gungraun summaries: every schema version's shape, the
// inputs that carry them (summary.json, --output-format=json lines,
// pretty-json, a `jq -s` array) and what is refused, with its place.
#include "formats/callgrind.h"
#include "formats/test_formats_support.h"
#include "util/file.h"

namespace bb::formats::testing {

namespace {

using model::Direction;
using V = std::vector<double>;
const std::string kFib = "lib_bench::bench_group::bench_fibonacci";

// A v6 summary of `m::g::f` whose Callgrind total is `metrics`.
std::string v6(const std::string& metrics, const std::string& tool = "Callgrind") {
  return R"({"version": "6", "module_path": "m::g::f", "id": null, "profiles": [{"tool": ")" + tool +
         R"(", "summaries": {"parts": [], "total": {"regressions": [], "summary": )" + metrics + "}}}]}";
}

std::vector<model::Benchmark> text(const std::string& t) { return ok_text("iai-callgrind", t); }

}  // namespace

TEST_CASE("iai-callgrind: v6 summary.json, callgrind events and dhat, the new value") {
  auto v = ok("iai-callgrind", "iai-callgrind-documented-summary.json");
  REQUIRE(v.size() == 22);  // 14 callgrind events, 8 dhat metrics; rates, lifetimes and memcheck not read
  const std::string name = kFib + "::short";
  const auto& ir = find(v, name, "instructions");
  CHECK(ir.samples == V{1734});  // new; the old run's 1800 is iai's own baseline
  CHECK(ir.unit == "count");
  CHECK(ir.direction == Direction::lower_is_better);
  CHECK(ir.key.params.empty());
  CHECK_FALSE(ir.summary_only);
  CHECK(ir.extra.at("deterministic") == true);
  CHECK(ir.extra.at("tool") == "callgrind");
  CHECK(ir.extra.at("event") == "Ir");
  CHECK(ir.extra.at("description") == "10");
  CHECK(ir.extra.at("kind") == "LibraryBenchmark");
  CHECK(ir.extra.at("summary_version") == "6");
  CHECK(find(v, name, "l1_hits").samples == V{2359});
  CHECK(find(v, name, "ll_hits").samples == V{0});
  CHECK(find(v, name, "ram_hits").samples == V{3});
  CHECK(find(v, name, "total_rw").samples == V{2362});
  CHECK(find(v, name, "estimated_cycles").samples == V{2464});
  CHECK(find(v, name, "data_reads").samples == V{385});
  CHECK(find(v, name, "l1d_read_misses").samples == V{1});
  CHECK(find(v, name, "ll_instruction_misses").samples == V{2});
  const auto& bytes = find(v, name, "alloc_bytes");
  CHECK(bytes.samples == V{96});
  CHECK(bytes.unit == "bytes");
  CHECK(bytes.extra.at("tool") == "dhat");
  CHECK(bytes.extra.at("event") == "TotalBytes");
  CHECK(find(v, name, "allocs").unit == "count");
  CHECK(find(v, name, "heap_peak_bytes").samples == V{64});
  CHECK(find(v, name, "heap_end_blocks").samples == V{0});
  CHECK(find(v, name, "heap_write_bytes").samples == V{96});
  for (const auto& b : v) {
    CHECK(b.samples.size() == 1);
    CHECK(b.key.metric.find("rate") == std::string::npos);
    CHECK(b.key.metric.find("error") == std::string::npos);
  }
}

TEST_CASE("iai-callgrind: --output-format=json lines, pretty-json and a jq -s array read alike") {
  auto v = ok("iai-callgrind", "iai-callgrind-documented-output.jsonl");
  REQUIRE(v.size() == 18);
  CHECK(find(v, kFib + "::short", "instructions").samples == V{1734});  // {"Left": new}: a first run
  CHECK(find(v, kFib + "::long", "instructions").samples == V{26214734});
  CHECK(find(v, kFib + "::long", "estimated_cycles").samples == V{35638766});
  CHECK(find(v, kFib + "::long", "l1_hits").extra.at("description") == "30");
  // no id: the module path alone; cachegrind's events carry params tool=cachegrind
  const model::Params cg{{"tool", "cachegrind"}};
  const auto& sort = find(v, "bin_bench::sort_group::bench_sort", "instructions", cg);
  CHECK(sort.samples == V{331082});
  CHECK(sort.key.params == cg);
  CHECK(sort.extra.at("tool") == "cachegrind");
  CHECK(sort.extra.at("kind") == "BinaryBenchmark");
  for (const auto& b : v) CHECK(b.key.metric != "conditional_branches");  // {"Right": old} only

  auto lines = read_file(fixture("iai-callgrind-documented-output.jsonl"));
  REQUIRE(lines.ok());
  std::string pretty, array = "[";
  size_t pos = 0;
  while (pos < lines->size()) {
    const size_t end = lines->find('\n', pos);
    const std::string line = lines->substr(pos, end - pos);
    pretty += nlohmann::json::parse(line).dump(2) + "\n";
    array += (array.size() > 1 ? "," : "") + line;
    pos = end + 1;
  }
  array += "]";
  for (const std::string* t : {&pretty, &array}) {
    auto again = text(*t);
    REQUIRE(again.size() == v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      CHECK(again[i].key == v[i].key);
      CHECK(again[i].samples == v[i].samples);
    }
  }

  // `cat` of summary.json files: --save-summary=json ends them without a newline
  std::string cat;
  for (pos = 0; pos < lines->size(); pos = lines->find('\n', pos) + 1)
    cat += lines->substr(pos, lines->find('\n', pos) - pos);
  auto joined = text(cat);
  REQUIRE(joined.size() == v.size());
  CHECK(joined[17].samples == v[17].samples);

  // Errors name the line the summary starts on (and the column, when it
  // does not start the line), then the pointer in it.
  const size_t second_col = lines->find('\n') + 1;
  std::string cat_bad = cat;
  cat_bad.replace(cat_bad.find("\"id\":\"long\""), 11, "\"id\":7");
  CHECK(err("iai-callgrind", cat_bad) == "in:1:" + std::to_string(second_col) + ":/id: expected a string, got a number");
  std::string cat_syntax = cat;
  cat_syntax.insert(cat.find("\"version\"", second_col), "x");
  CHECK(err("iai-callgrind", cat_syntax).rfind("in:1:" + std::to_string(cat.find("\"version\"", second_col) + 1) +
                                                   ": syntax error",
                                               0) == 0);
  const size_t second = lines->find('\n') + 1;
  std::string bad = *lines;
  bad.replace(bad.find("\"id\":\"long\""), 11, "\"id\":7");
  CHECK(err("iai-callgrind", bad) == "in:2:/id: expected a string, got a number");
  CHECK(err("iai-callgrind", lines->substr(0, second) + "running 0 tests\n") ==
        "in:2:1: expected a summary, one JSON object a line as --output-format=json prints them, got 'running 0 tests'");
  CHECK(err("iai-callgrind", lines->substr(0, second) + std::string(39, 'x') + "\xc3\xa9 and more\n") ==
        "in:2:1: expected a summary, one JSON object a line as --output-format=json prints them, got '" +
            std::string(39, 'x') + "'");  // cut before the two-byte character, not inside it
  CHECK(err("iai-callgrind", lines->substr(0, second) + "{\"version\": \"6\",\n") ==
        "in:3:1: syntax error while parsing object key - unexpected end of input; expected string literal");
  const std::string p2 = pretty.substr(0, pretty.find("\n}\n") + 3);
  CHECK(err("iai-callgrind", p2 + p2).rfind("in:" + std::to_string(std::count(p2.begin(), p2.end(), '\n') + 1) +
                                                ":/profiles/0/summaries/total/summary/Callgrind/",
                                            0) == 0);  // a duplicate, with the pretty object's first line
  CHECK(err("iai-callgrind", p2 + p2).find("duplicate benchmark") != std::string::npos);
}

TEST_CASE("iai-callgrind: v7 (gungraun), plain numbers and {new, old}, no id") {
  auto v = ok("iai-callgrind", "iai-callgrind-documented-v7.json");
  REQUIRE(v.size() == 14);  // L1HitRate and Memcheck's errors are not read
  const std::string name = "test_lib_bench_intro::fibonacci::bench_fibonacci_with_config";
  CHECK(find(v, name, "instructions").samples == V{687});  // new, not old's 690
  CHECK(find(v, name, "instructions").extra.at("description") == "(10)");
  CHECK(find(v, name, "instructions").extra.at("summary_version") == "7");
  CHECK(find(v, name, "ll_hits").samples == V{1});
  CHECK(find(v, name, "data_writes").samples == V{138});
  CHECK(text(v6(R"({"Callgrind": {"Ir": {"values": {"old": 5}}, "Dr": {"values": {"new": 3}}}})")).size() == 1);
}

TEST_CASE("iai-callgrind: v3 (0.14) callgrind_run total and DHAT's tool summary") {
  auto v = ok("iai-callgrind", "iai-callgrind-documented-v3.json");
  REQUIRE(v.size() == 16);  // 14 callgrind events, DHAT's two; Massif's "None"
  CHECK(find(v, kFib + "::short", "instructions").samples == V{1734});
  CHECK(find(v, kFib + "::short", "total_rw").samples == V{2362});
  CHECK(find(v, kFib + "::short", "alloc_bytes").samples == V{96});
  CHECK(find(v, kFib + "::short", "allocs").samples == V{2});
}

TEST_CASE("iai-callgrind: v1 and v2 sum the callgrind runs of every process; v4 and v5 numbers") {
  auto v = ok("iai-callgrind", "iai-callgrind-documented-v2.json");
  REQUIRE(v.size() == 6);  // v2's DHAT summary is log text: not read
  const std::string name = "bin_bench::exe_group::bench_run::subprocess";
  CHECK(find(v, name, "instructions").samples == V{155637 + 3906});
  CHECK(find(v, name, "estimated_cycles").samples == V{243312 + 8629});
  CHECK(find(v, name, "instructions").key.params.empty());

  auto v1 = text(R"({"version": "1", "module_path": "m::g::f", "id": null, "tool_summaries": [],
    "callgrind_summary": {"summaries": [{"command": "c", "regressions": [], "events": {
      "Ir": {"new": 10, "old": 12, "diff_pct": -16.6, "factor": -1.2}, "Bc": {"new": null, "old": 4}}}]}})");
  REQUIRE(v1.size() == 1);
  CHECK(v1[0].key.name == "m::g::f");
  CHECK(v1[0].samples == V{10});

  // 0.15.0 wrote "3" on the v4 shape: the shape decides. v4: bare integers.
  auto v4 = text(R"({"version": "3", "module_path": "m::g::f", "id": "a", "profiles": [{"tool": "Callgrind",
    "summaries": {"parts": [], "total": {"regressions": [], "summary": {"Callgrind": {
      "Ir": {"metrics": {"Both": [5, 6]}}, "EstimatedCycles": {"metrics": {"Right": 9}}}}}}}]})");
  REQUIRE(v4.size() == 1);
  CHECK(v4[0].key.name == "m::g::f::a");
  CHECK(v4[0].samples == V{5});
  auto v5 = text(v6(R"({"Callgrind": {"Ir": {"metrics": {"Left": {"Float": 7.0}}}}})"));
  REQUIRE(v5.size() == 1);
  CHECK(v5[0].samples == V{7});
}

TEST_CASE("iai-callgrind: refused input names its place") {
  CHECK(err("iai-callgrind", "\nlib_bench::g::f short:10\n  Instructions:   1734|N/A   (*********)\n") ==
        "in:2:1: expected iai-callgrind's JSON summary (--save-summary=json, or --output-format=json on stdout); "
        "its terminal text is not read");
  CHECK(err("iai-callgrind", R"({"version": "8", "module_path": "m"})") ==
        "in:/version: unknown summary version \"8\", expected 1 to 7");
  CHECK(err("iai-callgrind", R"({"version": "6", "profiles": []})") == "in:/module_path: is missing, expected a string");
  CHECK(err("iai-callgrind", R"({"version": "6", "module_path": "m"})") ==
        "in:(document root): expected \"profiles\" (iai-callgrind 0.15 and later, gungraun) or \"callgrind_summary\" "
        "(0.9 to 0.14): not an iai-callgrind summary");
  CHECK(err("iai-callgrind", R"({"version": "6", "module_path": "m", "profiles": [{"summaries": {}}]})") ==
        "in:/profiles/0/tool: is missing, expected a string");
  const std::string at = "in:/profiles/0/summaries/total/summary";
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": {"metrics": {"Both": [5]}}}})")) ==
        at + "/Callgrind/Ir/metrics/Both: expected [new, old]");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": {"metrics": {"Neither": 5}}}})")) ==
        at + "/Callgrind/Ir/metrics: expected \"Left\" (new), \"Right\" (old) or \"Both\" ([new, old])");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": {"metrics": {"Left": {"Int": "x"}}}}})")) ==
        at + "/Callgrind/Ir/metrics/Left/Int: expected a number, got the string \"x\"");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": {"metrics": {"Left": {"Big": 1}}}}})")) ==
        at + "/Callgrind/Ir/metrics/Left: expected a number, {\"Int\": n} or {\"Float\": x}");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": {"metrics": {"Left": -3}}}})")) ==
        at + "/Callgrind/Ir/metrics/Left: expected a count, got a negative number");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {"Ir": 5}})")) == at + "/Callgrind/Ir: expected an object, got a number");
  CHECK(err("iai-callgrind", v6(R"({"Callgrind": {}, "Dhat": {}})")) ==
        at + ": expected \"None\" or one member naming the tool ({\"Callgrind\": {...}})");
  CHECK(err("iai-callgrind", R"({"version": "7", "module_path": "m", "profiles": [{"tool": "Callgrind",
    "data": {"total": {"metrics": {"Ir": {"values": {"new": 1.5e400}}}}}}]})") ==
        "in:2:67: number overflow parsing '1.5e400'");
  CHECK(err("iai-callgrind", R"({"version": "7", "module_path": "m", "profiles": [{"tool": "Callgrind",
    "data": {"total": {"regressions": []}}}]})") == "in:/profiles/0/data/total/metrics: is missing, expected an object");
  CHECK(err("iai-callgrind", "[1]") == "in:/0: expected an object, got a number");
  CHECK(err("iai-callgrind", v6("\"None\"")) ==
        "in: holds no benchmarks; expected at least one (unless the suite allows an empty result)");
  const std::string cut = truncated("iai-callgrind-documented-summary.json");
  CHECK(err("iai-callgrind", cut).rfind("in:1:" + std::to_string(cut.size() + 1) + ": syntax error", 0) == 0);
  const std::string cut7 = truncated("iai-callgrind-documented-v7.json");  // pretty: cut mid-line
  const auto last = cut7.rfind('\n');
  CHECK(err("iai-callgrind", cut7).rfind("in:" + std::to_string(std::count(cut7.begin(), cut7.end(), '\n') + 1) + ":" +
                                             std::to_string(cut7.size() - last) + ": syntax error",
                                         0) == 0);
}

TEST_CASE("callgrind_metric: iai-callgrind's derived events") {
  CHECK(callgrind_metric("Ir") == "instructions");
  CHECK(callgrind_metric("L1hits") == "l1_hits");
  CHECK(callgrind_metric("LLhits") == "ll_hits");
  CHECK(callgrind_metric("RamHits") == "ram_hits");
  CHECK(callgrind_metric("TotalRW") == "total_rw");
  CHECK(callgrind_metric("EstimatedCycles") == "estimated_cycles");
  CHECK(callgrind_metric("L1HitRate") == "");
}

}  // namespace bb::formats::testing
