// benchboxctl compare end to end: real files in a temporary directory, the
// real binary (BENCHBOXCTL), its output and its exit status.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "model/result_set.h"
#include "test_run_cli.h"
#include "util/file.h"

using namespace bb;

namespace {

using Run = test::CliRun;

Run run(const std::string& args) { return test::run_benchboxctl("compare " + args); }

model::ResultSet result_set(const std::string& commit, double factor) {
  model::ResultSet rs;
  rs.repository = "o/r";
  rs.commit = commit;
  model::Benchmark b;
  b.key.suite = "suite";
  b.key.name = "parse";
  for (int i = 0; i < 20; ++i) {
    // Deterministic "noise" that is the same in both sets, so the pairs differ only by factor.
    b.samples.push_back(0.08 * factor * (1 + 0.01 * std::sin(i * 2.1)) * (1 + 0.002 * std::cos(i * 7.3 * factor)));
    b.rounds.push_back(i);
  }
  rs.benchmarks.push_back(b);
  return rs;
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/bb-compare-cli-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
  std::string write(const std::string& name, const std::string& content) {
    const std::string p = path + "/" + name;
    REQUIRE(write_file_atomic(p, content).ok());
    return p;
  }
};

}  // namespace

TEST_CASE("compare two result-set files") {
  TempDir dir;
  const auto base = dir.write("base.json", model::to_json(result_set("aaaa", 1.0)).dump());
  const auto same = dir.write("same.json", model::to_json(result_set("bbbb", 1.0)).dump());
  const auto slow = dir.write("slow.json", model::to_json(result_set("cccc", 1.10)).dump());

  const Run ok = run(base + " " + same);
  INFO(ok.out);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("| `suite/parse:wall_time` |") != std::string::npos);

  const Run bad = run(base + " " + slow);
  CHECK(bad.status == 1);
  CHECK(bad.out.find("regressed") != std::string::npos);

  const Run j = run(base + " " + slow + " --json --seed 9");
  CHECK(j.status == 1);
  const auto parsed = nlohmann::json::parse(j.out);
  CHECK(parsed["rows"][0]["verdict"] == "regressed");
  CHECK(parsed["seed"] == 9);

  // A threshold above the change makes it inconclusive or unchanged, not regressed.
  CHECK(run(base + " " + slow + " --threshold wall_time=50%").status == 0);

  // The suite's own threshold, carried in the head's result set, is what
  // the CLI judges with; --threshold overrides it.
  model::ResultSet lenient = result_set("dddd", 1.10);
  lenient.thresholds["suite"]["wall_time"] = 0.5;
  const auto lax = dir.write("lax.json", model::to_json(lenient).dump());
  const Run suite_says = run(base + " " + lax + " --json");
  CHECK(suite_says.status == 0);
  CHECK(nlohmann::json::parse(suite_says.out)["rows"][0]["threshold"] == 0.5);
  CHECK(run(base + " " + lax + " --threshold wall_time=2%").status == 1);
  CHECK(run(base + " " + lax + " --threshold 0.02").status == 1);
}

TEST_CASE("compare a job result's base against its head") {
  TempDir dir;
  model::JobResult jr;
  jr.job_id = 7;
  jr.kind = "pr";
  jr.base = result_set("aaaa", 1.0);
  jr.head = result_set("bbbb", 1.10);
  const auto path = dir.write("job.json", model::to_json(jr).dump());
  const Run r = run(path);
  CHECK(r.status == 1);
  CHECK(r.out.find("`aaaa` → `bbbb`") != std::string::npos);
}

TEST_CASE("compare reads a harness's own files, auto-detected") {
  const char* fixtures = std::getenv("BB_FORMAT_FIXTURES");
  REQUIRE(fixtures);
  const std::string dir = fixtures;
  // Two raw pytest-benchmark files (here the same one twice): no convert.
  const std::string py = dir + "/pytest-benchmark-documented-schema.json";
  Run r = run(py + " " + py);
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find("recognised as pytest-benchmark") != std::string::npos);
  CHECK(r.out.find("### benchbox:") != std::string::npos);
  CHECK(r.out.find("/schema") == std::string::npos);
  // go test's text output too; its failed benchmark fails the comparison.
  const std::string go = dir + "/go-test-real-benchmem-count3.txt";
  r = run(go + " " + go);
  CHECK(r.status == 1);
  CHECK(r.out.find("recognised as go-test") != std::string::npos);
  CHECK(r.out.find("BenchmarkFib/n=5") != std::string::npos);
  CHECK(r.out.find("**1 failed**") != std::string::npos);
}

namespace {

// A Google Benchmark JSON file of one run: `repetitions` iteration entries
// of BM_same and BM_slow (head's BM_slow `factor` slower), each a little
// different (the run index and the repetition move the noise).
std::string google_benchmark_run(int run, double factor) {
  nlohmann::json benches = nlohmann::json::array();
  for (int rep = 0; rep < 3; ++rep) {
    const double noise = 1 + 0.002 * std::sin(run * 3.1 + rep * 1.7);
    for (const auto& [name, ns] : {std::pair<std::string, double>{"BM_same", 1000}, {"BM_slow", 2000 * factor}})
      benches.push_back({{"name", name}, {"run_name", name}, {"run_type", "iteration"}, {"repetitions", 3},
                         {"repetition_index", rep}, {"threads", 1}, {"iterations", 1000},
                         {"real_time", ns * noise}, {"cpu_time", ns * noise}, {"time_unit", "ns"}});
  }
  return nlohmann::json{{"context", {{"date", "2026-12-05T00:00:00+00:00"}, {"num_cpus", 2}}}, {"benchmarks", benches}}
      .dump();
}

}  // namespace

TEST_CASE("compare pools several runs a side: repeated Google Benchmark files") {
  TempDir dir;
  std::string args;
  for (int run = 0; run < 3; ++run) {
    args += " --base " + dir.write("main-" + std::to_string(run) + ".json", google_benchmark_run(run, 1.0));
    args += " --head " + dir.write("pr-" + std::to_string(run) + ".json", google_benchmark_run(run + 3, 1.10));
  }
  const Run r = run(args);
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out.find("recognised as google-benchmark") != std::string::npos);
  CHECK(r.out.find("base: 3 runs pooled as repetitions (unpaired)") != std::string::npos);
  CHECK(r.out.find("head: 3 runs pooled as repetitions (unpaired)") != std::string::npos);
  // 3 runs x 3 repetitions a side, compared unpaired.
  CHECK(r.out.find("| mann-whitney | 9 | 9 |") != std::string::npos);
  CHECK(r.out.find("BM_slow") != std::string::npos);
  CHECK(r.out.find("**2 regressed** · 2 unchanged") != std::string::npos);  // BM_slow's real and CPU time
  // --base and --head go together, and not with BASE HEAD.
  CHECK(run(" --base " + dir.path + "/main-0.json").status == 2);
  CHECK(run(dir.path + "/main-0.json " + dir.path + "/pr-0.json --head " + dir.path + "/pr-1.json").status == 2);
}

TEST_CASE("bad input is a clear error with exit status 2") {
  TempDir dir;
  const auto garbage = dir.write("garbage.json", "{not json");
  const auto wrong = dir.write("wrong.json", R"({"schema": "benchbox.resultset/1", "benchmarks": 3})");
  const auto good = dir.write("good.json", model::to_json(result_set("a", 1)).dump());
  Run r = run(garbage + " " + good);
  CHECK(r.status == 2);
  CHECK(r.out.find("garbage.json") != std::string::npos);
  CHECK(r.out.find("neither a benchbox result") != std::string::npos);
  r = run(wrong + " " + good);
  CHECK(r.status == 2);
  CHECK(r.out.find("wrong.json") != std::string::npos);
  CHECK(run(dir.path + "/absent.json " + good).status == 2);
  CHECK(run(good).status == 2);  // a single result set has nothing to compare with
  CHECK(run(good + " " + good + " --threshold lots").status == 2);
  CHECK(run(good + " " + good + " --frobnicate").status == 2);
  CHECK(run("").status == 2);
}
