// The canary run by a real benchbox-runnerd (docs/canary.md): on its
// benchmark CPU once idle, kept as a result set in <results>/canary/, never
// when canary_interval is 0, and after an update ahead of the next job.
#include <catch2/catch.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runnerd_fixture.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// The canary runs kept so far, oldest first (their names are unix times).
std::vector<std::string> canary_runs(RunnerdFixture& f) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(f.dir() / "state/results/canary", ec))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("an idle runner runs the canary on its benchmark CPU and keeps its result set") {
  RunnerdFixture f("  canary_idle_seconds: 0\n  canary_rounds: 3\n");
  f.start_runner();
  INFO(f.runner_log());
  REQUIRE(wait_until([&] { return !canary_runs(f).empty(); }, std::chrono::seconds(60)));
  const json rs = json::parse(slurp(canary_runs(f)[0]));
  CHECK(rs["repository"] == "benchbox/canary");
  CHECK(rs["ref"] == "canary");
  CHECK(rs["config_text"] == "why: first\n");
  CHECK(rs["cpus"] == json::array({std::stoi(f.runner_property("BenchmarkCPUs", "s"))}));  // one CPU here
  CHECK_FALSE(rs["environment_key"].get<std::string>().empty());
  CHECK(rs["environment"]["hardware"].is_object());
  CHECK(rs["environment"]["suites"][0]["run"] == "benchbox-canary v1");
  REQUIRE(rs["benchmarks"].size() == 2);
  for (const auto& b : rs["benchmarks"]) {
    CHECK(b["suite"] == "canary");
    CHECK(b["samples"].size() == 3);
  }
  REQUIRE(wait_until([&] { return f.runner_log().find("canary: kept") != std::string::npos; }));
  // Hourly: idle on, it does not run again.
  std::this_thread::sleep_for(std::chrono::seconds(7));
  CHECK(canary_runs(f).size() == 1);
  CHECK(f.runner_property("State", "s") == "idle");
}

TEST_CASE("canary_interval 0: the canary never runs") {
  RunnerdFixture f("  canary_interval: 0\n  canary_idle_seconds: 0\n  canary_rounds: 2\n");
  f.start_runner();
  std::this_thread::sleep_for(std::chrono::seconds(7));  // past a poll
  INFO(f.runner_log());
  CHECK(canary_runs(f).empty());
}

TEST_CASE("after an update the canary runs ahead of the next job") {
  // Long idle waits: only the update brings the canary forward.
  RunnerdFixture f("  canary_idle_seconds: 3600\n  canary_rounds: 3\n");
  const std::string sha = f.commit(".benchbox.yml",
                                   "version: 1\nsuites:\n  - name: micro\n    run: \"true\"\n    repetitions: 2\n",
                                   "add benchbox config");
  // The box's last canary, by an older benchbox.
  REQUIRE(run_shell("mkdir -p " + (f.dir() / "state/results/canary")) == 0);
  const int64_t before = std::time(nullptr) - 600;
  std::ofstream(f.dir() / ("state/results/canary/" + std::to_string(before) + ".json"))
      << json{{"repository", "benchbox/canary"}, {"benchbox_version", "0.0.1"}, {"benchmarks", json::array()}}.dump();
  const int64_t id = f.enqueue(f.push_spec(sha));
  f.start_runner();
  json job = f.wait_finished(id);
  INFO(f.runner_log());
  CHECK(job["state"] == "done");
  const auto runs = canary_runs(f);
  REQUIRE(runs.size() == 2);
  const json rs = json::parse(slurp(runs[1]));
  CHECK(rs["config_text"] == "why: after an update\n");
  CHECK(rs["created"].get<int64_t>() <= job["started"].get<int64_t>());
  const std::string log = f.runner_log();
  CHECK(log.find("canary: running (after an update)") < log.find("claimed job"));
}
