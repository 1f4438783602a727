// Three boxes, one queue: three benchbox-queued, each on its own private bus
// (its own box), sharing one PostgreSQL database on the server that
// tests/postgres/with-postgres.sh started. What each box's runnerd and
// reporterd rely on must hold as on one box: another box's JobQueued and
// JobFinished arrive on the local bus, every job is claimed by exactly one
// box, and a box that dies loses its job to another once the lease runs out.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

json push_spec(uint64_t n) {
  return {{"kind", "push"},
          {"repository", "octo/widgets"},
          {"clone_url", "https://example.invalid/octo/widgets.git"},
          {"ref", "refs/heads/main"},
          {"head_sha", fake_sha(n)}};
}

struct Fleet {
  std::string conninfo;
  std::vector<std::unique_ptr<QueuedFixture>> boxes;
  explicit Fleet(const std::string& queue_yaml = "") {
    conninfo = test_postgres_database("fleet_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    REQUIRE_FALSE(conninfo.empty());
    for (int i = 0; i < 3; ++i) {
      boxes.push_back(std::make_unique<QueuedFixture>(queue_yaml));
      boxes.back()->use_postgresql(conninfo);
    }
    // One at a time: the first migrates, the others find the schema current.
    for (auto& b : boxes) b->start_and_wait();
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

}  // namespace

TEST_CASE("a job queued on one box is announced on every box's bus, and its end too", "[fleet]") {
  Fleet fleet;
  QueueClient a(fleet.boxes[0]->address()), b(fleet.boxes[1]->address()), c(fleet.boxes[2]->address());
  b.watch_signals();
  c.watch_signals();
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(a.enqueue(push_spec(1), &id, &created));
  REQUIRE(created);
  CHECK(b.wait_for([&] { return b.count_signals("JobQueued", id) == 1; }));
  CHECK(c.wait_for([&] { return c.count_signals("JobQueued", id) == 1; }));
  // The counts every box shows are the fleet's.
  uint32_t queued = 0;
  REQUIRE_FALSE(c.count("Queued", &queued));
  CHECK(queued == 1);

  // Box B's runner takes it; box C hears it finish.
  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(b.claim("runner-b", 60, &claimed, &job));
  CHECK(claimed == id);
  REQUIRE_FALSE(b.complete(id, "runner-b", "/results/1.json"));
  CHECK(c.wait_for([&] { return c.count_signals("JobFinished", id) == 1; }));
  // A box does not announce its own change twice.
  b.wait_for([] { return false; }, 300'000);
  CHECK(b.count_signals("JobFinished", id) == 1);
  CHECK(b.count_signals("JobQueued", id) == 1);
}

TEST_CASE("boxes claiming at once take every job exactly once", "[fleet]") {
  Fleet fleet;
  constexpr int kJobs = 60;
  {
    QueueClient a(fleet.boxes[0]->address());
    for (int i = 0; i < kJobs; ++i) {
      int64_t id = 0;
      bool created = false;
      REQUIRE_FALSE(a.enqueue(push_spec(100 + i), &id, &created));
    }
  }
  std::mutex mu;
  std::map<int64_t, std::string> taken;
  std::vector<std::string> problems;
  std::vector<std::thread> runners;
  for (int box = 0; box < 3; ++box) {
    runners.emplace_back([&, box] {
      QueueClient client(fleet.boxes[box]->address());
      const std::string runner = "runner-" + std::to_string(box);
      for (;;) {
        int64_t id = 0;
        json job;
        auto e = client.claim(runner, 60, &id, &job);
        std::lock_guard<std::mutex> lock(mu);
        if (e) {
          problems.push_back(runner + ": " + e.name + ": " + e.message);
          return;
        }
        if (id == 0) return;
        if (!taken.emplace(id, runner).second) problems.push_back("job " + std::to_string(id) + " claimed twice");
      }
    });
  }
  for (auto& t : runners) t.join();
  for (const auto& p : problems) FAIL_CHECK(p);
  CHECK(taken.size() == kJobs);
  std::set<std::string> who;
  for (const auto& [id, runner] : taken) who.insert(runner);
  INFO("boxes that claimed: " << who.size());
  CHECK(who.size() >= 2);
}

TEST_CASE("a box killed with its job's lease loses the job to another box", "[fleet][kill]") {
  Fleet fleet("  lease_seconds: 2\n  max_attempts: 3\n");
  QueueClient a(fleet.boxes[0]->address());
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(a.enqueue(push_spec(7), &id, &created));
  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(a.claim("runner-a", 2, &claimed, &job));
  REQUIRE(claimed == id);
  // The whole box goes: its queued (and with it, its runner's heartbeats).
  fleet.boxes[0]->kill_hard();

  QueueClient b(fleet.boxes[1]->address());
  b.watch_signals();
  // Box B's lease check (or box C's, heard by LISTEN) requeues the job.
  REQUIRE(b.wait_for([&] { return b.count_signals("JobQueued", id) >= 1; }, 15'000'000));
  int64_t again = 0;
  REQUIRE_FALSE(b.claim("runner-b", 60, &again, &job));
  CHECK(again == id);
  CHECK(job["attempts"].get<int64_t>() == 1);
  CHECK(job["error"].get<std::string>().find("lease of runner 'runner-a' expired") != std::string::npos);
  REQUIRE_FALSE(b.complete(id, "runner-b", "/results/7.json"));

  // The dead box comes back and sees the fleet's truth.
  fleet.boxes[0]->start_and_wait();
  QueueClient a2(fleet.boxes[0]->address());
  json got;
  REQUIRE_FALSE(a2.get(id, &got));
  CHECK(got["state"] == "done");
  CHECK(got["runner"] == "runner-b");
  // Its old runner is told, not obeyed.
  auto late = a2.heartbeat(id, "runner-a", nullptr);
  CHECK(late.name == "org.benchbox.Error.Conflict");
}

TEST_CASE("a box whose listening connection is cut listens again and hears the fleet", "[fleet]") {
  Fleet fleet;
  QueueClient a(fleet.boxes[0]->address()), b(fleet.boxes[1]->address());
  b.watch_signals();
  // What a database restart or a network cut does to every box's connections.
  const std::string db = fleet.conninfo.substr(fleet.conninfo.rfind("dbname=") + 7);
  std::string out;
  REQUIRE(run_shell("psql -Atq '" + std::string(std::getenv("BENCHBOX_TEST_POSTGRES")) +
                        "' -c \"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db +
                        "'\"",
                    &out) == 0);
  // Box A's own connection is mended at its next call (one call may fail
  // Unavailable); box B listens again within seconds. The listening
  // connection notices the cut when the server closes it, so wait for B to
  // say so before A enqueues.
  REQUIRE(wait_until([&] { return fleet.boxes[1]->log().find("listening again shortly") != std::string::npos; },
                     std::chrono::seconds(10)));
  int64_t id = 0;
  bool created = false;
  auto e = a.enqueue(push_spec(42), &id, &created);
  if (e) {
    CHECK(e.name == "org.benchbox.Error.Unavailable");
    REQUIRE_FALSE(a.enqueue(push_spec(42), &id, &created));
  }
  // The job A queued while B was not listening is announced on B's bus
  // once B listens again, and what comes later as before.
  REQUIRE(wait_until([&] { return fleet.boxes[1]->log().find("listening to the shared queue again") != std::string::npos; },
                     std::chrono::seconds(15)));
  CHECK(b.wait_for([&] { return b.count_signals("JobQueued", id) >= 1; }));
  int64_t later = 0;
  REQUIRE_FALSE(a.enqueue(push_spec(43), &later, &created));
  CHECK(b.wait_for([&] { return b.count_signals("JobQueued", later) == 1; }));
}
