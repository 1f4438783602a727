#include <catch2/catch.hpp>

#include "github/payload.h"
#include "github/payload_fields.h"
#include "test_fixtures.h"

using namespace bb::github;
using bb::github::test::fixture;
using bb::github::test::fixture_json;

template <class T>
T parse_as(const std::string& event, const std::string& body) {
  auto e = parse_event(event, body);
  INFO((e ? std::string() : e.error().message));
  REQUIRE(e);
  REQUIRE(std::holds_alternative<T>(*e));
  return std::get<T>(*e);
}

TEST_CASE("ping") {
  auto p = parse_as<PingEvent>("ping", fixture("ping.json"));
  CHECK(p.zen == "Design for failure.");
  CHECK(p.hook_id == 109948940);
  CHECK(p.repository == "octo-org/widget");
}

TEST_CASE("ping from an organization hook has no repository") {
  auto j = fixture_json("ping.json");
  j.erase("repository");
  CHECK(parse_as<PingEvent>("ping", j.dump()).repository.empty());
}

TEST_CASE("push to a branch") {
  auto p = parse_as<PushEvent>("push", fixture("push_branch.json"));
  CHECK(p.repository.full_name == "octo-org/widget");
  CHECK(p.repository.clone_url == "https://github.com/octo-org/widget.git");
  CHECK(p.ref == "refs/heads/main");
  CHECK(p.before == "6113728f27ae82c7b1a177c8d03f9e96e0adf246");
  CHECK(p.after == "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c");
  CHECK_FALSE(p.deleted);
  CHECK_FALSE(p.created);
  CHECK(p.sender == "alice");
}

TEST_CASE("push of a tag") {
  auto p = parse_as<PushEvent>("push", fixture("push_tag.json"));
  CHECK(p.ref == "refs/tags/v1.2.0");
  CHECK(p.created);
  CHECK(p.before == std::string(40, '0'));
}

TEST_CASE("push that deletes a branch") {
  auto p = parse_as<PushEvent>("push", fixture("push_deleted.json"));
  CHECK(p.deleted);
  CHECK(p.after == std::string(40, '0'));
}

TEST_CASE("create of a tag carries the short name and no commit") {
  auto c = parse_as<CreateEvent>("create", fixture("create_tag.json"));
  CHECK(c.ref == "v1.2.0");
  CHECK(c.ref_type == "tag");
  CHECK(c.sender == "alice");
}

TEST_CASE("pull_request actions") {
  auto o = parse_as<PullRequestEvent>("pull_request", fixture("pull_request_opened.json"));
  CHECK(o.action == "opened");
  CHECK(o.number == 7);
  CHECK(o.state == "open");
  CHECK(o.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  CHECK(o.head_ref == "tokenizer");
  CHECK(o.title == "Rewrite the tokenizer");
  CHECK(o.author == "mallory");
  CHECK(o.head_clone_url == "https://github.com/mallory/widget.git");
  CHECK(o.base_ref == "main");
  CHECK(o.base_sha == "9049f1265b7d61be4a8904a9a27120d2064dab3b");
  CHECK(o.repository.full_name == "octo-org/widget");
  CHECK(o.sender == "mallory");

  auto s = parse_as<PullRequestEvent>("pull_request", fixture("pull_request_synchronize.json"));
  CHECK(s.action == "synchronize");
  CHECK(s.head_sha == "5b1e7cce7d6e2b2a4b3f8a1c9d0e1f2a3b4c5d6e");

  CHECK(parse_as<PullRequestEvent>("pull_request", fixture("pull_request_reopened.json")).action == "reopened");

  auto c = parse_as<PullRequestEvent>("pull_request", fixture("pull_request_closed.json"));
  CHECK(c.action == "closed");
  CHECK(c.state == "closed");
  CHECK(c.merged);

  auto l = parse_as<PullRequestEvent>("pull_request", fixture("pull_request_labeled.json"));
  CHECK(l.action == "labeled");
  CHECK(l.label == "benchbox");
  CHECK(l.sender == "alice");
}

TEST_CASE("pull_request whose fork was deleted has no head clone url") {
  auto j = fixture_json("pull_request_opened.json");
  j["pull_request"]["head"]["repo"] = nullptr;
  CHECK(parse_as<PullRequestEvent>("pull_request", j.dump()).head_clone_url.empty());
}

TEST_CASE("issue_comment on a pull request and on an issue") {
  auto c = parse_as<IssueCommentEvent>("issue_comment", fixture("issue_comment_bless.json"));
  CHECK(c.action == "created");
  CHECK(c.issue_number == 7);
  CHECK(c.on_pull_request);
  CHECK(c.body == "/benchbox run");
  CHECK(c.commenter == "alice");

  auto i = parse_as<IssueCommentEvent>("issue_comment", fixture("issue_comment_on_issue.json"));
  CHECK(i.issue_number == 12);
  CHECK_FALSE(i.on_pull_request);
}

TEST_CASE("unknown events keep their name and repository") {
  auto o = parse_as<OtherEvent>("star", R"({"action":"created","repository":{"full_name":"octo-org/widget"}})");
  CHECK(o.name == "star");
  CHECK(o.repository == "octo-org/widget");
  CHECK(repository_of(Event(o)) == "octo-org/widget");
}

TEST_CASE("malformed JSON is a parse error") {
  auto e = parse_event("push", R"({"ref": "refs/heads/main",)");
  REQUIRE_FALSE(e);
  CHECK(e.error().code == bb::Errc::parse);
  CHECK(e.error().message.find("malformed JSON in push payload") != std::string::npos);
  CHECK_FALSE(parse_event("star", "not json"));
}

TEST_CASE("a payload that is not an object is refused") {
  auto e = parse_event("push", "[1,2]");
  REQUIRE_FALSE(e);
  CHECK(e.error().code == bb::Errc::invalid_argument);
}

TEST_CASE("missing and mistyped fields are named") {
  struct Case {
    const char* event;
    const char* file;
    std::vector<std::string> path;  // field to remove or retype
    nlohmann::json replacement;  // null: remove the field
    const char* expect;
  };
  std::vector<Case> cases = {
      {"push", "push_branch.json", {"repository", "full_name"}, nullptr, "missing field 'repository.full_name'"},
      {"push", "push_branch.json", {"after"}, nullptr, "missing field 'after'"},
      {"push", "push_branch.json", {"deleted"}, "yes", "field 'deleted' must be true or false"},
      {"push", "push_branch.json", {"sender", "login"}, nullptr, "missing field 'sender.login'"},
      {"create", "create_tag.json", {"ref_type"}, nullptr, "missing field 'ref_type'"},
      {"pull_request", "pull_request_opened.json", {"number"}, "7", "field 'number' must be an integer"},
      {"pull_request", "pull_request_opened.json", {"pull_request", "head", "sha"}, nullptr,
       "missing field 'pull_request.head.sha'"},
      {"pull_request", "pull_request_opened.json", {"pull_request", "base", "ref"}, nullptr,
       "missing field 'pull_request.base.ref'"},
      {"pull_request", "pull_request_labeled.json", {"label"}, nullptr, "missing field 'label.name'"},
      {"issue_comment", "issue_comment_bless.json", {"issue", "number"}, nullptr, "missing field 'issue.number'"},
      {"issue_comment", "issue_comment_bless.json", {"comment", "user", "login"}, nullptr,
       "missing field 'comment.user.login'"},
      {"issue_comment", "issue_comment_bless.json", {"repository", "clone_url"}, 42,
       "field 'repository.clone_url' must be a string"},
  };
  for (const auto& c : cases) {
    auto j = fixture_json(c.file);
    nlohmann::json* parent = &j;
    for (size_t i = 0; i + 1 < c.path.size(); ++i) parent = &(*parent)[c.path[i]];
    if (!c.replacement.is_null()) (*parent)[c.path.back()] = c.replacement;
    else parent->erase(c.path.back());
    auto e = parse_event(c.event, j.dump());
    INFO(c.expect);
    REQUIRE_FALSE(e);
    CHECK(e.error().code == bb::Errc::invalid_argument);
    CHECK(e.error().message == std::string(c.event) + " payload: " + c.expect);
  }
}

TEST_CASE("a missing event name is refused") {
  auto e = parse_event("", "{}");
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("X-GitHub-Event") != std::string::npos);
}

namespace {
// The event both documents read from `body`, or both errors: the same.
void same_both_ways(const std::string& event, const std::string& body) {
  INFO(event << ": " << body.substr(0, 200));
  auto fast = parse_event(event, body);
  bb::github::detail::use_simdjson(false);
  auto slow = parse_event(event, body);
  bb::github::detail::use_simdjson(true);
  REQUIRE(fast.ok() == slow.ok());
  if (fast) CHECK(*fast == *slow);
  else CHECK(fast.error().message == slow.error().message);
}
}  // namespace

TEST_CASE("simdjson and nlohmann read every payload the same way") {
  const std::pair<const char*, const char*> files[] = {
      {"ping", "ping.json"}, {"push", "push_branch.json"}, {"push", "push_tag.json"}, {"push", "push_deleted.json"},
      {"create", "create_tag.json"}, {"pull_request", "pull_request_opened.json"},
      {"pull_request", "pull_request_closed.json"}, {"pull_request", "pull_request_labeled.json"},
      {"pull_request", "pull_request_reopened.json"}, {"pull_request", "pull_request_synchronize.json"},
      {"issue_comment", "issue_comment_bless.json"}, {"issue_comment", "issue_comment_on_issue.json"},
      {"star", "push_branch.json"}};
  for (const auto& [event, file] : files) {
    const std::string body = fixture(file);
    REQUIRE(bb::github::detail::simdjson_fields(body, event));
    same_both_ways(event, body);
  }
  // A repeated key (the last counts), integers at and past int64's end,
  // nulls where a value may be absent, a wrong type, and texts only one
  // of them reads, where nlohmann words the error.
  const std::string push = R"({"repository": {"full_name": "o/r", "clone_url": "u"}, "ref": "refs/heads/x",
      "ref": "refs/heads/main", "before": "a", "after": "b", "deleted": false, "created": null,
      "sender": {"login": "s"}})";
  for (const std::string& body : {push, std::string(R"({"zen": null, "hook_id": 9223372036854775807})"),
                                  std::string(R"({"zen": "z", "hook_id": 18446744073709551615})"),
                                  std::string(R"({"hook_id": 1.0})"), std::string(R"({"hook_id": 123456789012345678901234})"),
                                  std::string(R"({"hook_id": -0, "repository": {"full_name": "a\u0000b"}})"),
                                  std::string(R"({"zen": "z"} x)"), std::string("\xef\xbb\xbf{\"zen\": \"z\"}"),
                                  std::string(R"({"zen": "\ud800"})"), std::string("[]"), std::string("")}) {
    same_both_ways(body.find("ref") != std::string::npos ? "push" : "ping", body);
  }
  auto p = parse_event("push", push);
  REQUIRE(p);
  CHECK(std::get<PushEvent>(*p).ref == "refs/heads/main");
}
