// The sender against FakeGitHub (real HTTP on 127.0.0.1), time from a FakeClock.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <memory>

#include "github_api/fake_github.h"
#include "util/test_tempdir.h"
#include "github_api/sender.h"

using namespace bb;
using namespace bb::github_api;
using nlohmann::json;

namespace {

const std::string kSha = std::string(40, 'c');

using bb::test::TempDir;

// One reporterd's worth of posting: an outbox file, a client, a sender.
// reopen() models a restart (or, with a new file, a lost outbox.db).
struct Rig {
  TempDir dir;
  FakeGitHub gh{"", {}};
  FakeClock clock;
  RetryPolicy policy{30, 3600, 86400};
  std::string db = dir.path + "/outbox.db";
  std::unique_ptr<Outbox> box;
  std::unique_ptr<Client> client;
  std::unique_ptr<Sender> sender;

  Rig() {
    gh.accept_token("ghp_test");
    reopen(db);
  }
  void reopen(const std::string& path) {
    sender.reset();
    client.reset();
    box.reset();
    auto o = Outbox::open(path);
    REQUIRE(o.ok());
    box = std::make_unique<Outbox>(std::move(*o));
    client = std::make_unique<Client>(gh.url(), Credentials{Credentials::Mode::token, 0, "", "ghp_test"}, clock);
    client->set_timeout_ms(5000);
    sender = std::make_unique<Sender>(*client, *box, clock, policy);
  }
  void put(const Want& w) { REQUIRE(box->put(w, clock.now_unix()).ok()); }
  // Sends the item due now, if any, and records what happened.
  std::optional<SendOutcome> step() {
    auto item = box->next_due(clock.now_unix());
    REQUIRE(item.ok());
    if (!item->has_value()) return std::nullopt;
    SendOutcome out = sender->send(**item);
    REQUIRE(record(*box, **item, out).ok());
    return out;
  }
  SendOutcome step_done() {
    auto out = step();
    REQUIRE(out.has_value());
    INFO(out->error);
    REQUIRE(out->kind == SendOutcome::Kind::done);
    return *out;
  }
  int count(const std::string& method, const std::string& part) {
    int n = 0;
    for (const auto& r : gh.requests()) n += r.method == method && r.path.find(part) != std::string::npos;
    return n;
  }
};

Want sent_run_want(const std::string& status, int64_t job = 42) {
  CheckRunWant w;
  w.repository = "o/r";
  w.head_sha = kSha;
  w.external_id = std::to_string(job);
  w.status = status;
  w.title = "benchbox: " + status;
  w.summary = "summary while " + status;
  if (status == "completed") {
    w.conclusion = "success";
    w.completed_at = 1700000100;
  }
  w.started_at = 1700000000;
  return {check_run_target("o/r", job), w};
}

Want comment_want(const std::string& body, bool create = true, int64_t pr = 7) {
  return {comment_target("o/r", pr), CommentWant{"o/r", pr, body, create}};
}

Want issue_want(bool open, const std::string& body, const std::string& closing = "") {
  IssueWant w{"o/r", "regression:refs/heads/main:42", "Performance regression", body, {"performance"}, open, closing};
  return {issue_target("o/r", w.marker), w};
}

}  // namespace

TEST_CASE("sender: a check run queued, in progress, completed is one run, created once and PATCHed twice") {
  Rig rig;
  rig.put(sent_run_want("queued"));
  SendOutcome created = rig.step_done();
  CHECK(created.action == "created");
  CHECK(created.object.id > 0);
  CHECK(created.object.html_url == "https://github.com/o/r/runs/" + std::to_string(created.object.id));
  rig.put(sent_run_want("in_progress"));
  CHECK(rig.step_done().action == "updated");
  rig.put(sent_run_want("completed"));
  SendOutcome last = rig.step_done();
  CHECK(last.object.id == created.object.id);
  CHECK_FALSE(rig.step().has_value());

  auto runs = rig.gh.check_runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["status"] == "completed");
  CHECK(runs[0]["conclusion"] == "success");
  CHECK(runs[0]["external_id"] == "42");
  CHECK(runs[0]["started_at"] == "2023-11-14T22:13:20Z");
  CHECK(runs[0]["completed_at"] == "2023-11-14T22:15:00Z");
  CHECK(runs[0]["output"]["summary"] == "summary while completed");
  CHECK(rig.count("POST", "/check-runs") == 1);
  CHECK(rig.count("PATCH", "/repos/o/r/check-runs/" + std::to_string(created.object.id)) == 2);
  for (const auto& r : rig.gh.requests()) {
    if (r.method != "PATCH") continue;
    CHECK(json::parse(r.body).count("head_sha") == 0);
    CHECK(r.authorization == "Bearer ghp_test");
  }
  // queued carries no conclusion.
  CHECK(json::parse(rig.gh.requests().front().body).count("conclusion") == 0);

  SECTION("wants put while nothing was sent coalesce: one POST, completed") {
    rig.put(sent_run_want("queued", 43));
    rig.put(sent_run_want("in_progress", 43));
    rig.put(sent_run_want("completed", 43));
    rig.step_done();
    CHECK(rig.gh.check_runs().size() == 2);
    CHECK(rig.gh.check_runs()[1]["status"] == "completed");
    CHECK(rig.count("POST", "/check-runs") == 2);
  }
}

TEST_CASE("sender: a create whose reply was lost finds the run by external_id instead of making another") {
  Rig rig;
  rig.put(sent_run_want("queued", 9));  // someone else's run on the same commit and name
  rig.step_done();
  rig.gh.lose_next_reply(1, "POST /repos/o/r/check-runs");
  rig.put(sent_run_want("queued"));
  auto lost = rig.step();
  REQUIRE(lost.has_value());
  CHECK(lost->kind == SendOutcome::Kind::retry);
  CHECK(lost->outcome_unknown);
  REQUIRE(rig.gh.check_runs().size() == 2);  // GitHub did make it

  rig.put(sent_run_want("in_progress"));
  rig.clock.advance_seconds(30);
  SendOutcome found = rig.step_done();
  CHECK(found.action == "updated");
  auto runs = rig.gh.check_runs();
  REQUIRE(runs.size() == 2);
  CHECK(found.object.id == runs[1]["id"]);
  CHECK(runs[1]["status"] == "in_progress");
  CHECK(runs[0]["status"] == "queued");  // the other job's run untouched
  CHECK(rig.count("GET", "/repos/o/r/commits/" + kSha + "/check-runs?check_name=benchbox") == 1);
  auto posted = rig.box->posted(check_run_target("o/r", 42));
  REQUIRE(posted.ok());
  REQUIRE(posted->has_value());
  CHECK((*posted)->id == found.object.id);
}

TEST_CASE("sender: a create cut short by reporterd's death is found after the restart, never made twice") {
  // SIGKILL after GitHub made the run, before the outcome was recorded:
  // send() runs, record() never does. Only the doubt written before the
  // POST tells the next reporterd to look first.
  Rig rig;
  rig.gh.lose_next_reply(1, "POST /repos/o/r/check-runs");
  rig.put(sent_run_want("queued"));
  auto item = rig.box->next_due(rig.clock.now_unix());
  REQUIRE(item.ok());
  REQUIRE(item->has_value());
  CHECK_FALSE((*item)->outcome_unknown);
  rig.sender->send(**item);
  REQUIRE(rig.gh.check_runs().size() == 1);  // GitHub made it

  rig.reopen(rig.db);
  rig.put(sent_run_want("in_progress"));
  CHECK(rig.step_done().action == "updated");
  REQUIRE(rig.gh.check_runs().size() == 1);
  CHECK(rig.gh.check_runs()[0]["status"] == "in_progress");
  CHECK(rig.count("POST", "/check-runs") == 1);

  // Once sent, the doubt is gone: the next change is a plain PATCH.
  rig.put(sent_run_want("completed"));
  CHECK(rig.step_done().action == "updated");
  CHECK(rig.count("GET", "/check-runs?check_name=") == 1);
}

TEST_CASE("sender: a create GitHub did but answered 502 or 504 is found, never made twice") {
  Rig rig;
  // A check run: found by its external_id.
  rig.gh.effect_then_fail(1, 502, "POST /repos/o/r/check-runs");
  rig.put(sent_run_want("queued"));
  auto first = rig.step();
  REQUIRE(first.has_value());
  CHECK(first->kind == SendOutcome::Kind::retry);
  CHECK(first->outcome_unknown);
  REQUIRE(rig.gh.check_runs().size() == 1);  // GitHub made it
  rig.clock.advance_seconds(60);
  CHECK(rig.step_done().action == "updated");
  CHECK(rig.gh.check_runs().size() == 1);

  // The sticky comment: found by its marker.
  rig.gh.effect_then_fail(1, 504, "POST /repos/o/r/issues/7/comments");
  rig.put(comment_want("first report"));
  CHECK(rig.step()->kind == SendOutcome::Kind::retry);
  rig.clock.advance_seconds(60);
  CHECK(rig.step_done().action == "updated");
  CHECK(rig.gh.comments("o/r", 7).size() == 1);

  // An issue: found by its tag.
  rig.gh.effect_then_fail(1, 502, "POST /repos/o/r/issues");
  rig.put(issue_want(true, "slower by 20%"));
  CHECK(rig.step()->kind == SendOutcome::Kind::retry);
  rig.clock.advance_seconds(60);
  CHECK(rig.step_done().action == "updated");
  REQUIRE(rig.gh.issues().size() == 1);

  // Its closing comment: found by the nonce it carries; said once.
  rig.gh.effect_then_fail(1, 502, "POST /repos/o/r/issues/1/comments");
  rig.put(issue_want(false, "fixed", "Fixed by abc123."));
  CHECK(rig.step()->kind == SendOutcome::Kind::retry);
  REQUIRE(rig.gh.comments("o/r", 1).size() == 1);
  rig.clock.advance_seconds(60);
  rig.step_done();
  CHECK(rig.gh.comments("o/r", 1).size() == 1);
  CHECK(rig.gh.issues()[0]["state"] == "closed");

  // And a closing comment whose POST did not take effect is still said.
  rig.put(issue_want(true, "slower again"));
  rig.step_done();
  rig.gh.fail_next(1, 502, {}, nullptr, "POST /repos/o/r/issues/1/comments");
  rig.put(issue_want(false, "fixed again", "Fixed again."));
  CHECK(rig.step()->kind == SendOutcome::Kind::retry);
  CHECK(rig.gh.comments("o/r", 1).size() == 1);
  rig.clock.advance_seconds(60);
  rig.step_done();
  REQUIRE(rig.gh.comments("o/r", 1).size() == 2);
  CHECK(rig.gh.comments("o/r", 1)[1]["body"].get<std::string>().rfind("Fixed again.", 0) == 0);
}

TEST_CASE("sender: the sticky comment is edited in place, found by its marker when its id is lost") {
  Rig rig;
  for (int i = 0; i < 120; ++i) rig.gh.add_comment("o/r", 7, "lgtm " + std::to_string(i));
  rig.put(comment_want("first report"));
  SendOutcome made = rig.step_done();
  CHECK(made.action == "created");
  REQUIRE(rig.gh.comments("o/r", 7).size() == 121);
  CHECK(rig.gh.comments("o/r", 7).back()["body"] == std::string(kStickyMarker) + "\nfirst report");
  CHECK(made.object.html_url.find("#issuecomment-") != std::string::npos);

  rig.put(comment_want("second report"));
  CHECK(rig.step_done().action == "updated");
  CHECK(rig.count("GET", "/comments") == 2);  // the first search only

  // outbox.db lost: found again by the marker (two pages), edited in place.
  rig.reopen(rig.dir.path + "/fresh.db");
  rig.put(comment_want("third report"));
  SendOutcome again = rig.step_done();
  CHECK(again.action == "updated");
  CHECK(again.object.id == made.object.id);
  auto comments = rig.gh.comments("o/r", 7);
  REQUIRE(comments.size() == 121);
  CHECK(comments.back()["body"] == std::string(kStickyMarker) + "\nthird report");
  CHECK(rig.count("POST", "/issues/7/comments") == 1);

  SECTION("create=false edits one that exists") {
    rig.put(comment_want("nothing new", false));
    rig.step_done();
    CHECK(rig.gh.comments("o/r", 7).back()["body"] == std::string(kStickyMarker) + "\nnothing new");
  }
  SECTION("a deleted comment is made again") {
    rig.gh.delete_comment(made.object.id);
    rig.put(comment_want("after deletion"));
    SendOutcome remade = rig.step_done();
    CHECK(remade.action == "created");
    CHECK(remade.object.id != made.object.id);
    CHECK(rig.gh.comments("o/r", 7).size() == 121);
  }
}

TEST_CASE("sender: create=false posts nothing when there is no comment") {
  Rig rig;
  rig.gh.add_comment("o/r", 8, "someone else");
  rig.put(comment_want("all quiet", false, 8));
  SendOutcome out = rig.step_done();
  CHECK(out.action.empty());
  CHECK(out.object.id == 0);
  CHECK(rig.gh.comments("o/r", 8).size() == 1);
  CHECK(rig.count("POST", "") == 0);
  CHECK(rig.box->counts()->done == 1);
}

TEST_CASE("sender: an issue is created once, updated in place, closed with one comment, found by marker") {
  Rig rig;
  rig.put(issue_want(true, "slower by 20%"));
  SendOutcome made = rig.step_done();
  CHECK(made.action == "created");
  CHECK(made.object.id == 1);
  CHECK(made.object.html_url == "https://github.com/o/r/issues/1");
  auto issues = rig.gh.issues();
  REQUIRE(issues.size() == 1);
  CHECK(issues[0]["labels"][0]["name"] == "performance");
  const std::string tag = "<!-- benchbox:issue:regression:refs/heads/main:42 -->";
  CHECK(issues[0]["body"] == "slower by 20%\n\n" + tag);

  rig.put(issue_want(true, "slower by 25%"));
  CHECK(rig.step_done().action == "updated");
  REQUIRE(rig.gh.issues().size() == 1);
  CHECK(rig.gh.issues()[0]["body"] == "slower by 25%\n\n" + tag);

  // Closing: the comment first, then the close; a failed close is retried
  // without saying it twice.
  rig.gh.fail_next(1, 502, {}, nullptr, "PATCH /repos/o/r/issues/1");
  rig.put(issue_want(false, "fixed", "Fixed by abc123."));
  auto failed = rig.step();
  REQUIRE(failed.has_value());
  CHECK(failed->kind == SendOutcome::Kind::retry);
  CHECK(rig.gh.comments("o/r", 1).size() == 1);
  CHECK(rig.gh.issues()[0]["state"] == "open");
  rig.clock.advance_seconds(30);
  rig.step_done();
  CHECK(rig.gh.issues()[0]["state"] == "closed");
  REQUIRE(rig.gh.comments("o/r", 1).size() == 1);
  CHECK(rig.gh.comments("o/r", 1)[0]["body"].get<std::string>().rfind("Fixed by abc123.\n\n<!-- benchbox:closing:", 0) == 0);
  size_t comment_at = 0, close_at = 0;
  auto requests = rig.gh.requests();
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].method == "POST" && requests[i].path == "/repos/o/r/issues/1/comments") comment_at = i;
    if (requests[i].method == "PATCH" && requests[i].status == 200 && requests[i].body.find("closed") != std::string::npos)
      close_at = i;
  }
  CHECK(comment_at > 0);
  CHECK(comment_at < close_at);

  // outbox.db lost: found by its marker (listed by label), no second
  // issue, no second closing comment on an issue already closed.
  rig.gh.clear_requests();
  rig.reopen(rig.dir.path + "/fresh.db");
  rig.put(issue_want(false, "fixed, still", "Fixed by abc123."));
  CHECK(rig.step_done().object.id == 1);
  CHECK(rig.gh.issues().size() == 1);
  CHECK(rig.gh.comments("o/r", 1).size() == 1);
  CHECK(rig.count("GET", "/repos/o/r/issues?state=all&per_page=100&labels=performance&page=1") == 1);

  // Regressed again: re-opened in place; a later close says so again.
  rig.put(issue_want(true, "slower again"));
  rig.step_done();
  CHECK(rig.gh.issues()[0]["state"] == "open");
  rig.put(issue_want(false, "fixed again", "Fixed again."));
  rig.step_done();
  CHECK(rig.gh.issues()[0]["state"] == "closed");
  CHECK(rig.gh.comments("o/r", 1).size() == 2);
  CHECK(rig.gh.issues().size() == 1);
}

TEST_CASE("sender: any marker is found again, even one with '--' or '>' (a ref may hold them)") {
  Rig rig;
  Want w = issue_want(true, "slower");
  std::get<IssueWant>(w.what).marker = "regression:refs/heads/fix--it->now%:7";
  w.target = issue_target("o/r", "regression:refs/heads/fix--it->now%:7");
  rig.put(w);
  rig.step_done();
  const std::string body = rig.gh.issues()[0]["body"];
  CHECK(body.find("<!-- benchbox:issue:regression:refs/heads/fix%2D%2Dit%2D%3Enow%25:7 -->") != std::string::npos);
  rig.reopen(rig.dir.path + "/fresh.db");
  rig.put(w);
  CHECK(rig.step_done().action == "updated");
  CHECK(rig.gh.issues().size() == 1);
}

TEST_CASE("sender: closing an issue that never existed posts nothing") {
  Rig rig;
  rig.put(issue_want(false, "gone", "Fixed."));
  SendOutcome out = rig.step_done();
  CHECK(out.object.id == 0);
  CHECK(rig.gh.issues().empty());
  CHECK(rig.count("POST", "") == 0);
}

TEST_CASE("sender: an outage is retried with backoff, across a restart, then posted once") {
  Rig rig;
  rig.gh.set_outage(true);
  rig.put(sent_run_want("completed"));
  auto first = rig.step();
  REQUIRE(first.has_value());
  CHECK(first->kind == SendOutcome::Kind::retry);
  CHECK(first->retry_at == rig.clock.now_unix() + 30);
  CHECK(first->error.find("HTTP 503") != std::string::npos);
  rig.clock.advance_seconds(30);
  auto second = rig.step();
  REQUIRE(second.has_value());
  CHECK(second->retry_at == rig.clock.now_unix() + 60);

  // reporterd restarts; GitHub comes back.
  rig.reopen(rig.db);
  rig.gh.set_outage(false);
  CHECK_FALSE(rig.step().has_value());  // still waiting out the backoff
  auto wake = rig.box->next_wakeup();
  REQUIRE(wake.ok());
  CHECK(**wake == rig.clock.now_unix() + 60);
  rig.clock.advance_seconds(60);
  CHECK(rig.step_done().action == "created");
  CHECK(rig.gh.check_runs().size() == 1);
  CHECK(rig.box->counts()->done == 1);
}

TEST_CASE("sender: an item failing past give_up_seconds is dropped") {
  Rig rig;
  rig.gh.set_outage(true, 500);
  rig.put(comment_want("report"));
  CHECK(rig.step()->kind == SendOutcome::Kind::retry);
  rig.clock.advance_seconds(86400 + 10);
  auto out = rig.step();
  REQUIRE(out.has_value());
  CHECK(out->kind == SendOutcome::Kind::drop);
  CHECK(out->error.find("gave up after") != std::string::npos);
  CHECK(rig.box->counts()->dropped == 1);
}

TEST_CASE("sender: the primary rate limit pauses all sending until its reset") {
  Rig rig;
  const int64_t reset = rig.clock.now_unix() + 600;
  rig.gh.fail_next(1, 403, {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", std::to_string(reset)}},
                   {{"message", "API rate limit exceeded for installation ID 42."}});
  rig.put(sent_run_want("queued"));
  rig.put(comment_want("report"));
  auto limited = rig.step();
  REQUIRE(limited.has_value());
  CHECK(limited->kind == SendOutcome::Kind::retry);
  CHECK(limited->retry_at == reset);
  CHECK(limited->pause_until == reset);
  CHECK(rig.sender->paused_until() == reset);
  // The other item is due, but nothing may go out: no request is made.
  const size_t before = rig.gh.requests().size();
  auto held = rig.step();
  REQUIRE(held.has_value());
  CHECK(held->kind == SendOutcome::Kind::retry);
  CHECK(held->retry_at == reset);
  CHECK(rig.gh.requests().size() == before);

  rig.clock.advance_seconds(600);
  rig.step_done();
  rig.step_done();
  CHECK(rig.gh.check_runs().size() == 1);
  CHECK(rig.gh.comments("o/r", 7).size() == 1);
}

TEST_CASE("sender: a successful reply that used the last request pauses what follows") {
  Rig rig;
  const int64_t reset = rig.clock.now_unix() + 300;
  rig.gh.set_reply_headers({{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", std::to_string(reset)}});
  rig.put(sent_run_want("queued"));
  SendOutcome out = rig.step_done();
  CHECK(out.pause_until == reset);
  CHECK(rig.sender->paused_until() == reset);
}

TEST_CASE("sender: a secondary rate limit honours Retry-After") {
  Rig rig;
  rig.gh.fail_next(1, 403, {{"Retry-After", "120"}},
                   {{"message", "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                                "try again."}});
  rig.put(issue_want(true, "slower"));
  auto out = rig.step();
  REQUIRE(out.has_value());
  CHECK(out->kind == SendOutcome::Kind::retry);
  CHECK(out->retry_at == rig.clock.now_unix() + 120);
  CHECK(rig.sender->paused_until() == rig.clock.now_unix() + 120);
  rig.clock.advance_seconds(119);
  CHECK_FALSE(rig.step().has_value());
  rig.clock.advance_seconds(1);
  CHECK(rig.step_done().action == "created");
}

TEST_CASE("sender: GitHub's refusal (422) is dropped with its message") {
  Rig rig;
  Want bad = sent_run_want("completed");
  std::get<CheckRunWant>(bad.what).conclusion = "";  // completed needs a conclusion
  rig.put(bad);
  auto out = rig.step();
  REQUIRE(out.has_value());
  CHECK(out->kind == SendOutcome::Kind::drop);
  CHECK(out->error.find("HTTP 422") != std::string::npos);
  CHECK(out->error.find("conclusion") != std::string::npos);

  Want untitled = issue_want(true, "body");
  std::get<IssueWant>(untitled.what).title = "";
  rig.put(untitled);
  out = rig.step();
  REQUIRE(out.has_value());
  CHECK(out->kind == SendOutcome::Kind::drop);
  CHECK(out->error.find("Validation Failed") != std::string::npos);
  CHECK(out->error.find("missing_field") != std::string::npos);
  CHECK(rig.box->counts()->dropped == 2);
  CHECK_FALSE(rig.step().has_value());
}

TEST_CASE("sender: a rejected plain token is retried, and works once the operator fixes it") {
  Rig rig;
  rig.gh.accept_token("ghp_rotated");
  rig.put(sent_run_want("queued"));
  auto out = rig.step();
  REQUIRE(out.has_value());
  CHECK(out->kind == SendOutcome::Kind::retry);
  CHECK(out->error.find("Bad credentials") != std::string::npos);
  rig.gh.accept_token("ghp_test");
  rig.clock.advance_seconds(30);
  rig.step_done();
}

TEST_CASE("sender: texts over GitHub's limits are cut on a character boundary and stay valid JSON") {
  Rig rig;
  const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD: what a cut character would become
  // µ is 2 bytes, 😀 4: with a prefix of 0..5 bytes every limit falls at
  // every position inside a character once.
  for (int offset = 0; offset < 6; ++offset) {
    INFO("offset " << offset);
    std::string huge(static_cast<size_t>(offset), 'a');
    while (huge.size() < 70000) huge += "µ😀";
    Want w = sent_run_want("completed", 100 + offset);
    auto& run = std::get<CheckRunWant>(w.what);
    run.summary = huge;
    run.text = huge;
    run.title = huge;
    rig.put(w);
    rig.step_done();
    const json output = rig.gh.check_runs().back()["output"];
    for (const char* field : {"summary", "text", "title"}) {
      INFO(field);
      const std::string got = output[field];
      const size_t limit = std::string(field) == "title" ? kMaxTitle : kMaxSummary;
      CHECK(got.size() <= limit);
      CHECK(got.size() > limit - 4);
      CHECK(huge.compare(0, got.size(), got) == 0);  // a prefix, no replacement character
      CHECK(got.find(replacement) == std::string::npos);
    }

    rig.put(comment_want(huge, true, 200 + offset));
    rig.step_done();
    const std::string body = rig.gh.comments("o/r", 200 + offset)[0]["body"];
    CHECK(body.size() <= kMaxBody);
    CHECK(body.size() > kMaxBody - 4);
    CHECK(body.rfind(kStickyMarker, 0) == 0);
    CHECK(body.find(replacement) == std::string::npos);

    Want issue = issue_want(true, huge);
    std::get<IssueWant>(issue.what).marker = "cut:" + std::to_string(offset);
    issue.target = issue_target("o/r", "cut:" + std::to_string(offset));
    rig.put(issue);
    rig.step_done();
    const std::string issue_body = rig.gh.issues().back()["body"];
    CHECK(issue_body.size() <= kMaxBody);
    CHECK(issue_body.find(replacement) == std::string::npos);
    // The marker survives the cut: the issue can be found again.
    CHECK(issue_body.find("<!-- benchbox:issue:cut:" + std::to_string(offset) + " -->") != std::string::npos);
  }
  CHECK(rig.gh.check_runs().size() == 6);
  CHECK(rig.gh.issues().size() == 6);
}
