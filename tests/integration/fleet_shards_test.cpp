// A suite sharded four ways across three boxes, each with its own
// benchbox-queued, benchbox-runnerd and benchbox-tunerd (on its own copy of
// the fake sysfs tree) on its own bus, all on one PostgreSQL queue: one box
// is killed (-9, queued and runnerd) in the middle of a shard, another box
// measures that shard once the lease runs out, and the shards' results
// together hold every declared benchmark exactly once, each measured on a
// tuned box. A front box (queued and reporterd, the fake GitHub) on the same
// database reports the suite as its shards arrive: one check run updated
// shard by shard, and one merged report with every benchmark exactly once.
// Then a pull request that touches none of the suite's paths: the suite is
// skipped (not affected), never sharded and never missing.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "reporterd_fixture.h"
#include "runnerd_fixture.h"
#include "tunerd_support.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// Eight benchmarks, filtered as Google Benchmark does; a second per run, so
// a shard is still measuring when the test kills its box.
const std::string kSlowGoogleBenchmark = fake_google_benchmark(
    "echo \"$BENCHBOX_SHARD\" >> \"$MARKS\"\n"
    "sleep 1\n");

// What the fake saw of one check run (GitHub's `id`, our `external_id`), in
// order: "status: title", or with `summaries` the summaries.
std::vector<std::string> updates(github_api::FakeGitHub& gh, int64_t id, const std::string& external_id,
                                 bool summaries = false) {
  std::vector<std::string> out;
  for (const auto& r : gh.requests()) {
    if (r.path.find("/check-runs") == std::string::npos || r.status / 100 != 2 || r.method == "GET") continue;
    auto body = json::parse(r.body, nullptr, false);
    if (!body.is_object() || !body.contains("status")) continue;
    const bool ours = r.method == "POST" ? body.value("external_id", "") == external_id
                                         : r.path.find("/check-runs/" + std::to_string(id)) != std::string::npos;
    if (ours)
      out.push_back(body["status"].get<std::string>() + ": " +
                    body.value("output", json::object()).value(summaries ? "summary" : "title", ""));
  }
  return out;
}

// A box's benchbox-tunerd on its own bus and its own copy of the fake
// Intel tree, configured before its runnerd starts.
std::unique_ptr<Process> start_box_tunerd(RunnerdFixture& box) {
  const std::string root = box.dir() / "sysfs";
  REQUIRE(run_shell("cp -a " + source_root() + "/tests/fixtures/sysfs/intel " + root) == 0);
  std::ofstream(box.dir() / "tuning.yml") << "# all defaults\n";
  std::ofstream(box.config_path(), std::ios::app)
      << "tuner:\n  sysfs_root: " << root << "\n  profile: " << (box.dir() / "tuning.yml") << "\n";
  auto tunerd = start_tunerd(box.address(), box.config_path(), box.dir() / "tunerd.log");
  REQUIRE(TunerClient(box.address()).name_owned());
  return tunerd;
}

}  // namespace

TEST_CASE("a suite sharded four ways over three boxes survives a box killed mid-shard", "[fleet][kill]") {
  std::vector<std::unique_ptr<RunnerdFixture>> boxes;
  boxes.push_back(std::make_unique<RunnerdFixture>("", "", "runner-0"));
  REQUIRE(boxes[0]->queued().on_postgresql());
  const std::string conninfo = boxes[0]->queued().conninfo();
  for (int i = 1; i < 3; ++i)
    boxes.push_back(std::make_unique<RunnerdFixture>("", conninfo, "runner-" + std::to_string(i)));
  RunnerdFixture& origin_box = *boxes[0];
  ReporterFixture front("", conninfo);
  const std::string marks = origin_box.dir() / "marks.log";
  REQUIRE(write_file_atomic(marks, "", 0666).ok());
  REQUIRE(::chmod(marks.c_str(), 0666) == 0);  // every job's uid appends
  origin_box.commit("slow-gb.sh", kSlowGoogleBenchmark, "a slow benchmark binary");
  const std::string sha = origin_box.commit(".benchbox.yml",
                                            "version: 1\n"
                                            "suites:\n"
                                            "  - name: micro\n"
                                            "    run: sh slow-gb.sh\n"
                                            "    format: google-benchmark\n"
                                            "    benchmarks: [BM_a, BM_b, BM_c, BM_d, BM_e, BM_f, BM_g, BM_h]\n"
                                            "    shards: 4\n"
                                            "    repetitions: 2\n"
                                            "    warmup: 0\n"
                                            "    env: {MARKS: " + marks + "}\n"
                                            "    paths: [slow-gb.sh]\n",
                                            "shard the suite");
  std::vector<std::unique_ptr<Process>> tuners;
  for (auto& b : boxes) tuners.push_back(start_box_tunerd(*b));
  for (auto& b : boxes) b->start_runner();

  json spec = origin_box.push_spec(sha);
  spec["repository"] = "o/r";  // where the fake GitHub has the app installed
  const int64_t parent = origin_box.enqueue(spec);
  json job = origin_box.wait_finished(parent);
  INFO(boxes[0]->runner_log() + boxes[1]->runner_log() + boxes[2]->runner_log());
  REQUIRE(job["state"] == "done");
  const int64_t group = [&] {
    const std::string reason = origin_box.result_of(job)["head"]["suites"]["micro"]["reason"];
    return std::stoll(reason.substr(reason.find("job group ") + 10));
  }();
  std::vector<json> shards;
  auto read_shards = [&](QueueClient& client) {
    std::vector<json> all;
    shards.clear();
    if (client.list("", 0, &all)) return false;
    for (const auto& j : all)
      if (j.value("group_id", int64_t{0}) == group) shards.push_back(j);
    return shards.size() == 4;
  };
  REQUIRE(read_shards(origin_box.client()));

  // Kill the box of the first shard that is measuring: queued and runnerd.
  int victim = -1;
  int64_t victim_job = 0;
  REQUIRE(wait_until(
      [&] {
        if (!read_shards(origin_box.client()) || trim(slurp(marks)).empty()) return false;
        for (const auto& s : shards)
          if (s["state"] == "running")
            for (int i = 0; i < 3; ++i)
              if (s["runner"] == "runner-" + std::to_string(i)) {
                victim = i;
                victim_job = s["id"];
                return true;
              }
        return false;
      },
      std::chrono::seconds(60)));
  boxes[victim]->kill_runner();
  boxes[victim]->queued().kill_hard();
  const int survivor = victim == 0 ? 1 : 0;
  RunnerdFixture& alive = *boxes[survivor];

  // Another box takes the shard once its lease runs out, and every shard ends done.
  json taken = alive.wait_finished(victim_job, 120);
  REQUIRE(taken["state"] == "done");
  CHECK(taken["runner"] != "runner-" + std::to_string(victim));
  CHECK(taken["attempts"].get<int64_t>() >= 1);  // its lease expired once at least
  std::multiset<std::string> measured;
  REQUIRE(read_shards(alive.client()));
  for (const auto& s : shards) {
    json done = alive.wait_finished(s["id"].get<int64_t>(), 120);
    REQUIRE(done["state"] == "done");
    json head = alive.result_of(done)["head"];
    // Measured on a box its tunerd checked: the tuning's fingerprint, not "unavailable".
    CHECK(head["machine_fingerprint"].get<std::string>().size() == 64);
    std::set<std::string> want;
    for (const auto& n : s["shard_benchmarks"]) want.insert(n.get<std::string>());
    std::set<std::string> got;
    for (const auto& b : head["benchmarks"])
      if (b["metric"] == "wall_time") got.insert(b["name"].get<std::string>());
    CHECK(got == want);
    measured.insert(got.begin(), got.end());
  }
  CHECK(measured.size() == 8);
  CHECK(std::set<std::string>(measured.begin(), measured.end()).size() == 8);

  // The front box: one check run for the suite, updated as shards arrived,
  // and the merged report on its page with each benchmark exactly once.
  auto run = [&] {
    for (const auto& r : front.github->check_runs())
      if (r.value("external_id", "") == "group-" + std::to_string(group)) return r;
    return json::object();
  };
  INFO(front.logs());
  REQUIRE(wait_until([&] { return run().value("status", "") == "completed"; }, std::chrono::seconds(60)));
  CHECK(run()["conclusion"] == "success");
  const auto seen = updates(*front.github, run()["id"], "group-" + std::to_string(group));
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back() == "completed: benchbox: recorded (4 shards)");
  int last_done = -1;
  bool partial = false;
  for (const auto& u : seen) {
    if (u.rfind("completed", 0) == 0) continue;
    const int done = std::stoi(u.substr(u.find(": ") + 2));
    CHECK(done >= last_done);  // never backwards
    last_done = done;
    partial = partial || (done > 0 && done < 4);
  }
  CHECK(partial);  // seen while shards were still pending
  bool named = false;  // and those updates say which shards are still to come
  for (const auto& u : updates(*front.github, run()["id"], "group-" + std::to_string(group), true))
    named = named || (u.rfind("in_progress", 0) == 0 && u.find("ending:") != std::string::npos &&
                      u.find("shard ") != std::string::npos);
  CHECK(named);
  const json page = [&] {
    const std::string text = slurp(front.dir / ("state/site/data/r/o/r/runs/group-" + std::to_string(group) + ".js"));
    const size_t open = text.find(", ");
    return json::parse(text.substr(open + 2, text.rfind(");") - open - 2));
  }();
  std::multiset<std::string> reported;
  for (const auto& r : page["recorded"])
    if (r["key"].get<std::string>().find(":wall_time") != std::string::npos) reported.insert(r["key"]);
  CHECK(reported.size() == 8);
  CHECK(std::set<std::string>(reported.begin(), reported.end()).size() == 8);
  CHECK(page["shards"]["done"] == 4);

  // A pull request that changes only the README, none of the suite's paths.
  origin_box.git("-C " + (origin_box.dir() / "work") + " checkout -q -b docs");
  const std::string pr_head = origin_box.commit("README", "better docs\n", "docs only");
  origin_box.make_pr_ref(7, pr_head);
  const int64_t pr = front.enqueue({{"kind", "pull_request"},
                                    {"repository", "o/r"},
                                    {"clone_url", origin_box.origin()},
                                    {"ref", "refs/pull/7/head"},
                                    {"head_sha", pr_head},
                                    {"base_ref", "refs/heads/main"},
                                    {"base_sha", sha},
                                    {"pr_number", 7}});
  json pr_job = alive.wait_finished(pr, 120);
  REQUIRE(pr_job["state"] == "done");
  const json suite = alive.result_of(pr_job)["head"]["suites"]["micro"];
  CHECK(suite["status"] == "skipped");
  CHECK(suite.value("reason", "").rfind("not affected", 0) == 0);
  std::vector<json> all;
  REQUIRE_FALSE(alive.client().list("", 0, &all));
  for (const auto& j : all)  // no second group of shards
    CHECK((j.value("group_id", int64_t{0}) == 0 || j.value("group_id", int64_t{0}) == group));
  REQUIRE(wait_until([&] { return front.reported(pr); }, std::chrono::seconds(60)));
  const std::string report = slurp(front.report_path(pr));
  INFO(report);
  CHECK(report.find("not affected: the pull request changes none of its paths (slow-gb.sh)") != std::string::npos);
  CHECK(report.find("last on refs/heads/main: ") != std::string::npos);
  CHECK(report.find("(not re-measured)") != std::string::npos);
  CHECK(report.find("issing") == std::string::npos);  // never missing

  // A pull request that does change the benchmark: sharded again, and each
  // shard measures base and head (interleaved, in one job) on its own box.
  const std::string touched = origin_box.commit("slow-gb.sh", kSlowGoogleBenchmark + "# touched\n", "touch it");
  origin_box.make_pr_ref(8, touched);
  const int64_t pr2 = front.enqueue({{"kind", "pull_request"},
                                     {"repository", "o/r"},
                                     {"clone_url", origin_box.origin()},
                                     {"ref", "refs/pull/8/head"},
                                     {"head_sha", touched},
                                     {"base_ref", "refs/heads/main"},
                                     {"base_sha", sha},
                                     {"pr_number", 8}});
  json pr2_job = alive.wait_finished(pr2, 120);
  REQUIRE(pr2_job["state"] == "done");
  const std::string why = alive.result_of(pr2_job)["head"]["suites"]["micro"].value("reason", "");
  REQUIRE(why.find("job group ") != std::string::npos);
  const int64_t group2 = std::stoll(why.substr(why.find("job group ") + 10));
  std::vector<json> pr_shards;
  REQUIRE_FALSE(alive.client().list("", 0, &all));
  for (const auto& j : all)
    if (j.value("group_id", int64_t{0}) == group2) pr_shards.push_back(j);
  REQUIRE(pr_shards.size() == 4);
  std::multiset<std::string> both;
  for (const auto& s : pr_shards) {
    json done = alive.wait_finished(s["id"].get<int64_t>(), 120);
    REQUIRE(done["state"] == "done");
    const json r = alive.result_of(done);
    REQUIRE(r["base"].is_object());
    CHECK(r["base"]["commit"] == sha);
    CHECK(r["head"]["commit"] == touched);
    for (const char* side : {"base", "head"}) {
      std::set<std::string> got;
      for (const auto& b : r[side]["benchmarks"])
        if (b["metric"] == "wall_time") got.insert(b["name"].get<std::string>());
      std::set<std::string> want;
      for (const auto& n : s["shard_benchmarks"]) want.insert(n.get<std::string>());
      CHECK(got == want);
      if (std::string(side) == "head") both.insert(got.begin(), got.end());
    }
  }
  CHECK(both.size() == 8);
  CHECK(std::set<std::string>(both.begin(), both.end()).size() == 8);
}
