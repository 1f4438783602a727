// benchbox-webhookd with a real benchbox-queued on a private bus: every HTTP
// answer, with real signatures over loopback.
#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <nlohmann/json.hpp>

#include "queued_client.h"
#include "webhookd_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

json body_of(const HttpResponse& r) {
  INFO("body: " << r.body << " error: " << r.error);
  return json::parse(r.body);
}

std::vector<json> all_jobs(WebhookdFixture& w) {
  QueueClient q(w.queue().address());
  std::vector<json> jobs;
  auto e = q.list("", 0, &jobs);
  INFO(e.name << ": " << e.message);
  REQUIRE_FALSE(e);
  return jobs;
}

struct Running {
  WebhookdFixture w;
  explicit Running(const std::string& webhook_yaml = "") : w(webhook_yaml) {
    w.queue().start_and_wait();
    w.start();
  }
};

}  // namespace

TEST_CASE("a signed push is a durable job: 202 with its id, 200 with the same id when redelivered", "[webhookd]") {
  Running r;
  std::string body = github_fixture("push_branch.json");
  auto first = r.w.post("push", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body);
  REQUIRE(first.status == 202);
  int64_t id = body_of(first)["job_id"].get<int64_t>();
  CHECK(id > 0);

  // On disk when the 202 left: kill -9 the queue and look again.
  r.w.queue().kill_hard();
  r.w.queue().start_and_wait();
  QueueClient q(r.w.queue().address());
  json job;
  REQUIRE_FALSE(q.get(id, &job));
  CHECK(job["kind"] == "push");
  CHECK(job["repository"] == "octo-org/widget");
  CHECK(job["ref"] == "refs/heads/main");
  CHECK(job["head_sha"] == "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c");
  CHECK(job["clone_url"] == r.w.dir() / "widget.git");
  CHECK(job["delivery_id"] == "72d3162e-cc78-11e3-81ab-4c9367dc0958");
  CHECK(job["requested_by"] == "alice");

  auto again = r.w.post("push", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body);
  REQUIRE(again.status == 200);
  CHECK(body_of(again)["job_id"].get<int64_t>() == id);
  CHECK(all_jobs(r.w).size() == 1);
}

TEST_CASE("a tag push is a tag job", "[webhookd]") {
  Running r;
  auto resp = r.w.post("push", "tag-1", github_fixture("push_tag.json"));
  REQUIRE(resp.status == 202);
  QueueClient q(r.w.queue().address());
  json job;
  REQUIRE_FALSE(q.get(body_of(resp)["job_id"].get<int64_t>(), &job));
  CHECK(job["kind"] == "tag");
  CHECK(job["ref"] == "refs/tags/v1.2.0");
}

TEST_CASE("bad or missing signatures are 401 and queue nothing", "[webhookd]") {
  Running r;
  std::string body = github_fixture("push_branch.json");
  std::string wrong_secret = github_signature("not the secret", body);
  std::string empty;
  std::string sha1_style = "sha1=" + github_signature(kWebhookSecret, body).substr(7, 40);
  std::string tampered_sig = github_signature(kWebhookSecret, body + " ");

  auto a = r.w.post("push", "d-1", body, &wrong_secret);
  CHECK(a.status == 401);
  CHECK(body_of(a)["error"] == "signature does not match the body");
  auto b = r.w.post("push", "d-2", body, &empty);
  CHECK(b.status == 401);
  CHECK(body_of(b)["error"] == "missing X-Hub-Signature-256 header");
  auto c = r.w.post("push", "d-3", body, &sha1_style);
  CHECK(c.status == 401);
  CHECK(body_of(c)["error"].get<std::string>().find("sha256=") != std::string::npos);
  CHECK(r.w.post("push", "d-4", body, &tampered_sig).status == 401);
  CHECK(all_jobs(r.w).empty());
  CHECK(r.w.log().find(kWebhookSecret) == std::string::npos);  // never logged
}

TEST_CASE("malformed JSON and missing fields or headers are 400 and say which", "[webhookd]") {
  Running r;
  auto bad_json = r.w.post("push", "d-1", R"({"ref": "refs/heads/main",)");
  CHECK(bad_json.status == 400);
  CHECK(body_of(bad_json)["error"].get<std::string>().find("malformed JSON in push payload") != std::string::npos);

  json j = github_fixture_json("push_branch.json");
  j.erase("after");
  auto missing = r.w.post("push", "d-2", j.dump());
  CHECK(missing.status == 400);
  CHECK(body_of(missing)["error"] == "push payload: missing field 'after'");

  j = github_fixture_json("pull_request_opened.json");
  j["pull_request"]["head"].erase("sha");
  auto pr = r.w.post("pull_request", "d-3", j.dump());
  CHECK(pr.status == 400);
  CHECK(body_of(pr)["error"] == "pull_request payload: missing field 'pull_request.head.sha'");

  auto no_delivery = r.w.post("push", "", github_fixture("push_branch.json"));
  CHECK(no_delivery.status == 400);
  CHECK(body_of(no_delivery)["error"] == "missing X-GitHub-Delivery header");
  auto no_event = r.w.post("", "d-4", github_fixture("push_branch.json"));
  CHECK(no_event.status == 400);
  CHECK(body_of(no_event)["error"] == "missing X-GitHub-Event header");
  CHECK(all_jobs(r.w).empty());
}

TEST_CASE("bodies over max_body_bytes are 413, from Content-Length and while streaming", "[webhookd]") {
  Running r("  max_body_bytes: 4096\n");
  std::string big(5000, ' ');
  auto declared = r.w.post("push", "d-1", big);
  CHECK(declared.status == 413);
  CHECK(body_of(declared)["error"].get<std::string>().find("over the limit of 4096") != std::string::npos);

  // Chunked: no Content-Length, so the limit is found while reading.
  RawClient c(r.w.port());
  std::string chunk(1000, 'x');
  std::string head = "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                     "Content-Type: application/json\r\n"
                     "X-GitHub-Event: push\r\nX-GitHub-Delivery: d-2\r\n\r\n";
  REQUIRE(c.send(head));
  // The answer comes as soon as the limit is crossed, not at the end.
  for (int i = 0; i < 5; ++i) c.send("3e8\r\n" + chunk + "\r\n");
  std::string answer = c.read_all(std::chrono::seconds(3));
  CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(answer.find("\"error\":\"body is over the limit of 4096 bytes\"") != std::string::npos);

  // Just under the limit still reaches the signature check.
  CHECK(r.w.post("push", "d-3", std::string(4096, ' ')).status == 400);
}

TEST_CASE("only POST /webhook exists", "[webhookd]") {
  Running r;
  CHECK(http_get(r.w.url()).status == 405);
  CHECK(http_get(r.w.url("/")).status == 404);
  CHECK(http_post(r.w.url("/hooks"), "{}", {}).status == 404);
}

TEST_CASE("ping is 200; unknown events and what the policy ignores are 202 ignored", "[webhookd]") {
  Running r;
  auto ping = r.w.post("ping", "p-1", github_fixture("ping.json"));
  CHECK(ping.status == 200);

  auto star = r.w.post("star", "s-1", R"({"action":"created","repository":{"full_name":"octo-org/widget"}})");
  CHECK(star.status == 202);
  CHECK(body_of(star)["ignored"] == "event 'star' is not used");

  json j = github_fixture_json("push_branch.json");
  j["ref"] = "refs/heads/experiment";
  auto branch = r.w.post("push", "b-1", j.dump());
  CHECK(branch.status == 202);
  CHECK(body_of(branch)["ignored"] == "branch 'experiment' is not among the branches watched in octo-org/widget");

  auto deleted = r.w.post("push", "b-2", github_fixture("push_deleted.json"));
  CHECK(deleted.status == 202);
  CHECK(body_of(deleted)["ignored"] == "push deletes refs/heads/old-feature");

  j = github_fixture_json("push_branch.json");
  j["repository"]["full_name"] = "someone/else";
  CHECK(body_of(r.w.post("push", "b-3", j.dump()))["ignored"] == "repository 'someone/else' is not watched");
  CHECK(r.w.post("create", "c-1", github_fixture("create_tag.json")).status == 202);

  CHECK(all_jobs(r.w).empty());
  std::string log = r.w.log();
  CHECK(log.find("delivery ignored: event 'star' is not used DELIVERY_ID=s-1 REPOSITORY=octo-org/widget EVENT=star") !=
        std::string::npos);
}

TEST_CASE("a pull request is recorded, then blessed by an allowed user's comment", "[webhookd]") {
  Running r;
  auto opened = r.w.post("pull_request", "pr-1", github_fixture("pull_request_opened.json"));
  REQUIRE(opened.status == 202);
  CHECK(body_of(opened)["recorded"] == "record octo-org/widget#7 (opened)");
  auto sync = r.w.post("pull_request", "pr-2", github_fixture("pull_request_synchronize.json"));
  REQUIRE(sync.status == 202);

  QueueClient q(r.w.queue().address());
  json pr;
  REQUIRE_FALSE(q.get_pull_request("octo-org/widget", 7, &pr));
  CHECK(pr["head_sha"] == "5b1e7cce7d6e2b2a4b3f8a1c9d0e1f2a3b4c5d6e");
  CHECK(pr["base_ref"] == "refs/heads/main");
  CHECK(pr["state"] == "open");
  CHECK(all_jobs(r.w).empty());  // recording runs nothing

  json c = github_fixture_json("issue_comment_bless.json");
  c["comment"]["user"]["login"] = "mallory";
  auto refused = r.w.post("issue_comment", "ic-1", c.dump());
  CHECK(refused.status == 202);
  CHECK(body_of(refused)["ignored"] == "user 'mallory' may not bless octo-org/widget#7");
  CHECK(r.w.post("issue_comment", "ic-2", github_fixture("issue_comment_on_issue.json")).status == 202);
  CHECK(all_jobs(r.w).empty());

  c["comment"]["user"]["login"] = "alice";
  c["comment"]["body"] = "Looks good.\n/benchbox run please";
  auto blessed = r.w.post("issue_comment", "ic-3", c.dump());
  REQUIRE(blessed.status == 202);
  json job;
  REQUIRE_FALSE(q.get(body_of(blessed)["job_id"].get<int64_t>(), &job));
  CHECK(job["kind"] == "pull_request");
  CHECK(job["pr_number"] == 7);
  CHECK(job["ref"] == "refs/pull/7/head");
  CHECK(job["head_sha"] == "5b1e7cce7d6e2b2a4b3f8a1c9d0e1f2a3b4c5d6e");
  CHECK(job["base_sha"] == "9049f1265b7d61be4a8904a9a27120d2064dab3b");
  CHECK(job["base_ref"] == "refs/heads/main");
  CHECK(job["clone_url"] == r.w.dir() / "widget.git");
  CHECK(job["requested_by"] == "alice");

  // Closing is recorded; a later blessing of the closed PR runs nothing.
  REQUIRE(r.w.post("pull_request", "pr-3", github_fixture("pull_request_closed.json")).status == 202);
  auto late = r.w.post("issue_comment", "ic-4", c.dump());
  CHECK(late.status == 202);
  CHECK(body_of(late)["ignored"] == "octo-org/widget#7 is closed");
  CHECK(all_jobs(r.w).size() == 1);
}

TEST_CASE("blessing a PR that was never recorded lets the runner resolve its head", "[webhookd]") {
  Running r;
  json c = github_fixture_json("issue_comment_bless.json");
  c["issue"]["number"] = 8;
  auto blessed = r.w.post("issue_comment", "ic-1", c.dump());
  REQUIRE(blessed.status == 202);
  QueueClient q(r.w.queue().address());
  json job;
  REQUIRE_FALSE(q.get(body_of(blessed)["job_id"].get<int64_t>(), &job));
  CHECK(job["ref"] == "refs/pull/8/head");
  CHECK(job["head_sha"] == "");
  CHECK(job["base_ref"] == "refs/heads/main");
  CHECK(job["pr_number"] == 8);
}

TEST_CASE("the bless label from an allowed user records and runs the PR", "[webhookd]") {
  Running r;
  auto labeled = r.w.post("pull_request", "l-1", github_fixture("pull_request_labeled.json"));
  REQUIRE(labeled.status == 202);
  QueueClient q(r.w.queue().address());
  json job, pr;
  REQUIRE_FALSE(q.get(body_of(labeled)["job_id"].get<int64_t>(), &job));
  CHECK(job["head_sha"] == "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  REQUIRE_FALSE(q.get_pull_request("octo-org/widget", 7, &pr));
  CHECK(pr["head_sha"] == "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
}

TEST_CASE("slow clients: trickled headers, a stalled or a trickled body all get 408", "[webhookd]") {
  Running r("  request_timeout_seconds: 2\n  header_timeout_seconds: 2\n");
  std::string body = github_fixture("ping.json");
  std::string head = "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: ping\r\n"
                     "Content-Type: application/json\r\n"
                     "X-GitHub-Delivery: slow-1\r\nX-Hub-Signature-256: " +
                     github_signature(kWebhookSecret, body) + "\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n";

  SECTION("headers trickled past the limit are answered 408") {
    RawClient c(r.w.port());
    REQUIRE(c.send(head));
    // A header byte about every 200 ms, well inside the 10 s idle timeout,
    // until webhookd answers: only the header deadline can end this.
    std::string answer;
    bool answered = wait_until(
        [&] {
          if (!c.send("X")) return true;  // closed without a word: the checks below say so
          answer += c.read_all(std::chrono::milliseconds(200));
          return !answer.empty();
        },
        std::chrono::seconds(15));
    if (!answered) FAIL("no answer to headers trickled for 15 s; the header timeout is 2 s");
    answer += c.read_all(std::chrono::seconds(5));
    INFO("answer: " << answer);
    CHECK(answer.rfind("HTTP/1.1 408", 0) == 0);
    CHECK(answer.find("request headers took longer than 2 s") != std::string::npos);
  }
  SECTION("a body that stops arriving is answered 408 after the timeout") {
    RawClient c(r.w.port());
    REQUIRE(c.send(head + "\r\n" + body.substr(0, body.size() / 2)));
    auto t0 = std::chrono::steady_clock::now();
    std::string answer = c.read_all(std::chrono::seconds(10));
    CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(1500));
    CHECK(answer.rfind("HTTP/1.1 408", 0) == 0);
  }
  SECTION("a body trickled past the limit is answered 408") {
    RawClient c(r.w.port());
    REQUIRE(c.send(head + "\r\n"));
    std::string answer;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (size_t i = 0; i < body.size() && std::chrono::steady_clock::now() < until && answer.empty(); ++i) {
      if (!c.send(body.substr(i, 1))) break;
      answer = c.read_all(std::chrono::milliseconds(200));
    }
    CHECK(answer.rfind("HTTP/1.1 408", 0) == 0);
    CHECK(answer.find("request body took longer than 2 s") != std::string::npos);
  }
  // The daemon still serves normal requests afterwards.
  CHECK(r.w.post("ping", "after-slow", body).status == 200);
}

TEST_CASE("many concurrent deliveries all get their own job", "[webhookd]") {
  Running r;
  json j = github_fixture_json("push_branch.json");
  std::vector<std::thread> threads;
  std::vector<long> status(16);
  std::vector<int64_t> ids(16);
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      json p = j;
      char sha[41];
      std::snprintf(sha, sizeof sha, "%040x", i + 1);
      p["after"] = sha;
      auto resp = r.w.post("push", "c-" + std::to_string(i), p.dump());
      status[i] = resp.status;
      if (resp.status == 202) ids[i] = json::parse(resp.body)["job_id"].get<int64_t>();
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 16; ++i) CHECK(status[i] == 202);
  std::sort(ids.begin(), ids.end());
  CHECK(std::unique(ids.begin(), ids.end()) == ids.end());
  CHECK(all_jobs(r.w).size() == 16);
}
