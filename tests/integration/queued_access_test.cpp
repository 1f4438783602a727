// Who may call what on Queue1, as benchbox-queued itself decides it: the
// bus here lets anyone do anything, so every refusal is the daemon's. Calls
// are made with busctl under setpriv, as another user; that needs root
// (CI runs as root).
#include <catch2/catch.hpp>
#include "skip.h"

#include <grp.h>
#include <unistd.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

constexpr uid_t kNobody = 65534;
// A user that the access section never names: "daemon" (uid 1), which every
// Debian has. (dbus-daemon turns away a uid without a passwd entry.)
constexpr uid_t kStranger = 1;

std::string queue_call(const QueuedFixture& q, const std::string& args) {
  return "busctl --address=" + q.address() + " call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 " +
         args;
}

const char* kCloneUrl = "https://example.invalid/octo/widgets.git";

std::string enqueue_args(int n) {
  return std::string("Enqueue a{sv} 5 kind s push repository s octo/widgets clone_url s ") + kCloneUrl +
         " ref s refs/heads/main head_sha s " + fake_sha(n);
}

json push_spec(int n) {
  return {{"kind", "push"}, {"repository", "octo/widgets"}, {"clone_url", kCloneUrl}, {"ref", "refs/heads/main"},
          {"head_sha", fake_sha(n)}};
}

bool denied(const std::string& out) { return out.find("Access denied") != std::string::npos; }

}  // namespace

TEST_CASE("queued lets each daemon's user call only its own methods", "[queued][access]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: cannot call as another user");
  }
  // webhookd is "nobody" here; runnerd's user does not exist (so grants
  // nothing); the operators are group "users", which every Debian has.
  struct group* users = ::getgrnam("users");
  REQUIRE(users != nullptr);
  const gid_t operators = users->gr_gid;
  const std::string webhook_is_nobody =
      "access:\n  webhook_user: nobody\n  runner_user: benchbox-test-no-such-user\n  admin_group: users\n";
  QueuedFixture q("", webhook_is_nobody);
  q.start_and_wait();
  QueueClient root(q.address());
  std::string out;

  // The webhook user enqueues...
  int rc = run_as(kNobody, kNobody, {}, queue_call(q, enqueue_args(1)), &out);
  INFO(out << "\nqueued log:\n" << q.log());
  REQUIRE(rc == 0);
  // ...and may do nothing a runner or an operator does.
  int64_t id = 0;
  REQUIRE(run_as(kNobody, kNobody, {}, queue_call(q, "Claim su runner-x 0"), &out) != 0);
  CHECK(denied(out));
  json job;
  REQUIRE_FALSE(root.claim("runner-a", 0, &id, &job));
  REQUIRE(id > 0);
  for (const std::string& call : {"Heartbeat xs " + std::to_string(id) + " runner-a",
                                  "Complete xss " + std::to_string(id) + " runner-a /tmp/forged.json",
                                  "Fail xss " + std::to_string(id) + " runner-a forged",
                                  "Cancel xs " + std::to_string(id) + " forged",
                                  // Groups are the operators' alone.
                                  std::string("EnqueueGroup a{sv}aa{sv} 2 kind s backfill repository s octo/widgets 0"),
                                  std::string("CancelGroup xs 1 forged")}) {
    CHECK(run_as(kNobody, kNobody, {}, queue_call(q, call), &out) != 0);
    CHECK(denied(out));
  }
  // A user with no rights at all cannot even enqueue.
  CHECK(run_as(kStranger, kStranger, {}, queue_call(q, enqueue_args(2)), &out) != 0);
  CHECK(denied(out));
  // Reads are for anyone.
  CHECK(run_as(kStranger, kStranger, {}, queue_call(q, "Get x " + std::to_string(id)), &out) == 0);
  // An operator is anyone in the admin group, whatever the uid.
  CHECK(run_as(kStranger, kStranger, {operators}, queue_call(q, enqueue_args(3)), &out) == 0);
  // busctl prints only "Access denied"; the daemon's journal line says who may.
  CHECK(q.log().find("refused a bus call: Claim is for root, group 'users' and user 'benchbox-test-no-such-user'; "
                     "the caller is uid 65534") != std::string::npos);
  CHECK(q.log().find("refused a bus call: Complete is for root") != std::string::npos);
  CHECK(q.log().find("refused a bus call: Enqueue is for root, group 'users', user 'nobody' and user 'benchbox-report'; the caller is uid 1") !=
        std::string::npos);
  // Nothing refused changed the job: still running, claimed by runner-a.
  json now;
  REQUIRE_FALSE(root.get(id, &now));
  CHECK(now["state"] == "running");
  CHECK(now["runner"] == "runner-a");

  // Now "nobody" is runnerd's user and no one is webhookd's.
  q.write_config("", "access:\n  webhook_user: benchbox-test-no-such-user\n  runner_user: nobody\n  admin_group: \"\"\n");
  ::kill(q.process().pid(), SIGHUP);
  REQUIRE(wait_until([&] { return q.log().find("configuration reloaded") != std::string::npos; }));
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, enqueue_args(4)), &out) != 0);
  CHECK(denied(out));
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "Heartbeat xs " + std::to_string(id) + " runner-a"), &out) == 0);
  // The runner may cancel a running job (its CancelCurrent), not a queued one.
  int64_t queued_id = 0;
  bool created = false;
  REQUIRE_FALSE(root.enqueue(push_spec(5), &queued_id, &created));
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "Cancel xs " + std::to_string(queued_id) + " forged"), &out) != 0);
  CHECK(denied(out));
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "Cancel xs " + std::to_string(id) + " operator-asked"), &out) == 0);
  REQUIRE_FALSE(root.get(id, &now));
  CHECK(now["state"] == "cancelled");
  REQUIRE_FALSE(root.get(queued_id, &now));
  CHECK(now["state"] == "queued");
  // With no operators' group, group "users" is nothing special any more.
  CHECK(run_as(kStranger, kStranger, {operators}, queue_call(q, "Cancel xs " + std::to_string(queued_id) + " x"), &out) !=
        0);
  CHECK(denied(out));
}

TEST_CASE("reporterd may queue a bisection's compare jobs and nothing else", "[queued][access]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: cannot call as another user");
  }
  QueuedFixture q("", "access:\n  reporter_user: nobody\n  webhook_user: benchbox-test-no-such-user\n");
  q.start_and_wait();
  std::string out;
  const std::string compare_spec = std::string("6 kind s compare repository s octo/widgets clone_url s ") + kCloneUrl +
                                   " ref s refs/heads/main head_sha s " + fake_sha(2) + " base_sha s " + fake_sha(1);
  // A bisection's group of compare jobs: yes.
  int rc = run_as(kNobody, kNobody, {},
                  queue_call(q, "EnqueueGroup a{sv}aa{sv} 2 kind s bisect repository s octo/widgets 1 " + compare_spec),
                  &out);
  INFO(out << "\n" << q.log());
  REQUIRE(rc == 0);
  CHECK(out.rfind("xa(xb) 1 1 ", 0) == 0);
  // Its next step into that group, and the group's step: yes.
  CHECK(run_as(kNobody, kNobody, {},
               queue_call(q, "Enqueue a{sv} 7 kind s compare repository s octo/widgets clone_url s " +
                                 std::string(kCloneUrl) + " ref s refs/heads/main head_sha s " + fake_sha(3) +
                                 " base_sha s " + fake_sha(1) + " group_id x 1"),
               &out) == 0);
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "SetGroupStep xs 1 'step 2'"), &out) == 0);
  // A push, a backfill group, a compare job outside a group, a cancel: no.
  for (const std::string& call :
       {enqueue_args(9), "EnqueueGroup a{sv}aa{sv} 2 kind s backfill repository s octo/widgets 1 " + compare_spec,
        "Enqueue a{sv} " + compare_spec, std::string("CancelGroup xs 1 x"), std::string("Claim su r 0")}) {
    INFO(call);
    CHECK(run_as(kNobody, kNobody, {}, queue_call(q, call), &out) != 0);
    CHECK(denied(out));
  }
  QueueClient root(q.address());
  std::vector<json> jobs;
  REQUIRE_FALSE(root.list("", 0, &jobs));
  CHECK(jobs.size() == 2);
}

TEST_CASE("runnerd may queue a suite's shards and no other group", "[queued][access]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: cannot call as another user");
  }
  QueuedFixture q("", "access:\n  runner_user: nobody\n  webhook_user: benchbox-test-no-such-user\n");
  q.start_and_wait();
  std::string out;
  auto shard = [](int i) {
    return std::string("9 kind s push repository s octo/widgets clone_url s ") + kCloneUrl +
           " ref s refs/heads/main head_sha s " + fake_sha(1) + " suite s micro shard x " + std::to_string(i) +
           " shards x 2 shard_benchmarks as 1 BM_" + std::to_string(i);
  };
  int rc = run_as(kNobody, kNobody, {},
                  queue_call(q, "EnqueueGroup a{sv}aa{sv} 3 kind s shards repository s octo/widgets skip_measured b "
                                "false 2 " + shard(1) + " " + shard(2)),
                  &out);
  INFO(out << "\n" << q.log());
  REQUIRE(rc == 0);
  CHECK(out.rfind("xa(xb) 1 2 ", 0) == 0);
  // A backfill or a bisection group, a plain Enqueue, cancelling a group: no.
  for (const std::string& call :
       {"EnqueueGroup a{sv}aa{sv} 2 kind s backfill repository s octo/widgets 1 " + enqueue_args(3).substr(14),
        "EnqueueGroup a{sv}aa{sv} 3 kind s bisect repository s octo/widgets skip_measured b false 2 " + shard(1) +
            " " + shard(2),
        enqueue_args(4), std::string("CancelGroup xs 1 x")}) {
    INFO(call);
    CHECK(run_as(kNobody, kNobody, {}, queue_call(q, call), &out) != 0);
    CHECK(denied(out));
  }
  QueueClient root(q.address());
  std::vector<json> jobs;
  REQUIRE_FALSE(root.list("", 0, &jobs));
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0]["shard_benchmarks"].size() == 1);
}

TEST_CASE("the shipped Queue1 policy refuses on the bus, before queued is asked", "[queued][access]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: cannot call as another user");
  }
  QueuedFixture q("", "", source_root() + "/policy/org.benchbox.Queue1.conf");
  q.start_and_wait();
  std::string out;
  for (const std::string& call : {enqueue_args(1), std::string("Claim su runner-x 0"), std::string("Cancel xs 1 x"),
                                  std::string("CancelGroup xs 1 x")}) {
    CHECK(run_as(kNobody, kNobody, {}, queue_call(q, call), &out) != 0);
    CHECK(denied(out));
  }
  CHECK(q.log().find("refused") == std::string::npos);  // the bus said no, not the daemon
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "List su \"\" 0"), &out) == 0);
  CHECK(run_as(kNobody, kNobody, {}, queue_call(q, "ListGroups u 0"), &out) == 0);
  QueueClient root(q.address());
  int64_t id = 0;
  bool created = false;
  CHECK_FALSE(root.enqueue(push_spec(9), &id, &created));
}
