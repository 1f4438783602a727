// benchbox-queued on a private dbus-daemon, driven over the bus the way
// webhookd and runnerd drive it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

json push_spec(uint64_t n, const std::string& delivery = "") {
  json j = {{"kind", "push"},
            {"repository", "octo/widgets"},
            {"clone_url", "https://example.invalid/octo/widgets.git"},
            {"ref", "refs/heads/main"},
            {"head_sha", fake_sha(n)}};
  if (!delivery.empty()) j["delivery_id"] = delivery;
  return j;
}

bool has_signal(const QueueClient& c, const std::string& member, int64_t id, const std::string& text = "") {
  return std::any_of(c.signals().begin(), c.signals().end(), [&](const QueueSignal& s) {
    return s.member == member && s.id == id && (text.empty() || s.text == text);
  });
}

bool properties_changed(const QueueClient& c, const std::string& name) {
  return std::any_of(c.signals().begin(), c.signals().end(), [&](const QueueSignal& s) {
    return s.member == "PropertiesChanged" && ("," + s.text + ",").find("," + name + ",") != std::string::npos;
  });
}

}  // namespace

TEST_CASE("a runner's job over the bus: enqueue, claim, heartbeat, complete", "[queued]") {
  QueuedFixture q;
  q.start_and_wait();
  QueueClient client(q.address());
  client.watch_signals();

  int64_t id = 0;
  bool created = false;
  auto e = client.enqueue(push_spec(1, "delivery-1"), &id, &created);
  REQUIRE_FALSE(e);
  CHECK(created);
  CHECK(id > 0);
  REQUIRE(client.wait_for([&] { return has_signal(client, "JobQueued", id, "octo/widgets"); }));
  REQUIRE(client.wait_for([&] { return properties_changed(client, "Queued"); }));

  // A redelivery answers with the same job and queues nothing new.
  int64_t again = 0;
  REQUIRE_FALSE(client.enqueue(push_spec(99, "delivery-1"), &again, &created));
  CHECK_FALSE(created);
  CHECK(again == id);

  uint32_t queued = 0;
  REQUIRE_FALSE(client.count("Queued", &queued));
  CHECK(queued == 1);

  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(client.claim("runner-a", 30, &claimed, &job));
  CHECK(claimed == id);
  CHECK(job["state"] == "running");
  CHECK(job["runner"] == "runner-a");
  CHECK(job["head_sha"] == fake_sha(1));
  CHECK(job["delivery_id"] == "delivery-1");
  // Read at once, before the counts' deferred signal: counted afresh.
  uint32_t running = 0;
  REQUIRE_FALSE(client.count("Queued", &queued));
  REQUIRE_FALSE(client.count("Running", &running));
  CHECK(queued == 0);
  CHECK(running == 1);
  REQUIRE(client.wait_for([&] { return has_signal(client, "JobStarted", id, "runner-a"); }));

  int64_t expires = 0;
  REQUIRE_FALSE(client.heartbeat(id, "runner-a", &expires));
  CHECK(expires >= job["lease_expires"].get<int64_t>());

  // The job object is on the bus and `busctl tree` lists it.
  std::string tree;
  REQUIRE(run_shell("DBUS_SYSTEM_BUS_ADDRESS='" + q.address() + "' busctl --system tree org.benchbox.Queue1", &tree) == 0);
  CHECK(tree.find("/org/benchbox/Queue1/job/" + std::to_string(id)) != std::string::npos);
  std::string state;
  REQUIRE(run_shell("DBUS_SYSTEM_BUS_ADDRESS='" + q.address() +
                        "' busctl --system get-property org.benchbox.Queue1 /org/benchbox/Queue1/job/" +
                        std::to_string(id) + " org.benchbox.Queue1.Job State",
                    &state) == 0);
  CHECK(state == "s \"running\"\n");

  REQUIRE_FALSE(client.complete(id, "runner-a", "/var/lib/benchbox/results/1.json"));
  REQUIRE(client.wait_for([&] { return has_signal(client, "JobFinished", id, "done"); }));
  auto finished = std::find_if(client.signals().begin(), client.signals().end(),
                               [&](const QueueSignal& s) { return s.member == "JobFinished"; });
  CHECK(finished->result_path == "/var/lib/benchbox/results/1.json");
  REQUIRE(client.wait_for([&] { return properties_changed(client, "Done"); }));
  CHECK(client.count_signals("JobQueued", id) == 1);

  json got;
  REQUIRE_FALSE(client.get(id, &got));
  CHECK(got["state"] == "done");
  CHECK(got["result_path"] == "/var/lib/benchbox/results/1.json");
  uint32_t done = 0;
  REQUIRE_FALSE(client.count("Done", &done));
  CHECK(done == 1);
  std::vector<json> jobs;
  REQUIRE_FALSE(client.list("done", 0, &jobs));
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]["id"] == id);

  // Nothing left: id 0 and an empty dict.
  int64_t none = -1;
  json empty;
  REQUIRE_FALSE(client.claim("runner-a", 30, &none, &empty));
  CHECK(none == 0);
  CHECK(empty.empty());

  // SIGTERM exits cleanly and a restart serves the same job.
  CHECK(q.terminate() == 0);
  q.start_and_wait();
  QueueClient after(q.address());
  REQUIRE_FALSE(after.get(id, &got));
  CHECK(got["state"] == "done");
}

TEST_CASE("errors over the bus name what is wrong", "[queued]") {
  QueuedFixture q;
  q.start_and_wait();
  QueueClient client(q.address());
  int64_t id = 0;
  bool created = false;

  auto bad_sha = push_spec(1);
  bad_sha["head_sha"] = "main";
  auto e = client.enqueue(bad_sha, &id, &created);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");
  CHECK(e.message.find("head_sha 'main'") != std::string::npos);

  auto no_url = push_spec(1);
  no_url.erase("clone_url");
  e = client.enqueue(no_url, &id, &created);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");
  CHECK(e.message.find("clone_url") != std::string::npos);

  auto typo = push_spec(1);
  typo["head_shaa"] = fake_sha(1);
  e = client.enqueue(typo, &id, &created);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");
  CHECK(e.message.find("'head_shaa'") != std::string::npos);

  auto wrong_type = push_spec(1);
  wrong_type["priority"] = "high";
  e = client.enqueue(wrong_type, &id, &created);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");
  CHECK(e.message.find("priority") != std::string::npos);

  json job;
  e = client.get(4242, &job);
  CHECK(e.name == "org.benchbox.Error.NotFound");
  CHECK(e.message == "no job 4242");

  REQUIRE_FALSE(client.enqueue(push_spec(2), &id, &created));
  e = client.complete(id, "runner-a", "/x");
  CHECK(e.name == "org.benchbox.Error.Conflict");
  CHECK(e.message.find("queued, not running") != std::string::npos);

  std::vector<json> jobs;
  e = client.list("sleeping", 0, &jobs);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");

  e = client.claim("", 30, &id, &job);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");

  // Cancel a running job: its runner hears Cancelled at the next heartbeat.
  int64_t claimed = 0;
  REQUIRE_FALSE(client.claim("runner-a", 30, &claimed, &job));
  REQUIRE(claimed == id);
  client.watch_signals();
  REQUIRE_FALSE(client.cancel(id, "operator: wrong commit"));
  REQUIRE(client.wait_for([&] { return has_signal(client, "JobFinished", id, "cancelled"); }));
  e = client.heartbeat(id, "runner-a", nullptr);
  CHECK(e.name == "org.benchbox.Error.Cancelled");
  CHECK(e.message.find("operator: wrong commit") != std::string::npos);
  e = client.cancel(id, "again");
  CHECK(e.name == "org.benchbox.Error.Conflict");
  CHECK(q.process().running());
}

TEST_CASE("Enqueues sent together are each answered as if alone", "[queued][batch]") {
  QueuedFixture q;
  q.start_and_wait();
  QueueClient client(q.address());
  client.watch_signals();

  // 120 calls before any answer (the bus allows 128 pending replies a
  // connection): queued reads them as they come and
  // commits those that arrived together in one transaction. Among them
  // every fifth repeats an earlier call's work, every seventh is invalid.
  std::vector<json> specs;
  for (uint64_t i = 0; i < 120; ++i) {
    json spec = push_spec(i % 5 == 4 ? i - 2 : i, "together-" + std::to_string(i));
    if (i % 7 == 6) spec["head_sha"] = "not-a-sha";
    specs.push_back(spec);
  }
  auto answers = client.enqueue_together(specs);
  REQUIRE(answers.size() == specs.size());
  std::map<std::string, int64_t> job_of_sha;
  std::set<int64_t> created;
  for (size_t i = 0; i < specs.size(); ++i) {
    INFO("call " << i);
    if (i % 7 == 6) {
      CHECK(answers[i].error.name == "org.freedesktop.DBus.Error.InvalidArgs");
      continue;
    }
    INFO(answers[i].error.name << ": " << answers[i].error.message);
    REQUIRE_FALSE(answers[i].error);
    const std::string sha = specs[i]["head_sha"];
    auto [first, fresh] = job_of_sha.emplace(sha, answers[i].id);
    // The first call of a commit makes its job; the one repeating it gets it.
    CHECK(answers[i].created == fresh);
    CHECK(answers[i].id == first->second);
    if (answers[i].created) CHECK(created.insert(answers[i].id).second);
    json job;
    REQUIRE_FALSE(client.get(answers[i].id, &job));
    CHECK(job["head_sha"] == sha);
  }
  uint32_t queued = 0;
  REQUIRE_FALSE(client.count("Queued", &queued));
  CHECK(queued == created.size());
  for (int64_t id : created)
    CHECK(client.wait_for([&] { return has_signal(client, "JobQueued", id, "octo/widgets"); }));
  CHECK(client.count_signals("JobQueued", 0) == 0);
}

TEST_CASE("pull request records round-trip", "[queued][pr]") {
  QueuedFixture q;
  q.start_and_wait();
  QueueClient client(q.address());
  json pr = {{"repository", "octo/widgets"}, {"number", int64_t{7}},  {"head_sha", fake_sha(7)},
             {"head_ref", "feature"},        {"base_ref", "main"},     {"base_sha", fake_sha(1)},
             {"state", "open"},              {"clone_url", "https://example.invalid/octo/widgets.git"}};
  REQUIRE_FALSE(client.record_pull_request(pr));
  pr["head_sha"] = fake_sha(8);
  REQUIRE_FALSE(client.record_pull_request(pr));
  json got;
  REQUIRE_FALSE(client.get_pull_request("octo/widgets", 7, &got));
  CHECK(got["head_sha"] == fake_sha(8));
  CHECK(got["base_sha"] == fake_sha(1));
  CHECK(got["state"] == "open");
  CHECK(got["updated"].get<int64_t>() > 0);

  auto e = client.get_pull_request("octo/widgets", 8, &got);
  CHECK(e.name == "org.benchbox.Error.NotFound");
  pr["state"] = "merged";
  e = client.record_pull_request(pr);
  CHECK(e.name == "org.freedesktop.DBus.Error.InvalidArgs");
  CHECK(e.message.find("'merged'") != std::string::npos);
}

TEST_CASE("an expired lease requeues the job, then fails it after max_attempts", "[queued][lease]") {
  QueuedFixture q("  lease_seconds: 1\n  max_attempts: 2\n");
  q.start_and_wait();
  QueueClient client(q.address());
  client.watch_signals();
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(client.enqueue(push_spec(1), &id, &created));
  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(client.claim("runner-a", 0, &claimed, &job));  // 0 = queue.lease_seconds
  REQUIRE(claimed == id);

  // No heartbeat: the daemon's timer requeues it and says so.
  REQUIRE(client.wait_for([&] { return client.count_signals("JobQueued", id) == 2; }));
  REQUIRE_FALSE(client.get(id, &job));
  CHECK(job["state"] == "queued");
  CHECK(job["attempts"] == 1);
  CHECK(job["error"].get<std::string>().find("runner-a") != std::string::npos);
  auto e = client.heartbeat(id, "runner-a", nullptr);
  CHECK(e.name == "org.benchbox.Error.Conflict");

  REQUIRE_FALSE(client.claim("runner-b", 1, &claimed, &job));
  REQUIRE(claimed == id);
  REQUIRE(client.wait_for([&] { return has_signal(client, "JobFinished", id, "failed"); }));
  REQUIRE_FALSE(client.get(id, &job));
  CHECK(job["state"] == "failed");
  CHECK(job["error"].get<std::string>().find("max_attempts=2") != std::string::npos);
}

TEST_CASE("a corrupt queue database stops queued with a clear message", "[queued][errors]") {
  QueuedFixture q;
  REQUIRE(bb::test::run_shell("mkdir -p '" + q.dir().path() + "/state' && head -c 8192 /dev/urandom > '" +
                              q.database() + "'") == 0);
  q.start();
  REQUIRE(wait_until([&] { return !q.process().running(); }));
  CHECK(q.terminate() == 1);
  CHECK(q.log().find("cannot open the queue") != std::string::npos);
  CHECK(q.log().find(q.database()) != std::string::npos);
  CHECK(q.log().find("not a database") != std::string::npos);
}

TEST_CASE("a full disk answers Error.IO and loses nothing acknowledged", "[queued][errors]") {
  // RLIMIT_FSIZE makes writes past the cap fail the way a full disk does
  // (SQLite sees EFBIG and reports an I/O error). SIGXFSZ is ignored here so
  // the daemon inherits that and gets the error instead of dying.
  std::signal(SIGXFSZ, SIG_IGN);
  QueuedFixture q;
  q.start_and_wait({"/usr/bin/prlimit", "--fsize=196608", "--"});
  QueueClient client(q.address());

  std::vector<std::pair<int64_t, std::string>> acked;
  CallError error;
  std::string failed_delivery;
  for (uint64_t n = 1; n <= 2000 && !error; ++n) {
    std::string delivery = "disk-" + std::to_string(n);
    int64_t id = 0;
    bool created = false;
    error = client.enqueue(push_spec(n, delivery), &id, &created);
    if (!error) acked.emplace_back(id, delivery);
    else failed_delivery = delivery;
  }
  INFO("queued log:\n" << q.log());
  REQUIRE(error);
  CHECK(error.name == "org.benchbox.Error.IO");
  CHECK(error.message.find(q.database()) != std::string::npos);
  CHECK(error.message.find("nothing from this request was stored") != std::string::npos);
  REQUIRE_FALSE(acked.empty());
  // Still serving what it has.
  CHECK(q.process().running());
  json job;
  REQUIRE_FALSE(client.get(acked.back().first, &job));
  CHECK(job["delivery_id"] == acked.back().second);

  // With room again, everything acknowledged is there and the refused
  // delivery is new.
  REQUIRE(q.terminate() == 0);
  q.start_and_wait();
  QueueClient after(q.address());
  for (const auto& [id, delivery] : acked) {
    REQUIRE_FALSE(after.get(id, &job));
    CHECK(job["delivery_id"] == delivery);
  }
  std::vector<json> all;
  REQUIRE_FALSE(after.list("", 0, &all));
  CHECK(all.size() == acked.size());
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(after.enqueue(push_spec(5000, failed_delivery), &id, &created));
  CHECK(created);
}

TEST_CASE("SIGHUP reloads the queue settings without a restart", "[queued][reload]") {
  QueuedFixture q("  lease_seconds: 600\n");
  q.start_and_wait();
  QueueClient client(q.address());
  int64_t id = 0, claimed = 0;
  bool created = false;
  json job;
  REQUIRE_FALSE(client.enqueue(push_spec(1), &id, &created));
  REQUIRE_FALSE(client.claim("runner-a", 0, &claimed, &job));
  CHECK(job["lease_expires"].get<int64_t>() - job["started"].get<int64_t>() == 600);

  {
    std::ofstream cfg(q.config_path());
    cfg << "state_dir: " << (q.dir() / "state") << "\nqueue:\n  lease_seconds: 45\n";
  }
  ::kill(q.process().pid(), SIGHUP);
  // The reload is asynchronous: claim fresh jobs until one gets the new lease.
  uint64_t n = 2;
  bool reloaded = wait_until([&] {
    if (client.enqueue(push_spec(n++), &id, &created)) return false;
    if (client.claim("runner-a", 0, &claimed, &job) || claimed == 0) return false;
    return job["lease_expires"].get<int64_t>() - job["started"].get<int64_t>() == 45;
  });
  INFO("queued log:\n" << q.log());
  CHECK(reloaded);
  CHECK(q.log().find("configuration reloaded") != std::string::npos);
  CHECK(q.process().running());

  // A broken config keeps the old settings and the daemon running.
  {
    std::ofstream cfg(q.config_path());
    cfg << "queue:\n  lease_seconds: [not, a, number]\n";
  }
  ::kill(q.process().pid(), SIGHUP);
  REQUIRE(wait_until([&] { return q.log().find("keeping the old configuration") != std::string::npos; }));
  CHECK(q.log().find("lease_seconds") != std::string::npos);
  REQUIRE_FALSE(client.enqueue(push_spec(1000), &id, &created));
  REQUIRE_FALSE(client.claim("runner-a", 0, &claimed, &job));
  CHECK(job["lease_expires"].get<int64_t>() - job["started"].get<int64_t>() == 45);
}
