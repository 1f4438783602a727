// A sharded suite through a real benchbox-queued and benchbox-runnerd: the
// job that names it queues its shards as one group instead of measuring it,
// each shard runs only its benchmarks (the harness's own filter, or a cut
// result when the harness ignores it), and together the shards measure
// every declared benchmark exactly once, under the suite's environment key.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <map>
#include <set>

#include "runnerd_fixture.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// A stand-in for a Google Benchmark binary: eight benchmarks, of which
// --benchmark_filter=REGEX (an anchored ERE, as the real one reads it)
// picks; every call is logged with the shard and the filter it got.
const std::string kFakeGoogleBenchmark = fake_google_benchmark(
    "echo \"shard=${BENCHBOX_SHARD:-none}/${BENCHBOX_SHARDS:-none} filter=$filter\" >> \"$CALLS\"\n");

const char* kEight = "[BM_a, BM_b, BM_c, BM_d, BM_e, BM_f, BM_g, BM_h]";

std::vector<json> jobs_of_group(RunnerdFixture& f, int64_t group) {
  std::vector<json> all, out;
  REQUIRE_FALSE(f.client().list("", 0, &all));
  for (const auto& j : all)
    if (j.value("group_id", int64_t{0}) == group) out.push_back(j);
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["shard"] < b["shard"]; });
  return out;
}

int64_t group_in(const std::string& reason) {
  auto at = reason.find("job group ");
  REQUIRE(at != std::string::npos);
  return std::stoll(reason.substr(at + 10));
}

std::set<std::string> names_in(const json& rs, const std::string& suite) {
  std::set<std::string> names;
  for (const auto& b : rs["benchmarks"])
    if (b["suite"] == suite && b["metric"] == "wall_time") names.insert(b["name"].get<std::string>());
  return names;
}

}  // namespace

TEST_CASE("a sharded suite is queued as shards, each measuring its own benchmarks once") {
  RunnerdFixture f;
  const std::string calls = f.dir() / "calls.log";
  // Each job runs as its own uid (as root): every one may append.
  REQUIRE(write_file_atomic(calls, "", 0666).ok());
  REQUIRE(::chmod(calls.c_str(), 0666) == 0);  // whatever the umask said
  f.commit("fake-gb.sh", kFakeGoogleBenchmark, "a benchmark binary");
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: micro\n"
                             "    run: sh fake-gb.sh --benchmark_format=json\n"
                             "    format: google-benchmark\n"
                             "    benchmarks: " + std::string(kEight) + "\n"
                             "    shards: 3\n"
                             "    repetitions: 2\n"
                             "    warmup: 0\n"
                             "    env: {CALLS: " + calls + "}\n"
                             // A harness that ignores the filter: its result is cut to the shard.
                             "  - name: unfiltered\n"
                             "    run: \"sh fake-gb.sh # runs all, whatever $BENCHBOX_SHARD_FILTER says\"\n"
                             "    format: google-benchmark\n"
                             "    benchmarks: " + std::string(kEight) + "\n"
                             "    shard_by: [[BM_a, BM_b], [\"BM_[c-h]\"]]\n"
                             "    repetitions: 1\n"
                             "    warmup: 0\n"
                             "    env: {CALLS: " + calls + "}\n"
                             "  - name: whole\n"
                             "    run: \"true\"\n"
                             "    repetitions: 1\n",
                             "sharded suites");
  f.start_runner();
  const int64_t parent = f.enqueue(f.push_spec(sha));
  json job = f.wait_finished(parent);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  const json head = f.result_of(job)["head"];
  // The parent measured only the unsharded suite, and says where the rest went.
  CHECK(names_in(head, "micro").empty());
  CHECK(names_in(head, "whole") == std::set<std::string>{"whole"});
  const std::string micro_reason = head["suites"]["micro"]["reason"];
  CHECK(head["suites"]["micro"]["status"] == "skipped");
  CHECK(micro_reason.rfind("sharded: measured by 3 shard jobs (job group ", 0) == 0);
  CHECK(head["suites"]["unfiltered"]["reason"].get<std::string>().rfind("sharded: measured by 2 shard jobs", 0) == 0);

  // The group: shards 1 to 3 of micro, between them all eight names.
  const int64_t group = group_in(micro_reason);
  auto shards = jobs_of_group(f, group);
  REQUIRE(shards.size() == 3);
  std::multiset<std::string> planned;
  for (size_t i = 0; i < shards.size(); ++i) {
    CHECK(shards[i]["shard"] == int64_t(i + 1));
    CHECK(shards[i]["shards"] == 3);
    CHECK(shards[i]["suite"] == "micro");
    CHECK(shards[i]["head_sha"] == sha);
    CHECK(shards[i]["delivery_id"] == "");
    for (const auto& n : shards[i]["shard_benchmarks"]) planned.insert(n.get<std::string>());
  }
  CHECK(planned.size() == 8);
  CHECK(std::set<std::string>(planned.begin(), planned.end()).size() == 8);

  // Each shard measured exactly its names, told by the harness's filter.
  std::multiset<std::string> measured;
  std::string env_key;
  for (const auto& s : shards) {
    json done = f.wait_finished(s["id"].get<int64_t>());
    REQUIRE(done["state"] == "done");
    json rs = f.result_of(done)["head"];
    auto names = names_in(rs, "micro");
    std::set<std::string> want;
    for (const auto& n : s["shard_benchmarks"]) want.insert(n.get<std::string>());
    CHECK(names == want);
    measured.insert(names.begin(), names.end());
    CHECK(rs["suites"]["micro"]["declared"] == s["shard_benchmarks"]);
    // The suite's key, not one per shard: one trend per benchmark.
    if (env_key.empty()) env_key = rs["environment_key"];
    CHECK(rs["environment_key"] == env_key);
  }
  CHECK(measured.size() == 8);
  CHECK(std::set<std::string>(measured.begin(), measured.end()).size() == 8);
  std::string log = slurp(calls);
  INFO(log);
  CHECK(log.find("shard=1/3 filter=^(") != std::string::npos);
  CHECK(log.find("shard=3/3 filter=^(") != std::string::npos);
  CHECK(log.find("shard=none") == std::string::npos);  // the parent never ran it

  // shard_by: its patterns decide; the harness ran everything, the result
  // holds only the shard's.
  const int64_t by_group = group_in(head["suites"]["unfiltered"]["reason"]);
  auto by = jobs_of_group(f, by_group);
  REQUIRE(by.size() == 2);
  CHECK(by[0]["shard_benchmarks"] == json({"BM_a", "BM_b"}));
  json first = f.result_of(f.wait_finished(by[0]["id"].get<int64_t>()))["head"];
  CHECK(names_in(first, "unfiltered") == std::set<std::string>{"BM_a", "BM_b"});
  json second = f.result_of(f.wait_finished(by[1]["id"].get<int64_t>()))["head"];
  CHECK(names_in(second, "unfiltered").size() == 6);
  log = slurp(calls);
  CHECK(log.find("shard=2/2 filter=.") != std::string::npos);  // no filter appended

  // The same push again while nothing waits: a new parent, new shards.
  CHECK(f.runner_property("State", "s") == "idle");
}

TEST_CASE("a shard whose suite is no longer sharded at its commit fails, saying so") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: micro\n    run: \"true\"\n    repetitions: 1\n",
                             "not sharded");
  f.start_runner();
  json group = {{"kind", "shards"}, {"repository", "acme/widget"}, {"description", "by hand"},
                {"skip_measured", false}};
  std::vector<json> specs;
  for (int i = 1; i <= 2; ++i) {
    json s = f.push_spec(sha);
    s["suite"] = "micro";
    s["shard"] = i;
    s["shards"] = 2;
    s["shard_benchmarks"] = json::array({"micro"});
    specs.push_back(s);
  }
  int64_t gid = 0;
  std::vector<int64_t> ids;
  REQUIRE_FALSE(f.client().enqueue_group(group, specs, &gid, &ids));
  json job = f.wait_finished(ids.at(0));
  INFO(f.runner_log());
  CHECK(job["state"] == "failed");
  CHECK(job["error"].get<std::string>().find("shard 1 of suite 'micro': the suite is not sharded at ") !=
        std::string::npos);
}
