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
