// The outbox: durable across reopening, one row per target, newest Want wins.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>

#include "github_api/outbox.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::github_api;

namespace {

using bb::test::TempDir;

Want run_want(const std::string& status, int64_t job = 42) {
  CheckRunWant w;
  w.repository = "o/r";
  w.head_sha = std::string(40, 'a');
  w.external_id = std::to_string(job);
  w.status = status;
  if (status == "completed") w.conclusion = "success";
  return {check_run_target("o/r", job), w};
}

Outbox open(const std::string& path) {
  auto o = Outbox::open(path);
  REQUIRE(o.ok());
  return std::move(*o);
}

}  // namespace

TEST_CASE("outbox: a put survives closing and reopening the file") {
  TempDir dir;
  const std::string db = dir.path + "/outbox.db";
  {
    Outbox box = open(db);
    REQUIRE(box.put(run_want("queued"), 1000).ok());
  }
  Outbox box = open(db);
  auto due = box.next_due(1000);
  REQUIRE(due.ok());
  REQUIRE(due->has_value());
  CHECK((*due)->want.target == "check-run/o/r/42");
  CHECK(std::get<CheckRunWant>((*due)->want.what).status == "queued");
  CHECK((*due)->version == 1);
  CHECK((*due)->first_queued == 1000);
  CHECK((*due)->attempts == 0);
  auto counts = box.counts();
  REQUIRE(counts.ok());
  CHECK(counts->pending == 1);
  // Not due before its time.
  auto early = box.next_due(999);
  REQUIRE(early.ok());
  CHECK_FALSE(early->has_value());
}

TEST_CASE("outbox: puts to one target coalesce into its newest Want") {
  TempDir dir;
  Outbox box = open(dir.path + "/outbox.db");
  REQUIRE(box.put(run_want("queued"), 1000).ok());
  REQUIRE(box.put(run_want("in_progress"), 1001).ok());
  REQUIRE(box.put(run_want("completed"), 1002).ok());
  REQUIRE(box.put(run_want("queued", 43), 1002).ok());
  auto counts = box.counts();
  REQUIRE(counts.ok());
  CHECK(counts->pending == 2);
  auto due = box.next_due(2000);
  REQUIRE(due.ok());
  REQUIRE(due->has_value());
  CHECK((*due)->want.target == "check-run/o/r/42");
  CHECK((*due)->version == 3);
  CHECK((*due)->first_queued == 1000);  // the oldest unsent Want's time
  CHECK(std::get<CheckRunWant>((*due)->want.what).status == "completed");
}

TEST_CASE("outbox: sent, with a newer Want put meanwhile, stays due; posted() survives") {
  TempDir dir;
  const std::string db = dir.path + "/outbox.db";
  Outbox box = open(db);
  REQUIRE(box.put(run_want("queued"), 1000).ok());
  auto taken = box.next_due(1000);
  REQUIRE(taken.ok());
  REQUIRE(taken->has_value());
  // While v1 is on its way, the job starts.
  REQUIRE(box.put(run_want("in_progress"), 1005).ok());
  REQUIRE(box.sent("check-run/o/r/42", (*taken)->version, PostedObject{555, "https://github.com/o/r/runs/555"}).ok());
  auto due = box.next_due(1006);
  REQUIRE(due.ok());
  REQUIRE(due->has_value());
  CHECK((*due)->version == 2);
  CHECK(std::get<CheckRunWant>((*due)->want.what).status == "in_progress");
  CHECK((*due)->first_queued == 1005);
  REQUIRE(box.sent("check-run/o/r/42", 2, PostedObject{555, ""}).ok());
  due = box.next_due(5000);
  REQUIRE(due.ok());
  CHECK_FALSE(due->has_value());
  auto counts = box.counts();
  REQUIRE(counts.ok());
  CHECK(counts->done == 1);
  CHECK(counts->pending == 0);

  Outbox reopened = open(db);
  auto posted = reopened.posted("check-run/o/r/42");
  REQUIRE(posted.ok());
  REQUIRE(posted->has_value());
  CHECK((*posted)->id == 555);
  CHECK((*posted)->html_url == "https://github.com/o/r/runs/555");  // kept when a reply omits it

  // Done, then wanted again: pending, attempts from zero, the id still known.
  REQUIRE(reopened.put(run_want("completed"), 6000).ok());
  due = reopened.next_due(6000);
  REQUIRE(due.ok());
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 0);
  CHECK((*due)->first_queued == 6000);
  CHECK(reopened.posted("check-run/o/r/42")->has_value());
}

TEST_CASE("outbox: retry waits and counts; drop ends it until the next put") {
  TempDir dir;
  Outbox box = open(dir.path + "/outbox.db");
  const std::string t = "check-run/o/r/42";
  REQUIRE(box.put(run_want("queued"), 1000).ok());
  REQUIRE(box.retry(t, 1030, "HTTP 503", true).ok());
  auto wake = box.next_wakeup();
  REQUIRE(wake.ok());
  REQUIRE(wake->has_value());
  CHECK(**wake == 1030);
  CHECK_FALSE(box.next_due(1029)->has_value());
  auto due = box.next_due(1030);
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 1);
  CHECK((*due)->last_error == "HTTP 503");
  CHECK((*due)->outcome_unknown);
  // A later failure that surely did not reach GitHub keeps the doubt.
  REQUIRE(box.retry(t, 1090, "connect refused", false).ok());
  due = box.next_due(1090);
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 2);
  CHECK((*due)->outcome_unknown);

  // A put while pending keeps attempts and the give-up clock.
  REQUIRE(box.put(run_want("in_progress"), 1100).ok());
  due = box.next_due(1100);
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 2);
  CHECK((*due)->first_queued == 1000);

  REQUIRE(box.drop(t, "HTTP 422: Validation Failed", (*due)->version).ok());
  CHECK_FALSE(box.next_due(99999)->has_value());
  CHECK_FALSE(box.next_wakeup()->has_value());
  CHECK(box.counts()->dropped == 1);
  REQUIRE(box.put(run_want("completed"), 2000).ok());
  due = box.next_due(2000);
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 0);
  CHECK((*due)->first_queued == 2000);

  // A drop of an older version does not drop the newer Want.
  REQUIRE(box.put(run_want("completed"), 2001).ok());
  REQUIRE(box.drop(t, "HTTP 422", (*due)->version).ok());
  due = box.next_due(2001);
  REQUIRE(due->has_value());
  CHECK((*due)->attempts == 0);
}

TEST_CASE("outbox: notes and remembered objects are per target") {
  TempDir dir;
  Outbox box = open(dir.path + "/outbox.db");
  CHECK(box.note("issue/o/r/m", "closing_comment").value().empty());
  REQUIRE(box.set_note("issue/o/r/m", "closing_comment", "posted").ok());
  CHECK(*box.note("issue/o/r/m", "closing_comment") == "posted");
  CHECK(box.note("issue/o/r/other", "closing_comment").value().empty());
  REQUIRE(box.set_note("issue/o/r/m", "closing_comment", "").ok());
  CHECK(box.note("issue/o/r/m", "closing_comment").value().empty());

  REQUIRE(box.remember("issue/o/r/m", PostedObject{3, "https://github.com/o/r/issues/3"}).ok());
  CHECK(box.posted("issue/o/r/m")->value().id == 3);
  REQUIRE(box.forget("issue/o/r/m").ok());
  CHECK_FALSE(box.posted("issue/o/r/m")->has_value());
}

TEST_CASE("outbox: a file that is not a database is refused clearly") {
  TempDir dir;
  const std::string db = dir.path + "/outbox.db";
  FILE* f = fopen(db.c_str(), "w");
  REQUIRE(f);
  fputs("this is not sqlite, just some text that is long enough to be a header........................\n", f);
  fclose(f);
  auto o = Outbox::open(db);
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().message.find(db) != std::string::npos);
}
