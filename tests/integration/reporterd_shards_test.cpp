// A pull request's suite sharded four ways, reported as its shards arrive:
// benchbox-reporterd with a real queue and the fake GitHub API, the test
// playing the runners. One check run for the suite moves from "0 of 4
// shards done" to completed, the fake records every update, a shard that
// failed leaves its benchmarks missing with why, and the merged report
// (benchboxctl report --group) holds every benchmark exactly once.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "reporterd_fixture.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

const std::vector<std::vector<std::string>> kShards = {{"BM_a", "BM_e"}, {"BM_b", "BM_f"}, {"BM_c", "BM_g"},
                                                       {"BM_d", "BM_h"}};

model::ResultSet shard_side(const std::vector<std::string>& names, const std::string& commit, const std::string& role) {
  model::ResultSet rs = result_set(commit, 0.1, role);
  rs.ref = "refs/pull/3/head";
  rs.benchmarks.clear();
  model::SuiteOutcome o;
  o.declared = names;
  o.declared_by = "shard";
  rs.suites["micro"] = o;
  for (const auto& n : names) {
    model::Benchmark b = result_set(commit, 0.1, role).benchmarks.front();
    b.key.name = n;
    rs.benchmarks.push_back(b);
  }
  return rs;
}

// What the fake saw of the group's check run, in order: "status: title".
std::vector<std::string> updates(github_api::FakeGitHub& gh) {
  std::vector<std::string> out;
  for (const auto& r : gh.requests()) {
    if (r.path.find("/check-runs") == std::string::npos || r.status / 100 != 2 || r.method == "GET") continue;
    auto body = json::parse(r.body, nullptr, false);
    if (body.is_object() && body.contains("status"))
      out.push_back(body["status"].get<std::string>() + ": " + body.value("output", json::object()).value("title", ""));
  }
  return out;
}

// The group's check run as GitHub shows it now ({"output": {}} when none).
json group_run(github_api::FakeGitHub& gh, int64_t group) {
  for (const auto& run : gh.check_runs())
    if (run.value("external_id", "") == "group-" + std::to_string(group)) return run;
  return {{"output", json::object()}};
}

}  // namespace

TEST_CASE("a sharded suite's check run is updated as each shard arrives, a lost shard's benchmarks missing") {
  ReporterFixture s;
  const std::string base = fake_sha(1), head = fake_sha(2);
  std::vector<json> specs;
  for (size_t i = 0; i < kShards.size(); ++i) {
    json spec = pr_spec(head);
    spec.erase("delivery_id");
    spec["base_sha"] = base;
    spec["suite"] = "micro";
    spec["shard"] = i + 1;
    spec["shards"] = kShards.size();
    spec["shard_benchmarks"] = kShards[i];
    specs.push_back(spec);
  }
  int64_t group = 0;
  std::vector<int64_t> ids;
  INFO(s.logs());
  REQUIRE_FALSE(s.queue->enqueue_group({{"kind", "shards"}, {"repository", "o/r"}, {"description", "suite micro"},
                                        {"requested_by", "test"}, {"skip_measured", false}},
                                       specs, &group, &ids));
  REQUIRE(ids.size() == 4);
  auto title_is = [&](const std::string& want) {
    return wait_until([&] { return group_run(*s.github, group)["output"].value("title", "") == want; });
  };
  REQUIRE(title_is("0 of 4 shards done"));
  CHECK(group_run(*s.github, group)["status"] == "queued");
  CHECK(group_run(*s.github, group)["name"] == "benchbox: micro");

  // Shards finish one by one; the last but one fails.
  std::map<int64_t, size_t> shard_of;
  for (size_t i = 0; i < ids.size(); ++i) shard_of[ids[i]] = i;
  for (int n = 0; n < 4; ++n) {
    int64_t id = 0;
    json job;
    REQUIRE_FALSE(s.queue->claim("test-runner", 60, &id, &job));
    const auto& names = kShards[shard_of.at(id)];
    if (n == 2) {
      REQUIRE_FALSE(s.queue->fail(id, "test-runner", "build failed: exit status 2"));
      REQUIRE(wait_until([&] {
        return group_run(*s.github, group)["output"].value("summary", "").find("exit status 2") != std::string::npos;
      }));
      continue;
    }
    model::JobResult jr;
    jr.kind = "pull_request";
    jr.base = shard_side(names, base, "base");
    jr.head = shard_side(names, head, "head");
    s.complete(id, jr);
    if (n < 3) REQUIRE(title_is(std::to_string(n < 2 ? n + 1 : 2) + " of 4 shards done"));
  }
  REQUIRE(wait_until([&] { return group_run(*s.github, group).value("status", "") == "completed"; }));
  const json run = group_run(*s.github, group);
  CHECK(run["conclusion"] == "failure");  // a shard's benchmarks are missing
  CHECK(run["output"]["title"] == "benchbox: failed (4 shards)");
  CHECK(s.github->check_runs().size() == 1);  // one run for the suite, none per shard
  // Its details: the suite's page on the dashboard, updated as shards arrived.
  const std::string page = "r/o/r/runs/group-" + std::to_string(group) + ".html";
  CHECK(run["details_url"] == "https://bench.example.org/" + page);
  CHECK(run_shell("test -s " + (s.dir / ("state/site/" + page))) == 0);

  // Every incremental update, in order, each sent as it happened.
  const auto seen = updates(*s.github);
  CHECK(seen.front() == "queued: 0 of 4 shards done");
  CHECK(std::find(seen.begin(), seen.end(), "in_progress: 1 of 4 shards done") != seen.end());
  CHECK(std::find(seen.begin(), seen.end(), "in_progress: 2 of 4 shards done") != seen.end());
  CHECK(seen.back() == "completed: benchbox: failed (4 shards)");

  // The merged report: each benchmark exactly once, the failed shard's missing with why.
  std::string out;
  REQUIRE(run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + s.bus.address() + " " + build_path("cli/benchboxctl") +
                        " report --group " + std::to_string(group) + " --json",
                    &out) == 0);
  const json rep = json::parse(slurp(trim(out)));
  std::map<std::string, int> rows;
  for (const auto& row : rep["comparison"]["rows"]) {
    const std::string name = row["key"]["name"];
    ++rows[name];
  }
  CHECK(rows.size() == 8);
  for (const auto& [name, count] : rows) CHECK(count == 1);
  int missing = 0;
  for (const auto& row : rep["comparison"]["rows"])
    if (row["verdict"] == "missing") {
      ++missing;
      CHECK(row["note"].get<std::string>().find("failed: build failed: exit status 2") != std::string::npos);
    }
  CHECK(missing == 2);
  CHECK(rep["shards"]["done"] == 3);
  CHECK(rep["shards"]["finished"] == true);
  CHECK(run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + s.bus.address() + " " + build_path("cli/benchboxctl") +
                  " report --group 9999 2>&1", &out) != 0);
  CHECK(out.find("no report for job group 9999") != std::string::npos);
}
