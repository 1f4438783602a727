// Job groups in the QueueStore, on real SQLite files or PostgreSQL (test_location.h).
#include <catch2/catch.hpp>

#include "store/queue_store.h"
#include "store/test_location.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::store;
using model::GroupKind;
using model::GroupSpec;
using model::JobKind;
using model::JobSpec;
using model::JobState;

namespace {

std::string sha(int i) {
  std::string s = std::to_string(i);
  return std::string(40 - s.size(), 'a') + s;
}

JobSpec backfill_spec(int i) {
  JobSpec s;
  s.kind = JobKind::push;
  s.repository = "octo/widgets";
  s.clone_url = "https://example.invalid/octo/widgets.git";
  s.ref = "refs/heads/main";
  s.head_sha = sha(i);
  s.priority = -10;
  return s;
}

GroupSpec group_spec() {
  GroupSpec g;
  g.kind = GroupKind::backfill;
  g.repository = "octo/widgets";
  g.description = "backfill --first-parent --every 1";
  g.requested_by = "root";
  return g;
}


}  // namespace

TEST_CASE("a group's jobs are queued together, below pushes, and counted by state") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto r = q.enqueue_group(group_spec(), {backfill_spec(1), backfill_spec(2), backfill_spec(3)});
  REQUIRE(r.ok());
  REQUIRE(r->group.id > 0);
  CHECK(r->group.queued == 3);
  REQUIRE(r->jobs.size() == 3);
  for (const auto& j : r->jobs) {
    CHECK(j.created);
    CHECK(j.job.spec.group_id == r->group.id);
  }
  // A push arriving later is claimed first: backfills have a lower priority.
  JobSpec push = backfill_spec(99);
  push.priority = 0;
  auto p = q.enqueue(push);
  REQUIRE(p.ok());
  auto first = q.claim("r1", 0);
  REQUIRE(first.ok());
  REQUIRE(first->job);
  CHECK(first->job->id == p->job.id);
  auto second = q.claim("r1", 0);
  REQUIRE(second.ok());
  REQUIRE(second->job);
  CHECK(second->job->spec.group_id == r->group.id);
  REQUIRE(q.complete(second->job->id, "r1", "/x.json").ok());

  auto g = q.get_group(r->group.id);
  REQUIRE(g.ok());
  CHECK(g->done == 1);
  CHECK(g->queued == 2);
  CHECK(g->spec.description == "backfill --first-parent --every 1");
  CHECK_FALSE(g->finished());
  auto jobs = q.group_jobs(r->group.id);
  REQUIRE(jobs.ok());
  CHECK(jobs->size() == 3);

  // Survives reopening: the group is on disk.
  auto q2 = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto groups = q2.list_groups(0);
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  CHECK(groups->front().total() == 3);
}

TEST_CASE("cancelling a group cancels its waiting and running jobs, nothing else") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto r = q.enqueue_group(group_spec(), {backfill_spec(1), backfill_spec(2), backfill_spec(3)});
  REQUIRE(r.ok());
  auto other = q.enqueue(backfill_spec(50));
  REQUIRE(other.ok());
  auto c1 = q.claim("r1", 0);  // job of the group, oldest first at equal priority
  REQUIRE(c1.ok());
  REQUIRE(c1->job);
  REQUIRE(q.complete(c1->job->id, "r1", "/x.json").ok());
  auto c2 = q.claim("r1", 0);
  REQUIRE(c2.ok());
  REQUIRE(c2->job);

  auto cancelled = q.cancel_group(r->group.id, "operator changed their mind");
  REQUIRE(cancelled.ok());
  CHECK(cancelled->size() == 2);  // the running one and the queued one
  for (const auto& j : *cancelled) CHECK(j.state == JobState::cancelled);
  // The running job's runner learns it at its next heartbeat.
  auto hb = q.heartbeat(c2->job->id, "r1");
  REQUIRE_FALSE(hb.ok());
  CHECK(hb.error().code == Errc::cancelled);
  auto g = q.get_group(r->group.id);
  REQUIRE(g.ok());
  CHECK(g->done == 1);
  CHECK(g->cancelled == 2);
  CHECK(g->finished());
  CHECK(q.get(other->job.id)->state == JobState::queued);
  CHECK(q.cancel_group(r->group.id, "")->empty());  // again: nothing left to cancel
  CHECK(q.cancel_group(999, "").error().code == Errc::not_found);
}

TEST_CASE("a group skips work already waiting or already measured") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto waiting = q.enqueue(backfill_spec(1));
  REQUIRE(waiting.ok());
  auto measured = q.enqueue(backfill_spec(2));
  REQUIRE(measured.ok());
  // Claim order is by priority then id: job 1 first. Finish job 2 only.
  auto c = q.claim("r1", 0);
  auto c2 = q.claim("r1", 0);
  REQUIRE(c2.ok());
  REQUIRE(c2->job);
  REQUIRE(c2->job->id == measured->job.id);
  REQUIRE(q.complete(measured->job.id, "r1", "/m.json").ok());

  auto r = q.enqueue_group(group_spec(), {backfill_spec(1), backfill_spec(2), backfill_spec(3)});
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 3);
  CHECK_FALSE(r->jobs[0].created);
  CHECK(r->jobs[0].job.id == waiting->job.id);
  CHECK(r->jobs[0].job.spec.group_id == 0);  // it stays where it was
  CHECK_FALSE(r->jobs[1].created);
  CHECK(r->jobs[1].job.state == JobState::done);
  CHECK(r->jobs[2].created);
  CHECK(r->group.total() == 1);

  // Measuring again on purpose.
  GroupSpec again = group_spec();
  again.skip_measured = false;
  auto r2 = q.enqueue_group(again, {backfill_spec(2)});
  REQUIRE(r2.ok());
  CHECK(r2->jobs[0].created);

  // Nothing new at all: no group is made.
  auto r3 = q.enqueue_group(group_spec(), {backfill_spec(3)});
  REQUIRE(r3.ok());
  CHECK(r3->group.id == 0);
  CHECK_FALSE(r3->jobs[0].created);
  CHECK(q.list_groups(0)->size() == 2);
}

TEST_CASE("a group's plan says what enqueueing it would do, and stores nothing") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto waiting = q.enqueue(backfill_spec(1));
  REQUIRE(waiting.ok());
  auto measured = q.enqueue(backfill_spec(2));
  REQUIRE(measured.ok());
  REQUIRE(q.claim("r1", 0).ok());
  REQUIRE(q.claim("r1", 0).ok());
  REQUIRE(q.complete(measured->job.id, "r1", "/m.json").ok());
  const auto ids_before = q.ids();
  REQUIRE(ids_before.ok());

  auto plan = q.plan_group(group_spec(), {backfill_spec(1), backfill_spec(2), backfill_spec(3)});
  REQUIRE(plan.ok());
  REQUIRE(plan->jobs.size() == 3);
  CHECK_FALSE(plan->jobs[0].created);
  CHECK(plan->jobs[0].job.id == waiting->job.id);
  CHECK(plan->jobs[0].job.state == JobState::running);
  CHECK_FALSE(plan->jobs[1].created);
  CHECK(plan->jobs[1].job.state == JobState::done);
  CHECK(plan->jobs[2].created);
  CHECK(plan->jobs[2].job.id == 0);
  CHECK(plan->jobs[2].job.spec.head_sha == sha(3));
  // Nothing stored: no job, no group; enqueueing it now makes the same.
  CHECK(*q.ids() == *ids_before);
  CHECK(q.list_groups(0)->empty());
  auto r = q.enqueue_group(group_spec(), {backfill_spec(1), backfill_spec(2), backfill_spec(3)});
  REQUIRE(r.ok());
  CHECK(r->jobs[2].created);
  CHECK(r->group.id > 0);  // PostgreSQL's sequences move on in a dropped transaction too
  CHECK(q.list_groups(0)->size() == 1);
  // A bad spec is refused as enqueue_group refuses it.
  JobSpec other = backfill_spec(4);
  other.repository = "octo/other";
  auto bad = q.plan_group(group_spec(), {other});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("job 1 of 1: measures octo/other") != std::string::npos);
}

TEST_CASE("a bad group is refused whole, naming the spec") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  JobSpec bad = backfill_spec(2);
  bad.head_sha = "nothex";
  auto r = q.enqueue_group(group_spec(), {backfill_spec(1), bad});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::invalid_argument);
  CHECK(r.error().message.find("job 2 of 2") != std::string::npos);
  CHECK(q.list(std::nullopt, 0)->empty());
  CHECK(q.list_groups(0)->empty());

  JobSpec elsewhere = backfill_spec(3);
  elsewhere.repository = "octo/other";
  CHECK(q.enqueue_group(group_spec(), {elsewhere}).error().message.find("not the group's") != std::string::npos);
  CHECK_FALSE(q.enqueue_group(group_spec(), {}).ok());
  JobSpec forged = backfill_spec(4);
  forged.group_id = 7;
  CHECK_FALSE(q.enqueue_group(group_spec(), {forged}).ok());
  GroupSpec nameless = group_spec();
  nameless.repository.clear();
  CHECK_FALSE(q.enqueue_group(nameless, {backfill_spec(1)}).ok());

  // Enqueue may add to a group that exists, for its repository only.
  auto g = q.enqueue_group(group_spec(), {backfill_spec(5)});
  REQUIRE(g.ok());
  JobSpec more = backfill_spec(6);
  more.group_id = g->group.id;
  CHECK(q.enqueue(more).ok());
  more.group_id = 4242;
  CHECK(q.enqueue(more).error().code == Errc::not_found);
  CHECK(q.set_group_step(g->group.id, "step 2").ok());
  CHECK(q.get_group(g->group.id)->step == "step 2");
  CHECK(q.set_group_step(4242, "x").error().code == Errc::not_found);
}

TEST_CASE("a compare job keeps its commits and threshold through the queue") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  JobSpec step = backfill_spec(2);
  step.kind = JobKind::compare;
  step.base_sha = sha(1);
  step.threshold = 0.025;
  GroupSpec g = group_spec();
  g.kind = GroupKind::bisect;
  auto r = q.enqueue_group(g, {step});
  REQUIRE(r.ok());
  auto job = q.get(r->jobs[0].job.id);
  REQUIRE(job.ok());
  CHECK(job->spec.kind == JobKind::compare);
  CHECK(job->spec.base_sha == sha(1));
  CHECK(job->spec.threshold == 0.025);
  CHECK(q.get_group(r->group.id)->spec.kind == GroupKind::bisect);

  JobSpec no_base = step;
  no_base.base_sha.clear();
  CHECK(q.enqueue(no_base).error().message.find("needs a head_sha and a base_sha") != std::string::npos);
  JobSpec push = backfill_spec(3);
  push.threshold = 0.1;
  CHECK(q.enqueue(push).error().message.find("only a compare job") != std::string::npos);
}

namespace {

JobSpec shard_spec(int shard, int shards, std::vector<std::string> names) {
  JobSpec s = backfill_spec(7);
  s.kind = JobKind::pull_request;
  s.pr_number = 4;
  s.ref = "refs/pull/4/head";
  s.base_ref = "refs/heads/main";
  s.base_sha = sha(6);
  s.priority = 0;
  s.suite = "micro";
  s.shard = shard;
  s.shards = shards;
  s.benchmarks = std::move(names);
  return s;
}

GroupSpec shards_group() {
  GroupSpec g = group_spec();
  g.kind = GroupKind::shards;
  g.description = "suite micro of job 3 in 3 shards";
  g.skip_measured = false;
  return g;
}

}  // namespace

TEST_CASE("a suite's shards are queued together and keep their place and benchmarks") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto r = q.enqueue_group(shards_group(), {shard_spec(1, 3, {"BM_a", "BM_b/8"}), shard_spec(2, 3, {"BM_c"}),
                                            shard_spec(3, 3, {"BM_µ \"quoted\""})});
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 3);
  for (const auto& j : r->jobs) CHECK(j.created);  // same commits, different shards: not duplicates
  auto job = q.get(r->jobs[0].job.id);
  REQUIRE(job.ok());
  CHECK(job->spec.shard == 1);
  CHECK(job->spec.shards == 3);
  CHECK(job->spec.benchmarks == std::vector<std::string>{"BM_a", "BM_b/8"});
  CHECK(job->spec.group_id == r->group.id);
  CHECK(q.get(r->jobs[2].job.id)->spec.benchmarks == std::vector<std::string>{"BM_µ \"quoted\""});
  CHECK(q.get_group(r->group.id)->spec.kind == GroupKind::shards);
  auto listed = q.group_jobs(r->group.id);
  REQUIRE(listed.ok());
  CHECK(listed->size() == 3);
  // The same shards again while they wait: the waiting jobs, nothing new.
  auto again = q.enqueue_group(shards_group(), {shard_spec(1, 3, {"BM_a", "BM_b/8"}), shard_spec(2, 3, {"BM_c"}),
                                                shard_spec(3, 3, {"BM_µ \"quoted\""})});
  REQUIRE(again.ok());
  for (size_t i = 0; i < 3; ++i) {
    CHECK_FALSE(again->jobs[i].created);
    CHECK(again->jobs[i].job.id == r->jobs[i].job.id);
  }
  // A plain job is never mistaken for a shard of the same commits.
  JobSpec whole = shard_spec(0, 0, {});
  auto plain = q.enqueue(whole);
  REQUIRE(plain.ok());
  CHECK(plain->created);
}

TEST_CASE("a shard outside a whole shards group is refused, naming why") {
  test::TempDir dir;
  FakeClock clock;
  auto q = store::testdb::open_queue(dir.file("queue.db"), clock);
  auto error = [&](const GroupSpec& g, std::vector<JobSpec> specs) {
    auto r = q.enqueue_group(g, std::move(specs));
    return r ? std::string("(queued)") : r.error().message;
  };
  CHECK(q.enqueue(shard_spec(1, 2, {"BM_a"})).error().message ==
        "a shard is queued with its suite's other shards (EnqueueGroup)");
  CHECK(error(group_spec(), {shard_spec(1, 2, {"BM_a"})}) == "a shard is queued only in a group of kind shards");
  GroupSpec skipping = shards_group();
  skipping.skip_measured = true;
  CHECK(error(skipping, {shard_spec(1, 2, {"a"}), shard_spec(2, 2, {"b"})}) ==
        "a shards group measures every shard: skip_measured must be off");
  CHECK(error(shards_group(), {shard_spec(1, 2, {"a"})}) == "a shards group holds all 2 shards of its suite, got 1");
  CHECK(error(shards_group(), {shard_spec(1, 2, {"a"}), shard_spec(1, 2, {"b"})}) == "shard 1 is in the group twice");
  JobSpec other = shard_spec(2, 2, {"b"});
  other.suite = "macro";
  CHECK(error(shards_group(), {shard_spec(1, 2, {"a"}), other}) ==
        "a shards group's shards measure one suite of one job alike");
  CHECK(error(shards_group(), {shard_spec(0, 0, {}), shard_spec(1, 2, {"a"})}) == "a shards group holds only shards");
  // Nothing half-made: no group, no job.
  CHECK(q.list(std::nullopt, 100)->empty());
  auto ok = q.enqueue_group(shards_group(), {shard_spec(1, 2, {"a"}), shard_spec(2, 2, {"b"})});
  REQUIRE(ok.ok());
  JobSpec extra = backfill_spec(9);
  extra.group_id = ok->group.id;
  CHECK(q.enqueue(extra).error().message ==
        "job group " + std::to_string(ok->group.id) + " holds a suite's shards and takes no other job");
}
