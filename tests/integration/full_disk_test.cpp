// A full disk under benchbox-webhookd and benchbox-queued: their state on
// small tmpfs mounts that the test fills. Nothing is answered 202 that was
// not kept, the errors say why, SQLite stays intact, and once space returns
// everything goes on by itself.
#include <catch2/catch.hpp>
#include "skip.h"

#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "queued_client.h"
#include "webhookd_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

// A push of its own commit each time, so each is new work for the queue.
std::string push_body(int n) {
  json body = github_fixture_json("push_branch.json");
  char sha[41];
  std::snprintf(sha, sizeof sha, "%040x", 0xf00d0000 + n);
  body["after"] = sha;
  if (body.contains("head_commit") && body["head_commit"].is_object()) body["head_commit"]["id"] = sha;
  return body.dump();
}

std::set<std::string> deliveries_with_jobs(WebhookdFixture& w) {
  QueueClient q(w.queue().address());
  std::vector<json> jobs;
  std::set<std::string> out;
  if (q.list("", 0, &jobs)) return out;
  for (const auto& j : jobs) out.insert(j["delivery_id"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("a full disk: 503 for what could not be kept, clear errors, and it all resumes by itself", "[root]") {
  if (::geteuid() != 0) {
    BB_SKIP("mounting the small filesystems needs root");
    return;
  }
  WebhookdFixture w("  queue_timeout_ms: 3000\n");
  SmallDisk state(w.queue().dir() / "state", "2m");
  SmallDisk spool(w.spool_dir(), "1m");
  REQUIRE(state.mounted());
  REQUIRE(spool.mounted());
  w.queue().start_and_wait();
  w.start();
  REQUIRE(w.post("push", "disk-0", push_body(0)).status == 202);

  // 1. The queue's disk is full, the spool's is not: what the queue cannot
  // store is answered 503 and spooled, never 202.
  state.fill();
  std::vector<std::string> refused;
  int n = 1;
  for (; n <= 300 && refused.empty(); ++n) {
    const std::string id = "disk-" + std::to_string(n);
    auto r = w.post("push", id, push_body(n));
    INFO(id << ": " << r.status << " " << r.body);
    REQUIRE((r.status == 202 || r.status == 503));
    if (r.status == 503) {
      CHECK(r.body.find("spooled for replay") != std::string::npos);
      refused.push_back(id);
    }
  }
  INFO(w.queue().log());
  REQUIRE_FALSE(refused.empty());  // the queue's writes did fail
  CHECK(w.spooled().size() == 1);
  CHECK(w.log().find("full") != std::string::npos);  // the journal says why
  // Every 202 is a job.
  auto kept = deliveries_with_jobs(w);
  for (int i = 0; i < n - 1; ++i) {
    const std::string id = "disk-" + std::to_string(i);
    if (std::find(refused.begin(), refused.end(), id) == refused.end()) CHECK(kept.count(id) == 1);
  }

  // 2. Both full: nothing can be kept; 503, never 202.
  spool.fill();
  auto both = w.post("push", "disk-both", push_body(1000));
  CHECK(both.status == 503);
  CHECK(both.body.find("NOT spooled") != std::string::npos);
  CHECK(w.log().find("No space left on device") != std::string::npos);

  // 3. Space returns: the spooled delivery becomes a job by itself, and a
  // redelivery of the one that was not kept is accepted.
  REQUIRE(state.free_space());
  REQUIRE(spool.free_space());
  REQUIRE(wait_until([&] { return deliveries_with_jobs(w).count(refused.front()) == 1; }, std::chrono::seconds(60)));
  // webhookd removes the spool file after queued has the job: a moment later.
  CHECK(wait_until([&] { return w.spooled().empty(); }, std::chrono::seconds(10)));
  CHECK(w.post("push", "disk-both", push_body(1000)).status == 202);
  CHECK(w.post("push", "disk-after", push_body(1001)).status == 202);

  // 4. The database is intact.
  w.stop();
  w.queue().terminate();
  std::string out;
  REQUIRE(run_shell("python3 -c \"import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("
                    "'PRAGMA integrity_check').fetchone()[0])\" '" + w.queue().database() + "'",
                    &out) == 0);
  CHECK(out == "ok\n");
  std::printf("full disk: %d deliveries accepted before the queue's disk refused one (503, spooled, a job once "
              "space returned); both full: 503 NOT spooled, accepted on redelivery; integrity_check: %s",
              n - 2, out.c_str());
}
