// Group commit (QueueStore::enqueue_batch) on real SQLite files or
// PostgreSQL (test_location.h): each spec answered as enqueue alone would
// answer it, duplicates inside one batch included.
#include <catch2/catch.hpp>

#include <cstdio>

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
  char text[41];
  std::snprintf(text, sizeof text, "%040x", i);
  return text;
}

JobSpec push(int i, const std::string& delivery) {
  JobSpec s;
  s.kind = JobKind::push;
  s.repository = "octo/widgets";
  s.clone_url = "https://example.invalid/octo/widgets.git";
  s.ref = "refs/heads/main";
  s.head_sha = sha(i);
  s.delivery_id = delivery;
  return s;
}

}  // namespace

TEST_CASE("a batch answers each spec as enqueue alone would", "[queue][batch]") {
  bb::test::TempDir dir;
  FakeClock clock;
  auto q = testdb::open_queue(dir.file("queue.db"), clock);
  GroupSpec g;
  g.kind = GroupKind::backfill;
  g.repository = "octo/widgets";
  g.description = "backfill";
  g.requested_by = "root";
  auto group = q.enqueue_group(g, {push(100, "")});
  REQUIRE(group);
  REQUIRE(group->group.id != 0);

  std::vector<JobSpec> specs;
  specs.push_back(push(1, "d1"));                 // 0: new
  specs.push_back(push(2, "d2"));                 // 1: new
  specs.push_back(push(1, "d3"));                 // 2: the same work as 0, in this batch
  specs.push_back(push(3, "d1"));                 // 3: the same delivery as 0
  JobSpec bad = push(4, "d4");
  bad.head_sha = "not-a-sha";
  specs.push_back(bad);                           // 4: invalid
  JobSpec lost = push(5, "d5");
  lost.group_id = 987654;
  specs.push_back(lost);                          // 5: no such group
  JobSpec elsewhere = push(6, "d6");
  elsewhere.repository = "octo/gadgets";
  elsewhere.clone_url = "https://example.invalid/octo/gadgets.git";
  elsewhere.group_id = group->group.id;
  specs.push_back(elsewhere);                     // 6: another repository's group
  JobSpec keyed = push(7, "d7");
  keyed.replay_key = std::string(64, 'e');
  specs.push_back(keyed);                         // 7: new, remembered by its key
  JobSpec replayed = push(8, "d8");
  replayed.replay_key = keyed.replay_key;
  specs.push_back(replayed);                      // 8: the same body again
  specs.push_back(push(9, "d9"));                 // 9: new, after the refusals

  auto answers = q.enqueue_batch(specs);
  REQUIRE(answers.size() == specs.size());
  for (size_t i : {0, 1, 7, 9}) {
    INFO("spec " << i);
    REQUIRE(answers[i]);
    CHECK(answers[i]->created);
    CHECK(answers[i]->job.spec.head_sha == specs[i].head_sha);
    CHECK(answers[i]->job.state == JobState::queued);
    CHECK(q.get(answers[i]->job.id)->spec.delivery_id == specs[i].delivery_id);
  }
  CHECK(answers[1]->job.id > answers[0]->job.id);
  CHECK(answers[9]->job.id > answers[7]->job.id);
  for (size_t i : {2, 3}) {
    INFO("spec " << i);
    REQUIRE(answers[i]);
    CHECK_FALSE(answers[i]->created);
    CHECK(answers[i]->job.id == answers[0]->job.id);
  }
  REQUIRE(answers[8]);
  CHECK_FALSE(answers[8]->created);
  CHECK(answers[8]->job.id == answers[7]->job.id);
  REQUIRE_FALSE(answers[4]);
  CHECK(answers[4].error().code == Errc::invalid_argument);
  REQUIRE_FALSE(answers[5]);
  CHECK(answers[5].error().code == Errc::not_found);
  CHECK(answers[5].error().message == "no job group 987654");
  REQUIRE_FALSE(answers[6]);
  CHECK(answers[6].error().code == Errc::invalid_argument);
  CHECK(answers[6].error().message.find("measures octo/widgets, not octo/gadgets") != std::string::npos);
  // The group's job and the four new ones, nothing else.
  CHECK(q.counts()->queued == 5);

  // The same specs again, alone: the same answers, nothing new.
  for (size_t i : {0, 2, 3, 7, 8, 9}) {
    auto alone = q.enqueue(specs[i]);
    REQUIRE(alone);
    CHECK_FALSE(alone->created);
    CHECK(alone->job.id == answers[i]->job.id);
  }
  CHECK(q.counts()->queued == 5);
  CHECK(q.enqueue_batch({}).empty());
  auto one = q.enqueue_batch({push(10, "d10")});
  REQUIRE(one.size() == 1);
  REQUIRE(one[0]);
  CHECK(one[0]->created);
}

TEST_CASE("a batch's specs find the jobs made before them in the batch", "[queue][batch]") {
  // No two specs carry one replay key: on PostgreSQL their statements go
  // in one pipeline, and each must still see the rows of those before it.
  bb::test::TempDir dir;
  FakeClock clock;
  auto q = testdb::open_queue(dir.file("queue.db"), clock);
  auto before = q.enqueue(push(50, "d50"));
  REQUIRE(before);
  std::vector<JobSpec> specs;
  for (int i = 0; i < 12; ++i) {
    JobSpec s = push(i % 4 == 3 ? i - 1 : i, "e" + std::to_string(i));  // 3 repeats 2's work, 7 6's, 11 10's
    s.replay_key = std::string(63, 'a') + "0123456789abcdef"[i];
    specs.push_back(s);
  }
  specs[5].delivery_id = "e4";   // 4's delivery again
  specs[8].delivery_id = "d50";  // the delivery of a job from before the batch
  specs[9].head_sha = sha(50);   // the work of that job
  auto answers = q.enqueue_batch(specs);
  REQUIRE(answers.size() == specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    INFO("spec " << i);
    REQUIRE(answers[i]);
  }
  for (size_t i : {0, 1, 2, 4, 6, 10}) {
    INFO("spec " << i);
    CHECK(answers[i]->created);
    CHECK(answers[i]->job.spec.head_sha == specs[i].head_sha);
    CHECK(answers[i]->job.spec.delivery_id == specs[i].delivery_id);
  }
  const std::pair<size_t, int64_t> found[] = {{3, answers[2]->job.id},  {5, answers[4]->job.id},
                                              {7, answers[6]->job.id},  {8, before->job.id},
                                              {9, before->job.id},      {11, answers[10]->job.id}};
  for (auto [i, id] : found) {
    INFO("spec " << i);
    CHECK_FALSE(answers[i]->created);
    CHECK(answers[i]->job.id == id);
  }
  CHECK(q.counts()->queued == 7);
  // Each body is remembered with the job that answered it.
  for (size_t i = 0; i < specs.size(); ++i) {
    INFO("spec " << i);
    JobSpec again = push(900 + static_cast<int>(i), "again-" + std::to_string(i));
    again.replay_key = specs[i].replay_key;
    auto replayed = q.enqueue(again);
    REQUIRE(replayed);
    CHECK_FALSE(replayed->created);
    CHECK(replayed->job.id == answers[i]->job.id);
  }
}

TEST_CASE("a batch the database fails is enqueued spec by spec, losing nothing acknowledged",
          "[queue][batch][errors][sqlite]") {
  bb::test::TempDir dir;
  FakeClock clock;
  const std::string path = dir.file("queue.db");
  std::vector<int64_t> acknowledged;
  size_t refused = 0;
  {
    auto q = testdb::open_queue(path, clock);
    // Room for a few jobs, not for the batch: SQLite answers SQLITE_FULL
    // as on a full disk, inside the batch's transaction.
    auto pages = q.database().prepare("PRAGMA page_count");
    REQUIRE(pages);
    REQUIRE(*pages->step());
    REQUIRE(q.database().exec("PRAGMA max_page_count=" + std::to_string(pages->column_int64(0) + 2)));
    std::vector<JobSpec> specs;
    for (int i = 0; i < 40; ++i) {
      specs.push_back(push(i, "d" + std::to_string(i)));
      specs.back().requested_by = std::string(500, 'x');
    }
    auto answers = q.enqueue_batch(specs);
    REQUIRE(answers.size() == specs.size());
    for (auto& answer : answers) {
      if (answer) {
        CHECK(answer->created);
        acknowledged.push_back(answer->job.id);
      } else {
        CHECK(answer.error().code == Errc::io);
        ++refused;
      }
    }
  }
  // Alone, the first specs fitted; the batch as one would not have.
  CHECK_FALSE(acknowledged.empty());
  CHECK(refused > 0);
  auto q = testdb::open_queue(path, clock);
  auto ids = q.ids();
  REQUIRE(ids);
  CHECK(*ids == acknowledged);
}
