#include <catch2/catch.hpp>

#include "github/policy.h"
#include "test_fixtures.h"

using namespace bb::github;
using bb::github::test::fixture;
using bb::github::test::fixture_json;
using Action = Decision::Action;

namespace {

bb::config::ApplianceConfig make_config() {
  auto c = bb::config::parse_appliance_config(R"(
repositories:
  - name: octo-org/widget
    clone_url: /srv/git/widget.git
    branches: [main, "release/*"]
    tags: ["v*"]
    blessers: [alice, Carol]
    suite: micro
)", "test.yml");
  REQUIRE(c);
  return *c;
}

Decision decide_fixture(const std::string& event, const nlohmann::json& body,
                        const bb::config::ApplianceConfig& c = make_config()) {
  auto e = parse_event(event, body.dump());
  REQUIRE(e);
  auto d = decide(c, *e, "delivery-1");
  INFO((d ? std::string() : d.error().message));
  REQUIRE(d);
  return *d;
}

Decision decide_file(const std::string& event, const std::string& file) {
  return decide_fixture(event, fixture_json(file));
}

}  // namespace

TEST_CASE("ping pongs") { CHECK(decide_file("ping", "ping.json").action == Action::pong); }

TEST_CASE("push to an allowed branch enqueues a push job") {
  auto d = decide_file("push", "push_branch.json");
  REQUIRE(d.action == Action::enqueue);
  CHECK(d.job.kind == bb::model::JobKind::push);
  CHECK(d.job.delivery_id == "delivery-1");
  CHECK(d.job.repository == "octo-org/widget");
  CHECK(d.job.clone_url == "/srv/git/widget.git");  // the config's, not the payload's
  CHECK(d.job.ref == "refs/heads/main");
  CHECK(d.job.head_sha == "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c");
  CHECK(d.job.suite == "micro");
  CHECK(d.job.requested_by == "alice");
  // The branch's previous head, to be measured beside it (push_baseline).
  CHECK(d.job.base_sha == "6113728f27ae82c7b1a177c8d03f9e96e0adf246");
  CHECK_FALSE(d.record);
}

TEST_CASE("a push that creates its branch has no previous head to measure beside it") {
  auto j = fixture_json("push_branch.json");
  j["before"] = std::string(40, '0');
  auto d = decide_fixture("push", j);
  REQUIRE(d.action == Action::enqueue);
  CHECK(d.job.base_sha.empty());
  // A tag's push is measured alone, whatever its `before`.
  auto t = decide_file("push", "push_tag.json");
  REQUIRE(t.action == Action::enqueue);
  CHECK(t.job.base_sha.empty());
}

TEST_CASE("push to a branch matching a glob enqueues; other branches are ignored") {
  auto j = fixture_json("push_branch.json");
  j["ref"] = "refs/heads/release/2.0";
  CHECK(decide_fixture("push", j).action == Action::enqueue);
  j["ref"] = "refs/heads/feature";
  auto d = decide_fixture("push", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "branch 'feature' is not among the branches watched in octo-org/widget");
}

TEST_CASE("tag push matching the glob enqueues a tag job; others are ignored") {
  auto d = decide_file("push", "push_tag.json");
  REQUIRE(d.action == Action::enqueue);
  CHECK(d.job.kind == bb::model::JobKind::tag);
  CHECK(d.job.ref == "refs/tags/v1.2.0");
  CHECK(d.job.head_sha == "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c");

  auto j = fixture_json("push_tag.json");
  j["ref"] = "refs/tags/nightly-2024";
  auto n = decide_fixture("push", j);
  CHECK(n.action == Action::ignore);
  CHECK(n.reason.find("tag 'nightly-2024' matches none") != std::string::npos);
}

TEST_CASE("deleted pushes are ignored") {
  auto d = decide_file("push", "push_deleted.json");
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "push deletes refs/heads/old-feature");
  // Even on an allowed branch.
  auto j = fixture_json("push_deleted.json");
  j["ref"] = "refs/heads/main";
  CHECK(decide_fixture("push", j).action == Action::ignore);
}

TEST_CASE("refs that are neither branches nor tags are ignored") {
  auto j = fixture_json("push_branch.json");
  j["ref"] = "refs/notes/commits";
  CHECK(decide_fixture("push", j).action == Action::ignore);
}

TEST_CASE("a push whose commit id is not hex is refused") {
  auto j = fixture_json("push_branch.json");
  j["after"] = "not-a-sha";
  auto e = parse_event("push", j.dump());
  REQUIRE(e);
  auto d = decide(make_config(), *e, "delivery-1");
  REQUIRE_FALSE(d);
  CHECK(d.error().message.find("head_sha 'not-a-sha'") != std::string::npos);
}

TEST_CASE("unwatched repositories are ignored; names match case-insensitively") {
  auto j = fixture_json("push_branch.json");
  j["repository"]["full_name"] = "someone/else";
  auto d = decide_fixture("push", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "repository 'someone/else' is not watched");
  j["repository"]["full_name"] = "Octo-Org/Widget";
  CHECK(decide_fixture("push", j).action == Action::enqueue);
}

TEST_CASE("the payload's clone url is used when the config has none") {
  auto c = make_config();
  c.repositories[0].clone_url.clear();
  auto d = decide_fixture("push", fixture_json("push_branch.json"), c);
  CHECK(d.job.clone_url == "https://github.com/octo-org/widget.git");
}

TEST_CASE("create events are ignored: the tag's push carries the commit") {
  auto d = decide_file("create", "create_tag.json");
  CHECK(d.action == Action::ignore);
  CHECK(d.reason.find("tag 'v1.2.0' is measured from its push event") != std::string::npos);
}

TEST_CASE("pull_request opened/synchronize/reopened/closed are recorded") {
  for (const char* f : {"pull_request_opened.json", "pull_request_synchronize.json",
                        "pull_request_reopened.json", "pull_request_closed.json"}) {
    INFO(f);
    auto d = decide_file("pull_request", f);
    REQUIRE(d.action == Action::record);
    REQUIRE(d.record);
    CHECK(d.record->repository == "octo-org/widget");
    CHECK(d.record->number == 7);
    CHECK(d.record->head_ref == "tokenizer");
    CHECK(d.record->title == "Rewrite the tokenizer");  // for the dashboard's pull request page
    CHECK(d.record->author == "mallory");
    CHECK(d.record->base_ref == "refs/heads/main");
    CHECK(d.record->base_sha == "9049f1265b7d61be4a8904a9a27120d2064dab3b");
    CHECK(d.record->clone_url == "https://github.com/mallory/widget.git");
  }
  CHECK(decide_file("pull_request", "pull_request_opened.json").record->state == "open");
  CHECK(decide_file("pull_request", "pull_request_closed.json").record->state == "closed");
  CHECK(decide_file("pull_request", "pull_request_synchronize.json").record->head_sha ==
        "5b1e7cce7d6e2b2a4b3f8a1c9d0e1f2a3b4c5d6e");
}

TEST_CASE("other pull_request actions are ignored") {
  auto j = fixture_json("pull_request_opened.json");
  j["action"] = "edited";
  auto d = decide_fixture("pull_request", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "pull_request action 'edited' is not used");
}

TEST_CASE("the bless label from an allowed user records and enqueues the PR") {
  auto d = decide_file("pull_request", "pull_request_labeled.json");
  REQUIRE(d.action == Action::enqueue);
  REQUIRE(d.record);
  CHECK(d.record->number == 7);
  CHECK(d.job.kind == bb::model::JobKind::pull_request);
  CHECK(d.job.ref == "refs/pull/7/head");
  CHECK(d.job.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  CHECK(d.job.base_ref == "refs/heads/main");
  CHECK(d.job.base_sha == "9049f1265b7d61be4a8904a9a27120d2064dab3b");
  CHECK(d.job.pr_number == 7);
  CHECK(d.job.clone_url == "/srv/git/widget.git");
  CHECK(d.job.requested_by == "alice");
}

TEST_CASE("the bless label from someone else, or another label, is ignored") {
  auto j = fixture_json("pull_request_labeled.json");
  j["sender"]["login"] = "mallory";
  auto d = decide_fixture("pull_request", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "user 'mallory' may not bless octo-org/widget#7");
  j = fixture_json("pull_request_labeled.json");
  j["label"]["name"] = "bug";
  CHECK(decide_fixture("pull_request", j).action == Action::ignore);
}

TEST_CASE("a bless comment by an allowed user asks for the recorded PR") {
  auto d = decide_file("issue_comment", "issue_comment_bless.json");
  REQUIRE(d.action == Action::bless);
  CHECK(d.bless.repository == "octo-org/widget");
  CHECK(d.bless.number == 7);
  CHECK(d.bless.requested_by == "alice");
  CHECK(d.bless.delivery_id == "delivery-1");
}

TEST_CASE("blessers match case-insensitively; others may not bless") {
  auto j = fixture_json("issue_comment_bless.json");
  j["comment"]["user"]["login"] = "carol";
  CHECK(decide_fixture("issue_comment", j).action == Action::bless);
  j["comment"]["user"]["login"] = "mallory";
  auto d = decide_fixture("issue_comment", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "user 'mallory' may not bless octo-org/widget#7");
}

TEST_CASE("nobody may bless when the policy lists no blessers") {
  auto c = make_config();
  c.repositories[0].blessers.clear();
  CHECK(decide_fixture("issue_comment", fixture_json("issue_comment_bless.json"), c).action == Action::ignore);
}

TEST_CASE("a comment on an issue that is not a PR is ignored") {
  auto d = decide_file("issue_comment", "issue_comment_on_issue.json");
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "comment on octo-org/widget#12, which is not a pull request");
}

TEST_CASE("edited comments do not bless") {
  auto j = fixture_json("issue_comment_bless.json");
  j["action"] = "edited";
  CHECK(decide_fixture("issue_comment", j).action == Action::ignore);
}

TEST_CASE("the command may carry trailing text, on any line, but must start the line") {
  CHECK(has_command("/benchbox run", "/benchbox run"));
  CHECK(has_command("/benchbox run please, the tokenizer changed", "/benchbox run"));
  CHECK(has_command("  /benchbox run\t", "/benchbox run"));
  CHECK(has_command("LGTM.\r\n/benchbox run\r\n", "/benchbox run"));
  CHECK_FALSE(has_command("/benchbox running", "/benchbox run"));
  CHECK_FALSE(has_command("please /benchbox run", "/benchbox run"));
  CHECK_FALSE(has_command("> /benchbox run", "/benchbox run"));
  CHECK_FALSE(has_command("", "/benchbox run"));
  CHECK_FALSE(has_command("/benchbox run", ""));

  auto j = fixture_json("issue_comment_bless.json");
  j["comment"]["body"] = "/benchbox run with the new data set";
  CHECK(decide_fixture("issue_comment", j).action == Action::bless);
  j["comment"]["body"] = "could someone /benchbox run this?";
  auto d = decide_fixture("issue_comment", j);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "comment on octo-org/widget#7 has no '/benchbox run'");
}

TEST_CASE("bless_job uses the recorded PR") {
  bb::model::PullRequest pr{"octo-org/widget", 7, "ec26c3e57ca3a959ca5aad62de7213c562f8c821", "tokenizer",
                       "refs/heads/main", "9049f1265b7d61be4a8904a9a27120d2064dab3b", "open",
                       "https://github.com/mallory/widget.git", 0, "", "", ""};
  BlessRequest req{"octo-org/widget", 7, "alice", "delivery-9", "https://github.com/octo-org/widget.git"};
  auto d = bless_job(make_config(), req, pr);
  REQUIRE(d.action == Action::enqueue);
  CHECK(d.job.kind == bb::model::JobKind::pull_request);
  CHECK(d.job.delivery_id == "delivery-9");
  CHECK(d.job.ref == "refs/pull/7/head");
  CHECK(d.job.head_sha == pr.head_sha);
  CHECK(d.job.base_sha == pr.base_sha);
  CHECK(d.job.base_ref == "refs/heads/main");
  CHECK(d.job.pr_number == 7);
  CHECK(d.job.clone_url == "/srv/git/widget.git");
  CHECK(d.job.requested_by == "alice");
  CHECK(d.job.suite == "micro");

  auto c = make_config();
  c.repositories[0].clone_url.clear();
  CHECK(bless_job(c, req, pr).job.clone_url == "https://github.com/octo-org/widget.git");

  pr.base_ref = "main";  // a short name from an older record still becomes a ref
  CHECK(bless_job(make_config(), req, pr).job.base_ref == "refs/heads/main");
}

TEST_CASE("bless_job without a record lets the runner resolve the head") {
  BlessRequest req{"octo-org/widget", 7, "alice", "delivery-9", "https://github.com/octo-org/widget.git"};
  auto d = bless_job(make_config(), req, std::nullopt);
  REQUIRE(d.action == Action::enqueue);
  CHECK(d.job.ref == "refs/pull/7/head");
  CHECK(d.job.head_sha.empty());
  CHECK(d.job.base_sha.empty());
  CHECK(d.job.base_ref == "refs/heads/main");
  CHECK(d.job.pr_number == 7);
}

TEST_CASE("bless_job refuses a closed PR") {
  bb::model::PullRequest pr{"octo-org/widget", 7, "ec26c3e57ca3a959ca5aad62de7213c562f8c821", "tokenizer",
                       "refs/heads/main", "9049f1265b7d61be4a8904a9a27120d2064dab3b", "closed", "", 0, "", "", ""};
  auto d = bless_job(make_config(), {"octo-org/widget", 7, "alice", "d", ""}, pr);
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "octo-org/widget#7 is closed");
}

TEST_CASE("unknown events are ignored with their name") {
  auto d = decide_fixture("star", nlohmann::json{{"action", "created"}});
  CHECK(d.action == Action::ignore);
  CHECK(d.reason == "event 'star' is not used");
}
