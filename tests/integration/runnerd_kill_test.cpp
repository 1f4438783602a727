// kill -9 of benchbox-runnerd mid-job: it cannot report anything, so its
// lease expires, queued puts the job back, and a restarted runnerd runs it
// to done. The config uses a 3 s lease and a 1 s heartbeat.
#include <signal.h>

#include <catch2/catch.hpp>

#include "runnerd_fixture.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

TEST_CASE("kill -9 of runnerd mid-job: the lease expires, the job is requeued and completed by a restarted runner") {
  RunnerdFixture f;
  const std::string rounds = f.dir() / "rounds.log";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: slowish\n"
                             "    run: \"echo $BENCHBOX_ROUND >> " + rounds + "; sleep 0.2\"\n"
                             "    repetitions: 8\n"
                             "    warmup: 0\n",
                             "slowish");
  f.start_runner();
  int64_t id = f.enqueue(f.push_spec(sha));
  // Mid-job: a few rounds have run, and heartbeats kept the lease alive
  // past its first 3 s only if the job took that long; either way it runs.
  REQUIRE(wait_until([&] { return path_exists(rounds) && read_file(rounds)->size() >= 4; }));
  json job;
  REQUIRE_FALSE(f.client().get(id, &job));
  CHECK(job["state"] == "running");
  CHECK(job["runner"] == "test-runner");
  f.kill_runner();

  // Nobody heartbeats: the lease (3 s) expires and the job is queued again.
  REQUIRE(wait_until(
      [&] {
        json j;
        return !f.client().get(id, &j) && j["state"] == "queued" && j["attempts"] == 1;
      },
      std::chrono::seconds(20)));

  f.start_runner();
  job = f.wait_finished(id);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  const json& bench = r["head"]["benchmarks"][0];
  CHECK(bench["status"] == "ok");
  CHECK(bench["samples"].size() == 8);  // a full run, not the killed one's leftovers
  CHECK(bench["rounds"] == json::array({0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_CASE("heartbeats keep a job longer than its lease") {
  RunnerdFixture f;
  // 5 s of work against a 3 s lease: only heartbeats keep it ours.
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: long\n    run: \"sleep 1\"\n    repetitions: 5\n"
                             "    warmup: 0\n",
                             "long");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  CHECK(job["state"] == "done");
  CHECK(job["attempts"] == 0);
}

TEST_CASE("SIGTERM mid-job: runnerd stops the job's processes, exits 0 promptly and reports nothing") {
  RunnerdFixture f;
  const std::string pid_file = f.dir() / "bench.pid";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: long\n    run: \"echo $$ > " + pid_file +
                                 "; exec sleep 1000\"\n    timeout: 2000\n",
                             "long");
  f.start_runner();
  int64_t id = f.enqueue(f.push_spec(sha));
  REQUIRE(wait_until([&] { return path_exists(pid_file) && !read_file(pid_file)->empty(); }));
  pid_t bench = static_cast<pid_t>(std::stol(*read_file(pid_file)));
  auto t0 = std::chrono::steady_clock::now();
  CHECK(f.runner().terminate(std::chrono::seconds(10)) == 0);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(8));  // generous: SIGTERM, not the 5 s SIGKILL
  CHECK(wait_until([&] { return ::kill(bench, 0) < 0; }, std::chrono::seconds(5)));
  json job;
  REQUIRE_FALSE(f.client().get(id, &job));
  CHECK(job["state"] == "running");  // not failed, not done: the lease decides
  REQUIRE(wait_until(
      [&] {
        json j;
        return !f.client().get(id, &j) && j["state"] == "queued";
      },
      std::chrono::seconds(20)));
}
