// benchbox-webhookd when the queue does not answer: 503, the verified
// delivery spooled durably, and replayed once benchbox-queued is back.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "queued_client.h"
#include "webhookd_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

std::vector<json> jobs_of(WebhookdFixture& w) {
  QueueClient q(w.queue().address());
  std::vector<json> jobs;
  if (q.list("", 0, &jobs)) return {};
  return jobs;
}

bool has_delivery(WebhookdFixture& w, const std::string& delivery) {
  for (const auto& j : jobs_of(w))
    if (j["delivery_id"] == delivery) return true;
  return false;
}

}  // namespace

TEST_CASE("queue not running: 503 and spooled; replayed when queued appears on the bus", "[webhookd]") {
  WebhookdFixture w("  queue_timeout_ms: 1000\n");
  w.start();  // the queue is not running yet
  std::string body = github_fixture("push_branch.json");
  auto resp = w.post("push", "spool-1", body);
  REQUIRE(resp.status == 503);
  CHECK(json::parse(resp.body)["error"].get<std::string>().find("spooled for replay") != std::string::npos);
  auto files = w.spooled();
  REQUIRE(files.size() == 1);
  // Byte for byte: the header line, then the body as it was signed.
  std::ifstream in(w.spool_dir() + "/" + files[0]);
  std::string head;
  std::getline(in, head);
  CHECK(json::parse(head)["delivery_id"] == "spool-1");
  std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(rest == body);

  // A PR event spooled too: replay must record it.
  REQUIRE(w.post("pull_request", "spool-2", github_fixture("pull_request_opened.json")).status == 503);
  CHECK(w.spooled().size() == 2);

  w.queue().start_and_wait();  // NameOwnerChanged triggers the replay
  REQUIRE(wait_until([&] { return w.spooled().empty() && has_delivery(w, "spool-1"); }, std::chrono::seconds(10)));
  QueueClient q(w.queue().address());
  json pr;
  CHECK_FALSE(q.get_pull_request("octo-org/widget", 7, &pr));
  CHECK(w.log().find("the queue appeared on the bus") != std::string::npos);

  // GitHub redelivering the same delivery now gets the replayed job: 200.
  int64_t id = 0;
  for (const auto& j : jobs_of(w))
    if (j["delivery_id"] == "spool-1") id = j["id"].get<int64_t>();
  auto again = w.post("push", "spool-1", body);
  CHECK(again.status == 200);
  CHECK(json::parse(again.body)["job_id"].get<int64_t>() == id);
  CHECK(jobs_of(w).size() == 1);
}

TEST_CASE("queue hung: 503 after queue_timeout_ms, replayed on the timer when it answers again", "[webhookd]") {
  WebhookdFixture w("  queue_timeout_ms: 500\n");
  w.queue().start_and_wait();
  w.start();
  ::kill(w.queue().process().pid(), SIGSTOP);
  auto t0 = std::chrono::steady_clock::now();
  auto resp = w.post("push", "hung-1", github_fixture("push_branch.json"));
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(resp.status == 503);
  CHECK(took >= std::chrono::milliseconds(450));
  CHECK(took < std::chrono::seconds(5));
  CHECK(w.spooled().size() == 1);
  ::kill(w.queue().process().pid(), SIGCONT);  // same owner: only the replay timer notices
  REQUIRE(wait_until([&] { return w.spooled().empty() && has_delivery(w, "hung-1"); }, std::chrono::seconds(15)));
  // Replaying twice is harmless: queued dedupes by delivery id.
  CHECK(jobs_of(w).size() == 1);
}

TEST_CASE("a spool that cannot be written is logged and the answer stays 503", "[webhookd]") {
  WebhookdFixture w("  queue_timeout_ms: 500\n");
  // The spool directory would have to live under a regular file: ENOTDIR.
  std::ofstream(w.dir() / "not-a-dir") << "x";
  w.write_config("  queue_timeout_ms: 500\n  spool_dir: " + (w.dir() / "not-a-dir/spool") + "\n");
  w.start();
  auto resp = w.post("push", "nospool-1", github_fixture("push_branch.json"));
  CHECK(resp.status == 503);
  CHECK(json::parse(resp.body)["error"].get<std::string>().find("NOT spooled") != std::string::npos);
  CHECK(w.log().find("could not be spooled") != std::string::npos);
}

TEST_CASE("deliveries spooled by an earlier run are replayed at start", "[webhookd]") {
  WebhookdFixture w("  queue_timeout_ms: 500\n");
  w.start();
  REQUIRE(w.post("push", "restart-1", github_fixture("push_branch.json")).status == 503);
  REQUIRE(w.daemon().terminate() == 0);
  w.stop();
  REQUIRE(w.spooled().size() == 1);
  w.queue().start_and_wait();
  w.start();
  REQUIRE(wait_until([&] { return w.spooled().empty() && has_delivery(w, "restart-1"); }, std::chrono::seconds(10)));
}

TEST_CASE("SIGTERM while a delivery waits for a hung queue: it is answered and spooled before exit", "[webhookd]") {
  WebhookdFixture w("  queue_timeout_ms: 1500\n");
  w.queue().start_and_wait();
  w.start();
  ::kill(w.queue().process().pid(), SIGSTOP);
  HttpResponse resp;
  std::thread client([&] { resp = w.post("push", "term-1", github_fixture("push_branch.json")); });
  // The request is in: webhookd holds an established connection from us.
  std::string port = std::to_string(w.port());
  bool connected = wait_until([&] {
    std::string out;
    run_shell("ss -Htn state established '( sport = :" + port + " )'", &out);
    return !out.empty();
  });
  CHECK(connected);
  CHECK(w.daemon().terminate() == 0);
  client.join();
  ::kill(w.queue().process().pid(), SIGCONT);
  CHECK(resp.status == 503);
  CHECK(w.spooled().size() == 1);
}
