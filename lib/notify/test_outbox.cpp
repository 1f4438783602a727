// The notifications outbox: one row per (repository, destination, event),
// durable across reopening, an event put twice told once, and each
// delivery's answer judged under the GitHub poster's retry policy.
#include <catch2/catch.hpp>

#include "notify/outbox.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::notify;

namespace {

using bb::test::TempDir;

Notification confirmed(const std::string& id = "regression_confirmed:o/r:refs/heads/main:42") {
  Notification n;
  n.event = "regression_confirmed";
  n.id = id;
  n.repository = "o/r";
  n.time = 1796515200;
  n.title = "parse/json is 12.1% slower on main";
  n.summary = "first seen at 4f1c2b3";
  n.url = "http://127.0.0.1/o/r/runs/42.html";
  n.details = {{"benchmark", "parse/json"}, {"change", 0.121}};
  return n;
}

Outbox open_outbox(const std::string& path) {
  auto o = Outbox::open(path);
  REQUIRE(o.ok());
  return std::move(*o);
}

OutboxItem due(Outbox& box, int64_t now) {
  auto d = box.next_due(now);
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  return **d;
}

bool nothing_due(Outbox& box, int64_t now) {
  auto d = box.next_due(now);
  REQUIRE(d.ok());
  return !d->has_value();
}

github_api::RetryPolicy policy() {
  github_api::RetryPolicy p;
  p.retry_seconds = 30;
  p.retry_max_seconds = 3600;
  p.give_up_seconds = 86400;
  return p;
}

}  // namespace

TEST_CASE("notify outbox: a put survives reopening and comes back whole") {
  TempDir dir;
  const std::string db = dir.path + "/notify-outbox.db";
  {
    Outbox box = open_outbox(db);
    auto put = box.put("o/r", "hook", confirmed(), 1000);
    REQUIRE(put.ok());
    CHECK(*put);
  }
  Outbox box = open_outbox(db);
  CHECK(nothing_due(box, 999));
  OutboxItem item = due(box, 1000);
  CHECK(item.key == "o/r/hook/regression_confirmed:o/r:refs/heads/main:42");
  CHECK(item.key == item_key("o/r", "hook", confirmed().id));
  CHECK(item.repository == "o/r");
  CHECK(item.destination == "hook");
  CHECK(item.notification.event == "regression_confirmed");
  CHECK(item.notification.title == confirmed().title);
  CHECK(item.notification.summary == confirmed().summary);
  CHECK(item.notification.url == confirmed().url);
  CHECK(item.notification.time == confirmed().time);
  CHECK(item.notification.details == confirmed().details);
  CHECK(item.first_queued == 1000);
  CHECK(item.attempts == 0);
  CHECK_FALSE(item.maybe_sent);
}

TEST_CASE("notify outbox: an event is put once per destination, whatever its state") {
  TempDir dir;
  Outbox box = open_outbox(dir.path + "/n.db");
  REQUIRE(*box.put("o/r", "hook", confirmed(), 1000));
  REQUIRE(*box.put("o/r", "mail", confirmed(), 1000));  // another destination: its own row
  auto again = box.put("o/r", "hook", confirmed(), 1001);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
  const std::string key = item_key("o/r", "hook", confirmed().id);
  REQUIRE(box.delivered(key).ok());
  CHECK(*box.state(key) == "delivered");
  // Raised again after delivery (a reporter restarted): still once.
  CHECK_FALSE(*box.put("o/r", "hook", confirmed(), 2000));
  CHECK(*box.state(key) == "delivered");
  auto counts = box.counts();
  REQUIRE(counts.ok());
  CHECK(counts->pending == 1);
  CHECK(counts->delivered == 1);
  CHECK(*box.state("o/r/nowhere/x") == "");
}

TEST_CASE("notify outbox: a bad notification is refused, not stored") {
  TempDir dir;
  Outbox box = open_outbox(dir.path + "/n.db");
  Notification n = confirmed();
  n.event = "regression_maybe";
  auto put = box.put("o/r", "hook", n, 1000);
  REQUIRE_FALSE(put.ok());
  CHECK(put.error().message.find("regression_maybe") != std::string::npos);
  CHECK(nothing_due(box, 1000));
}

TEST_CASE("notify outbox: retries back off as GitHub's do, then give up") {
  TempDir dir;
  Outbox box = open_outbox(dir.path + "/n.db");
  REQUIRE(*box.put("o/r", "hook", confirmed(), 1000));
  Delivery busy{Delivery::Kind::retry, 503, "HTTP 503: busy", true};

  OutboxItem item = due(box, 1000);
  Recorded r = judge(item, busy, 1000, policy());
  CHECK(r.kind == Delivery::Kind::retry);
  CHECK(r.retry_at == 1030);
  REQUIRE(record(box, item, r).ok());
  CHECK(nothing_due(box, 1029));

  item = due(box, 1030);
  CHECK(item.attempts == 1);
  CHECK(item.maybe_sent);  // the 503's request went out
  CHECK(item.last_error == "HTTP 503: busy");
  r = judge(item, Delivery{Delivery::Kind::retry, 0, "connection refused", false}, 1030, policy());
  CHECK(r.retry_at == 1030 + 60);
  REQUIRE(record(box, item, r).ok());
  item = due(box, 1090);
  CHECK(item.maybe_sent);  // an earlier attempt's doubt stays

  // A day later it still fails: dropped, saying why.
  r = judge(item, busy, 1000 + 86401, policy());
  CHECK(r.kind == Delivery::Kind::drop);
  CHECK(r.error.find("gave up after 86401 s") != std::string::npos);
  CHECK(r.error.find("HTTP 503: busy") != std::string::npos);
  REQUIRE(record(box, item, r).ok());
  CHECK(*box.state(item.key) == "dropped");
  CHECK(nothing_due(box, 1000 + 10 * 86400));
}

TEST_CASE("notify outbox: refused for good is dropped at once; delivered is done") {
  TempDir dir;
  Outbox box = open_outbox(dir.path + "/n.db");
  REQUIRE(*box.put("o/r", "hook", confirmed("a"), 1000));
  REQUIRE(*box.put("o/r", "hook", confirmed("b"), 1001));
  OutboxItem a = due(box, 2000);
  CHECK(a.notification.id == "a");  // the earliest first
  REQUIRE(record(box, a, judge(a, Delivery{Delivery::Kind::drop, 404, "HTTP 404: no such hook", false}, 2000,
                               policy()))
              .ok());
  OutboxItem b = due(box, 2000);
  CHECK(b.notification.id == "b");
  REQUIRE(record(box, b, judge(b, Delivery{}, 2000, policy())).ok());
  CHECK(nothing_due(box, 9999));
  auto wake = box.next_wakeup();
  REQUIRE(wake.ok());
  CHECK_FALSE(wake->has_value());
  auto counts = box.counts();
  REQUIRE(counts.ok());
  CHECK(counts->dropped == 1);
  CHECK(counts->delivered == 1);
  CHECK(counts->pending == 0);
}

TEST_CASE("notify outbox: the next wakeup is the earliest pending attempt") {
  TempDir dir;
  Outbox box = open_outbox(dir.path + "/n.db");
  REQUIRE(*box.put("o/r", "hook", confirmed("a"), 1000));
  OutboxItem a = due(box, 1000);
  REQUIRE(box.retry(a.key, 5000, "busy", false).ok());
  REQUIRE(*box.put("o/r", "hook", confirmed("b"), 3000));
  auto wake = box.next_wakeup();
  REQUIRE(wake.ok());
  REQUIRE(wake->has_value());
  CHECK(**wake == 3000);
}
