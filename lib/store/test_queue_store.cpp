// QueueStore on real SQLite files in a temp dir, or on a real PostgreSQL
// server (test_location.h), with a FakeClock for leases. Cases tagged
// [sqlite] test that back end's own failures (a corrupt file, a full disk).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "store/queue_schema.h"
#include "store/queue_store.h"
#include "store/database.h"
#include "store/test_location.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::store;
using bb::model::PullRequest;
using model::JobKind;
using model::JobSpec;
using model::JobState;

namespace {

using bb::test::TempDir;

const std::string kSha1(40, 'a');
const std::string kSha2(40, 'b');
const std::string kSha3(40, 'c');

JobSpec spec(const std::string& head = kSha1, const std::string& delivery = "") {
  JobSpec s;
  s.kind = JobKind::push;
  s.repository = "octo/widgets";
  s.clone_url = "https://example.invalid/octo/widgets.git";
  s.ref = "refs/heads/main";
  s.head_sha = head;
  s.delivery_id = delivery;
  return s;
}

QueueStore open_store(const std::string& path, const Clock& clock, unsigned max_attempts = 3) {
  QueueOptions o;
  o.max_attempts = max_attempts;
  o.default_lease_seconds = 60;
  return testdb::open_queue(path, clock, o);
}

}  // namespace

TEST_CASE("enqueue stores a job and get returns it", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  auto r = q.enqueue(spec());
  REQUIRE(r);
  CHECK(r->created);
  CHECK(r->job.id > 0);
  CHECK(r->job.state == JobState::queued);
  CHECK(r->job.created == clock.now_unix());
  auto got = q.get(r->job.id);
  REQUIRE(got);
  CHECK(got->spec.head_sha == kSha1);
  CHECK(got->spec.repository == "octo/widgets");
  auto missing = q.get(9999);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
}

TEST_CASE("enqueue validates the spec", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  auto bad = spec();
  bad.head_sha = "not-a-sha";
  auto r = q.enqueue(bad);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == Errc::invalid_argument);
  CHECK(r.error().message.find("head_sha") != std::string::npos);
  auto pr = spec();
  pr.kind = JobKind::pull_request;
  auto r2 = q.enqueue(pr);
  REQUIRE_FALSE(r2);
  CHECK(r2.error().message.find("pr_number") != std::string::npos);
  CHECK(q.counts()->queued == 0);
}

TEST_CASE("dedupe by delivery id in any state and by work among live jobs", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  auto first = q.enqueue(spec(kSha1, "delivery-1"));
  REQUIRE(first);
  // Same delivery, even for other work: the same webhook redelivered.
  auto again = q.enqueue(spec(kSha2, "delivery-1"));
  REQUIRE(again);
  CHECK_FALSE(again->created);
  CHECK(again->job.id == first->job.id);
  // Same work from another delivery while the first is queued.
  auto same_work = q.enqueue(spec(kSha1, "delivery-2"));
  REQUIRE(same_work);
  CHECK_FALSE(same_work->created);
  CHECK(same_work->job.id == first->job.id);
  // Other suite, other base or other kind is other work.
  auto other_suite = spec(kSha1, "delivery-3");
  other_suite.suite = "micro";
  CHECK(q.enqueue(other_suite)->created);
  auto other_kind = spec(kSha1, "delivery-4");
  other_kind.kind = JobKind::tag;
  CHECK(q.enqueue(other_kind)->created);

  // Once the job is finished, the same work may run again, but the same
  // delivery still answers with the old job.
  auto claimed = q.claim("r1", 0);
  REQUIRE(claimed);
  REQUIRE(claimed->job);
  CHECK(claimed->job->id == first->job.id);
  REQUIRE(q.complete(first->job.id, "r1", "/results/1.json"));
  auto rerun = q.enqueue(spec(kSha1, "delivery-5"));
  REQUIRE(rerun);
  CHECK(rerun->created);
  auto redelivered = q.enqueue(spec(kSha1, "delivery-1"));
  CHECK_FALSE(redelivered->created);
  CHECK(redelivered->job.id == first->job.id);
  CHECK(redelivered->job.state == JobState::done);
}

TEST_CASE("jobs without a head sha dedupe on their ref", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  auto a = spec("");
  auto b = spec("");
  b.ref = "refs/heads/other";
  CHECK(q.enqueue(a)->created);
  CHECK(q.enqueue(b)->created);
  CHECK_FALSE(q.enqueue(a)->created);
}

TEST_CASE("claim takes the highest priority, then the oldest", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  auto low_old = q.enqueue(spec(kSha1));
  clock.advance_seconds(1);
  auto high = spec(kSha2);
  high.priority = 10;
  auto high_job = q.enqueue(high);
  clock.advance_seconds(1);
  auto low_new = q.enqueue(spec(kSha3));
  REQUIRE(low_old);
  REQUIRE(high_job);
  REQUIRE(low_new);

  auto c1 = q.claim("r1", 30);
  REQUIRE(c1);
  REQUIRE(c1->job);
  CHECK(c1->job->id == high_job->job.id);
  CHECK(c1->job->state == JobState::running);
  CHECK(c1->job->runner == "r1");
  CHECK(c1->job->lease_expires == clock.now_unix() + 30);
  CHECK(c1->job->started == clock.now_unix());
  CHECK(q.claim("r2", 30)->job->id == low_old->job.id);
  CHECK(q.claim("r3", 30)->job->id == low_new->job.id);
  auto none = q.claim("r4", 30);
  REQUIRE(none);
  CHECK_FALSE(none->job);
  auto counts = q.counts();
  REQUIRE(counts);
  CHECK(counts->running == 3);
  CHECK(counts->queued == 0);
  CHECK_FALSE(q.claim("", 30));
}

TEST_CASE("heartbeat extends the lease; expiry requeues and then fails", "[queue][lease]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock, /*max_attempts=*/2);
  auto job = q.enqueue(spec());
  REQUIRE(job);
  int64_t id = job->job.id;
  REQUIRE(q.claim("r1", 10)->job);

  clock.advance_seconds(8);
  auto expires = q.heartbeat(id, "r1");
  REQUIRE(expires);
  CHECK(*expires == clock.now_unix() + 10);
  clock.advance_seconds(10);  // exactly at expiry: still valid
  CHECK(q.expire_leases()->empty());
  clock.advance_seconds(1);   // one past: expired
  auto expired = q.expire_leases();
  REQUIRE(expired);
  REQUIRE(expired->size() == 1);
  CHECK((*expired)[0].state == JobState::queued);
  CHECK((*expired)[0].attempts == 1);
  CHECK((*expired)[0].runner.empty());
  CHECK((*expired)[0].error.find("r1") != std::string::npos);

  // The old runner lost it.
  auto late = q.heartbeat(id, "r1");
  REQUIRE_FALSE(late);
  CHECK(late.error().code == Errc::conflict);

  // Claim handles expiry itself: the second lease runs out before the
  // next claim, which fails the job for good (max_attempts=2).
  auto second = q.claim("r2", 5);
  REQUIRE(second->job);
  CHECK(second->job->id == id);
  clock.advance_seconds(6);
  auto third = q.claim("r3", 5);
  REQUIRE(third);
  CHECK_FALSE(third->job);
  REQUIRE(third->expired.size() == 1);
  auto failed = q.get(id);
  CHECK(failed->state == JobState::failed);
  CHECK(failed->attempts == 2);
  CHECK(failed->finished == clock.now_unix());
  CHECK(failed->error.find("max_attempts=2") != std::string::npos);
}

TEST_CASE("transitions in the wrong state are refused with Conflict", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  int64_t id = q.enqueue(spec())->job.id;

  // Not running yet.
  CHECK(q.complete(id, "r1", "/x").error().code == Errc::conflict);
  CHECK(q.fail(id, "r1", "x").error().code == Errc::conflict);
  CHECK(q.heartbeat(id, "r1").error().code == Errc::conflict);
  CHECK(q.complete(4242, "r1", "/x").error().code == Errc::not_found);

  REQUIRE(q.claim("r1", 30)->job);
  // Another runner may not touch it.
  auto wrong = q.complete(id, "r2", "/x");
  CHECK(wrong.error().code == Errc::conflict);
  CHECK(wrong.error().message.find("'r1'") != std::string::npos);

  auto done = q.complete(id, "r1", "/results/1.json");
  REQUIRE(done);
  CHECK(done->state == JobState::done);
  CHECK(done->result_path == "/results/1.json");
  CHECK(done->finished == clock.now_unix());
  CHECK(done->lease_expires == 0);

  // Terminal: nothing moves it again.
  CHECK(q.complete(id, "r1", "/x").error().code == Errc::conflict);
  CHECK(q.fail(id, "r1", "x").error().code == Errc::conflict);
  auto cancel_done = q.cancel(id, "too late");
  CHECK(cancel_done.error().code == Errc::conflict);
  CHECK(cancel_done.error().message.find("already done") != std::string::npos);
}

TEST_CASE("fail records the reason", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  int64_t id = q.enqueue(spec())->job.id;
  REQUIRE(q.claim("r1", 30)->job);
  auto failed = q.fail(id, "r1", ".benchbox.yml:3:1: suites: expected a list");
  REQUIRE(failed);
  CHECK(failed->state == JobState::failed);
  CHECK(failed->error == ".benchbox.yml:3:1: suites: expected a list");
}

TEST_CASE("cancel: queued jobs are skipped, the runner of a running job hears Cancelled", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  int64_t a = q.enqueue(spec(kSha1))->job.id;
  int64_t b = q.enqueue(spec(kSha2))->job.id;
  auto ca = q.cancel(a, "operator said so");
  REQUIRE(ca);
  CHECK(ca->state == JobState::cancelled);
  CHECK(ca->error == "operator said so");
  auto claimed = q.claim("r1", 30);
  REQUIRE(claimed->job);
  CHECK(claimed->job->id == b);

  REQUIRE(q.cancel(b, "superseded"));
  auto hb = q.heartbeat(b, "r1");
  REQUIRE_FALSE(hb);
  CHECK(hb.error().code == Errc::cancelled);
  CHECK(hb.error().message.find("superseded") != std::string::npos);
  CHECK(q.complete(b, "r1", "/x").error().code == Errc::cancelled);
  CHECK(q.get(b)->state == JobState::cancelled);
  // A cancelled job's lease never "expires" back into the queue.
  clock.advance_seconds(3600);
  CHECK(q.expire_leases()->empty());
  CHECK(q.counts()->cancelled == 2);
}

TEST_CASE("list is newest first, filtered by state and limited", "[queue]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  int64_t a = q.enqueue(spec(kSha1))->job.id;
  int64_t b = q.enqueue(spec(kSha2))->job.id;
  int64_t c = q.enqueue(spec(kSha3))->job.id;
  REQUIRE(q.claim("r1", 30)->job->id == a);
  auto all = q.list(std::nullopt, 0);
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].id == c);
  CHECK((*all)[2].id == a);
  auto queued = q.list(JobState::queued, 0);
  REQUIRE(queued->size() == 2);
  CHECK((*queued)[0].id == c);
  CHECK((*queued)[1].id == b);
  CHECK(q.list(std::nullopt, 1)->size() == 1);
  CHECK(q.list(JobState::done, 0)->empty());
  CHECK(*q.ids() == std::vector<int64_t>{a, b, c});

  // Paging oldest first: a reader that remembers the last id sees every job once.
  auto first = q.list_after(0, 2);
  REQUIRE(first);
  REQUIRE(first->size() == 2);
  CHECK((*first)[0].id == a);
  CHECK((*first)[1].id == b);
  auto rest = q.list_after(b, 2);
  REQUIRE(rest->size() == 1);
  CHECK((*rest)[0].id == c);
  CHECK(q.list_after(c, 2)->empty());
  CHECK(q.list_after(0, 0).error().code == Errc::invalid_argument);
  CHECK(q.list_after(0, 1001).error().code == Errc::invalid_argument);
}

TEST_CASE("reopening the file keeps everything, ids are never reused", "[queue][durability]") {
  TempDir dir;
  FakeClock clock;
  std::string path = dir.file("queue.db");
  int64_t a = 0, b = 0;
  {
    auto q = open_store(path, clock);
    a = q.enqueue(spec(kSha1, "d-1"))->job.id;
    b = q.enqueue(spec(kSha2, "d-2"))->job.id;
    REQUIRE(q.claim("r1", 30)->job);
    REQUIRE(q.record_pull_request(PullRequest{"octo/widgets", 7, kSha3, "feature", "main", kSha1, "open",
                                              "https://example.invalid/x.git", 0, "", "", ""}));
  }
  auto q = open_store(path, clock);
  auto ja = q.get(a);
  REQUIRE(ja);
  CHECK(ja->state == JobState::running);
  CHECK(ja->runner == "r1");
  CHECK(q.get(b)->state == JobState::queued);
  CHECK(q.get(b)->spec.delivery_id == "d-2");
  CHECK(q.get_pull_request("octo/widgets", 7)->head_sha == kSha3);
  CHECK_FALSE(q.enqueue(spec(kSha2, "d-2"))->created);
  // Lease state survives too: the runner's heartbeat still works.
  CHECK(q.heartbeat(a, "r1"));
  auto v = q.database().schema_version("queue");
  REQUIRE(v);
  CHECK(*v == static_cast<int>(schema::queue_migrations().size()));
  // Even after the newest job is gone, its id is not handed out again.
  REQUIRE(q.database().exec("DELETE FROM jobs WHERE id = " + std::to_string(b)));
  CHECK(q.enqueue(spec(kSha3))->job.id > b);
}

TEST_CASE("pull request records upsert and NotFound when unknown", "[queue][pr]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  PullRequest pr{"octo/widgets", 12, kSha1, "feature", "refs/heads/main", kSha2, "open",
                 "https://example.invalid/octo/widgets.git", 0, "", "", ""};
  auto saved = q.record_pull_request(pr);
  REQUIRE(saved);
  CHECK(saved->changed);
  CHECK(saved->pr.updated == clock.now_unix());
  clock.advance_seconds(5);
  pr.head_sha = kSha3;
  pr.state = "closed";
  REQUIRE(q.record_pull_request(pr));
  auto got = q.get_pull_request("octo/widgets", 12);
  REQUIRE(got);
  CHECK(got->head_sha == kSha3);
  CHECK(got->state == "closed");
  CHECK(got->base_sha == kSha2);
  CHECK(got->updated == clock.now_unix());
  // The title and author, kept when a later event does not carry them.
  pr.title = "Speed up the tokenizer";
  pr.author = "octocat";
  REQUIRE(q.record_pull_request(pr));
  pr.title = pr.author = "";
  REQUIRE(q.record_pull_request(pr));
  got = q.get_pull_request("octo/widgets", 12);
  REQUIRE(got);
  CHECK(got->title == "Speed up the tokenizer");
  CHECK(got->author == "octocat");
  auto missing = q.get_pull_request("octo/widgets", 13);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);
  CHECK(missing.error().message.find("octo/widgets#13") != std::string::npos);

  pr.head_sha = "zz";
  CHECK(q.record_pull_request(pr).error().code == Errc::invalid_argument);
  pr.head_sha = kSha1;
  pr.state = "merged";
  CHECK(q.record_pull_request(pr).error().message.find("'merged'") != std::string::npos);
  pr.state = "open";
  pr.number = 0;
  CHECK(q.record_pull_request(pr).error().code == Errc::invalid_argument);
}

TEST_CASE("a corrupt database file gives a clear error", "[queue][errors][sqlite]") {
  TempDir dir;
  FakeClock clock;
  std::string path = dir.file("queue.db");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i) out << "this is not a sqlite database, it is a text file\n";
  }
  auto q = QueueStore::open(path, clock, {});
  REQUIRE_FALSE(q);
  CHECK(q.error().code == Errc::parse);
  CHECK(q.error().message.find(path) != std::string::npos);
  CHECK(q.error().message.find("not a database") != std::string::npos);
}

TEST_CASE("a database from a newer benchbox is refused", "[queue][errors][sqlite]") {
  TempDir dir;
  FakeClock clock;
  std::string path = dir.file("queue.db");
  {
    auto db = Database::open(path);
    REQUIRE(db);
    REQUIRE(db->exec("PRAGMA user_version=99"));
  }
  auto q = QueueStore::open(path, clock, {});
  REQUIRE_FALSE(q);
  CHECK(q.error().message.find("schema version 99 is newer") != std::string::npos);
}

TEST_CASE("an unwritable directory gives an IO error naming the file", "[queue][errors][sqlite]") {
  if (::geteuid() == 0) {
    // root ignores permissions; use a path under a regular file instead.
    TempDir dir;
    FakeClock clock;
    std::ofstream(dir.file("plain")) << "x";
    auto q = QueueStore::open(dir.file("plain") + "/queue.db", clock, {});
    REQUIRE_FALSE(q);
    CHECK(q.error().code == Errc::io);
    CHECK(q.error().message.find("plain/queue.db") != std::string::npos);
    return;
  }
  TempDir dir;
  FakeClock clock;
  ::chmod(dir.path.c_str(), 0500);
  auto q = QueueStore::open(dir.file("queue.db"), clock, {});
  ::chmod(dir.path.c_str(), 0700);
  REQUIRE_FALSE(q);
  CHECK(q.error().code == Errc::io);
}

TEST_CASE("a full database refuses with IO and loses nothing acknowledged", "[queue][errors][sqlite]") {
  TempDir dir;
  FakeClock clock;
  std::string path = dir.file("queue.db");
  std::vector<int64_t> acknowledged;
  {
    auto q = open_store(path, clock);
    // Cap the file at its current size plus a little: SQLite then answers
    // SQLITE_FULL exactly as on a full disk.
    auto pages = q.database().prepare("PRAGMA page_count");
    REQUIRE(pages);
    REQUIRE(*pages->step());
    int64_t cap = pages->column_int64(0) + 2;
    REQUIRE(q.database().exec("PRAGMA max_page_count=" + std::to_string(cap)));
    Error full;
    for (int i = 0; i < 10000; ++i) {
      char sha[41];
      std::snprintf(sha, sizeof sha, "%040x", i);
      auto s = spec(sha, "delivery-" + std::to_string(i));
      s.requested_by = std::string(500, 'x');  // fill pages quickly
      auto r = q.enqueue(s);
      if (!r) {
        full = r.error();
        break;
      }
      acknowledged.push_back(r->job.id);
    }
    REQUIRE_FALSE(full.message.empty());
    CHECK(full.code == Errc::io);
    CHECK(full.message.find("full") != std::string::npos);
    CHECK(full.message.find(path) != std::string::npos);
    REQUIRE_FALSE(acknowledged.empty());
    // The store keeps working for reads after the failure.
    CHECK(q.get(acknowledged.back()));
  }
  auto q = open_store(path, clock);
  auto ids = q.ids();
  REQUIRE(ids);
  CHECK(*ids == acknowledged);
  // With room again, writing works.
  CHECK(q.enqueue(spec(kSha2, "after"))->created);
}

TEST_CASE("a body accepted once is answered with its first job for the whole replay window", "[queue][replay]") {
  TempDir dir;
  FakeClock clock;
  std::string path = dir.file("queue.db");
  const std::string key(64, 'e');
  int64_t first = 0;
  {
    auto q = open_store(path, clock);
    JobSpec s = spec(kSha1, "delivery-1");
    s.replay_key = key;
    auto r = q.enqueue(s);
    REQUIRE(r);
    REQUIRE(r->created);
    first = r->job.id;
    CHECK(r->job.spec.replay_key.empty());  // input only: not part of the stored job
    // The job ends, so neither the delivery id nor "same work" would match any more.
    REQUIRE(q.claim("r1", 30)->job);
    REQUIRE(q.complete(first, "r1", "/x"));
  }
  auto q = open_store(path, clock);  // durable across restarts
  JobSpec replay = spec(kSha1, "delivery-2-forged");
  replay.replay_key = key;
  clock.advance_seconds(6 * 24 * 3600);
  auto again = q.enqueue(replay);
  REQUIRE(again);
  CHECK_FALSE(again->created);
  CHECK(again->job.id == first);

  SECTION("after the window it is a new job") {
    clock.advance_seconds(2 * 24 * 3600);
    replay.delivery_id = "delivery-3";
    auto late = q.enqueue(replay);
    REQUIRE(late);
    CHECK(late->created);
    CHECK(late->job.id != first);
  }
  SECTION("a window of 0 turns it off") {
    QueueOptions o = q.options();
    o.replay_window_seconds = 0;
    q.set_options(o);
    auto off = q.enqueue(replay);
    REQUIRE(off);
    CHECK(off->created);
  }
  SECTION("a malformed key is refused") {
    replay.replay_key = "nothex";
    CHECK(q.enqueue(replay).error().code == Errc::invalid_argument);
  }
}

TEST_CASE("a replayed pull_request body does not move the record back", "[queue][replay]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  PullRequest old{"octo/widgets", 4, kSha1, "feature", "refs/heads/main", kSha2, "open", "https://x/y.git", 0,
                  std::string(64, '1'), "", ""};
  REQUIRE(q.record_pull_request(old)->changed);
  PullRequest newer = old;
  newer.head_sha = kSha3;
  newer.replay_key = std::string(64, '2');
  REQUIRE(q.record_pull_request(newer)->changed);
  auto replayed = q.record_pull_request(old);  // captured earlier, sent again
  REQUIRE(replayed);
  CHECK_FALSE(replayed->changed);
  CHECK(replayed->pr.head_sha == kSha3);
  CHECK(q.get_pull_request("octo/widgets", 4)->head_sha == kSha3);

  SECTION("a label's body records, then enqueues once; its replay does neither") {
    PullRequest labeled = newer;
    labeled.replay_key = std::string(64, '3');
    REQUIRE(q.record_pull_request(labeled)->changed);
    JobSpec job = spec(kSha3, "label-1");
    job.kind = JobKind::pull_request;
    job.pr_number = 4;
    job.replay_key = labeled.replay_key;
    auto made = q.enqueue(job);
    REQUIRE(made->created);
    CHECK_FALSE(q.record_pull_request(labeled)->changed);
    job.delivery_id = "label-2";
    auto again = q.enqueue(job);
    CHECK_FALSE(again->created);
    CHECK(again->job.id == made->job.id);
  }
}

TEST_CASE("a job's result set travels with the queue, in the transaction that completes it", "[queue][result]") {
  TempDir dir;
  FakeClock clock;
  auto q = open_store(dir.file("queue.db"), clock);
  int64_t id = q.enqueue(spec())->job.id;
  REQUIRE(q.claim("r1", 30)->job);
  CHECK(q.result(id).error().code == Errc::not_found);
  // Too large for one D-Bus message: refused, and the job stays running.
  auto big = q.complete(id, "r1", "/r/1.json", std::string(model::kMaxResultBytes + 1, 'x'));
  REQUIRE_FALSE(big);
  CHECK(big.error().code == Errc::invalid_argument);
  CHECK(q.get(id)->state == JobState::running);
  const std::string body = R"({"head": {"benchmarks": []}, "note": "µ"})";
  REQUIRE(q.complete(id, "r1", "/r/1.json", body));
  CHECK(*q.result(id) == body);
  CHECK(q.get(id)->result_path == "/r/1.json");
  // An older runner's Complete keeps no result.
  int64_t old = q.enqueue(spec(kSha2))->job.id;
  REQUIRE(q.claim("r1", 30)->job);
  REQUIRE(q.complete(old, "r1", "/r/2.json"));
  CHECK(q.result(old).error().code == Errc::not_found);
}
