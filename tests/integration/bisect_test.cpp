// Confirm before alerting, then bisect: a real benchbox-queued and
// benchbox-reporterd with the fake GitHub; the test plays the runner,
// answering each compare job as a box would where commit `culprit` made
// the benchmark slower.
#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <map>

#include "bisect_answers.h"
#include "notify/notification.h"
#include "notify/test_receiver.h"
#include "reporterd_fixture.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// o/r's events go to a generic webhook on `r` (its key written once the
// fixture's credentials directory exists: notify_key()).
std::string webhook_to(const Receiver& r) {
  return "repositories:\n  - name: o/r\n    notify:\n      - kind: webhook\n        url: " + r.url("/hook") +
         "\n        secret: notify-o-r\n";
}

void notify_key(ReporterFixture& s) { std::ofstream(s.dir / "creds/notify-o-r") << "hook-key\n"; }

// The events the webhook received so far, in order.
std::vector<std::string> events_told(Receiver& r, std::vector<std::string>& so_far) {
  for (const auto& req : r.requests()) so_far.push_back(req.head().field(notify::kEventHeader));
  return so_far;
}

}  // namespace

TEST_CASE("a regression is confirmed before it is filed, then bisected to its first bad commit") {
  Receiver hook(http_response(200));
  ReporterFixture s(webhook_to(hook));
  notify_key(s);
  std::vector<std::string> told;
  const History h{16, 9};
  const int64_t good = s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  REQUIRE(wait_until([&] { return s.reported(good); }));
  // One push carries 16 commits; its tip is slower.
  const int64_t bad = s.run_job(push_spec(fake_sha(26)), push_result(fake_sha(26), 0.110, 26));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(bad); }));

  // Not filed yet: a confirmation job is queued instead, in a bisection group.
  json confirm = claim_next(s);
  REQUIRE(confirm.is_object());
  CHECK(confirm["kind"] == "compare");
  CHECK(confirm["base_sha"] == fake_sha(10));
  CHECK(confirm["head_sha"] == fake_sha(26));
  CHECK(confirm["group_id"].get<int64_t>() > 0);
  CHECK(s.github->issues().empty());
  CHECK(events_told(hook, told).empty());  // nobody is told before it is confirmed
  answer(s, confirm, h);

  // Confirmed: filed. Then each step, until the culprit is named.
  REQUIRE(wait_until([&] { return s.github->issues().size() == 1; }));
  CHECK(s.github->issues()[0]["body"].get<std::string>().find("**Confirmed**") != std::string::npos);
  const int steps = answer_until(
      s,
      [&] { return s.github->issues()[0]["body"].get<std::string>().find("**First bad commit:**") != std::string::npos; },
      [&](const json& job) {
        CHECK(job["kind"] == "compare");
        CHECK(job["group_id"] == confirm["group_id"]);
        CHECK(job["threshold"].get<double>() > 0.02);  // half the confirmed 10 %
        answer(s, job, h);
      });
  CHECK(steps >= 4);
  CHECK(steps <= 6);  // log2(16) and the range's end against the culprit
  CHECK_FALSE(claim_next(s, 2).is_object());  // nothing once it is named
  const std::string body = s.github->issues()[0]["body"];
  INFO(body);
  CHECK(body.find("**First bad commit:** `" + fake_sha(19) + "` Unroll the loop (#42) (Dev 9 <dev@example.org>), "
                  "pull request #42") != std::string::npos);
  CHECK(body.find("| step | commit |") != std::string::npos);
  CHECK(s.github->issues().size() == 1);  // updated in place
  // The group on the bus says where it ended; none of its jobs has a check run.
  json group;
  REQUIRE(wait_until([&] {
    std::string out;
    run_shell("busctl --address=" + s.bus.address() +
                  " --json=short call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 GetGroup x " +
                  std::to_string(confirm["group_id"].get<int64_t>()),
              &out);
    group = json::parse(out, nullptr, false);
    return group.is_object() && group.dump().find("first bad commit") != std::string::npos;
  }));
  CHECK(group.dump().find("\"bisect\"") != std::string::npos);
  CHECK(s.check_run(confirm["id"].get<int64_t>()).empty());
  // The push that found it hears what came of it, on its own check run.
  REQUIRE(wait_until([&] {
    return s.check_run(bad).dump().find("What came of it") != std::string::npos;
  }));
  const std::string pushed = s.check_run(bad).dump();
  CHECK(pushed.find("First bad commit:** `" + fake_sha(19)) != std::string::npos);
  // Its maintainers were told twice: confirmed, then the culprit.
  REQUIRE(wait_until([&] { return events_told(hook, told).size() >= 2; }));
  CHECK(told == std::vector<std::string>{"regression_confirmed", "culprit_named"});
}

TEST_CASE("a false alarm the confirmation refutes is never filed, and says why") {
  Receiver hook(http_response(200));
  ReporterFixture s(webhook_to(hook));
  notify_key(s);
  const History h{3, 2};
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  const int64_t bad = s.run_job(push_spec(fake_sha(13)), push_result(fake_sha(13), 0.110, 13));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(bad); }));
  json confirm = claim_next(s);
  REQUIRE(confirm.is_object());
  answer(s, confirm, h, /*same=*/true);
  REQUIRE(wait_until([&] { return s.reported(confirm["id"].get<int64_t>()); }));
  REQUIRE(wait_until([&] { return s.logs().find("not confirmed") != std::string::npos; }));
  const std::string logs = s.logs();
  const std::string said = logs.substr(logs.find("not confirmed"), 200);
  INFO(said);
  CHECK(said.find("1.00× ± 0.00 more wall time [1.000, 1.000]") != std::string::npos);  // the interval that refuted it
  CHECK_FALSE(claim_next(s, 2).is_object());        // no bisection
  CHECK(s.github->issues().empty());
  CHECK(hook.requests().empty());  // nor told anywhere else
  // The compare job's report says so, and so does its page on the dashboard.
  const std::string id = std::to_string(confirm["id"].get<int64_t>());
  CHECK(slurp(s.report_path(confirm["id"].get<int64_t>())).find("**Not confirmed.** not confirmed:") != std::string::npos);
  const std::string page_data = slurp(s.dir / ("state/site/data/r/o/r/runs/" + id + ".js"));
  INFO(page_data.substr(0, 400));
  CHECK(page_data.find("\"state\":\"refuted\"") != std::string::npos);
}

TEST_CASE("a step whose commit does not build is skipped; reporterd restarted mid-bisection resumes") {
  ReporterFixture s;
  const History h{8, 7};
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  s.run_job(push_spec(fake_sha(18)), push_result(fake_sha(18), 0.110, 18));
  json confirm = claim_next(s);
  REQUIRE(confirm.is_object());
  answer(s, confirm, h);
  json first = claim_next(s);
  REQUIRE(first.is_object());
  // The first step's commit does not build.
  REQUIRE_FALSE(s.queue->fail(first["id"].get<int64_t>(), "test-runner", "build: make: *** [all] Error 2"));
  json second = claim_next(s);
  REQUIRE(second.is_object());
  CHECK(second["head_sha"] != first["head_sha"]);
  // reporterd goes away while the step runs, and comes back after it finished.
  s.reporterd.reset();
  answer(s, second, h);
  s.start_reporter();
  INFO(s.logs());
  answer_until(
      s,
      [&] {
        auto issues = s.github->issues();
        return issues.size() == 1 &&
               issues[0]["body"].get<std::string>().find("**First bad commit:** `" + fake_sha(17) + "`") != std::string::npos;
      },
      [&](const json& job) { answer(s, job, h); });
  const std::string body = s.github->issues()[0]["body"];
  CHECK(body.find("skipped: build: make") != std::string::npos);
}

TEST_CASE("when every commit next to the culprit fails to build, the range is narrowed, not guessed") {
  ReporterFixture s;
  const History h{8, 5};  // commit 15 is slower; 14, the first step, does not build
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  s.run_job(push_spec(fake_sha(18)), push_result(fake_sha(18), 0.110, 18));
  INFO(s.logs());
  answer_until(
      s,
      [&] {
        auto issues = s.github->issues();
        return issues.size() == 1 && issues[0]["body"].get<std::string>().find("**Bisection narrowed to") != std::string::npos;
      },
      [&](const json& job) {
        if (job["head_sha"] == fake_sha(14)) REQUIRE_FALSE(s.queue->fail(job["id"].get<int64_t>(), "test-runner", "build failed"));
        else answer(s, job, h);
      });
  const std::string body = s.github->issues()[0]["body"];
  INFO(body);
  CHECK(body.find("(2 commits)") != std::string::npos);
  CHECK(body.find("does not build") != std::string::npos);
  CHECK(body.find("**First bad commit:**") == std::string::npos);
}

TEST_CASE("a change too small to decide at a step is run once more, then reported with the narrowed range") {
  ReporterFixture s;
  const History h{8, 5};
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  s.run_job(push_spec(fake_sha(18)), push_result(fake_sha(18), 0.110, 18));
  INFO(s.logs());
  std::map<std::string, int> measured;
  answer_until(
      s,
      [&] {
        auto issues = s.github->issues();
        return issues.size() == 1 && issues[0]["body"].get<std::string>().find("too small to decide") != std::string::npos;
      },
      [&](const json& job) {
        ++measured[job["head_sha"].get<std::string>() + (job.value("threshold", 0.0) > 0 ? "" : " (confirmation)")];
        answer(s, job, h, false, /*too_small=*/true);
      });
  const std::string body = s.github->issues()[0]["body"];
  INFO(body);
  CHECK(body.find("**Bisection narrowed to") != std::string::npos);
  CHECK(body.find("inconclusive") != std::string::npos);
  // The undecided commit was measured twice, then no more.
  int twice = 0;
  for (const auto& [commit, n] : measured) twice += n == 2;
  CHECK(twice == 1);
}

TEST_CASE("benchboxctl bisect names the culprit on demand, printing each step") {
  ReporterFixture s;
  const History h{6, 4};
  // The history reporterd knows nothing about: an operator asks.
  Process ctl({build_path("cli/benchboxctl"), "bisect", "o/r", fake_sha(10), fake_sha(16), "--clone-url",
               "https://github.com/o/r.git", "--benchmark", "micro/loop"},
              daemon_env(s.bus.address()), s.dir / "bisect.log");
  INFO(s.logs());
  answer_until(s, [&] { return !ctl.running(); }, [&](const json& job) { answer(s, job, h); });
  const std::string out = ctl.log();
  INFO(out);
  CHECK(out.find("bisection 1: ") != std::string::npos);
  CHECK(out.find("confirmed: `micro/loop:wall_time` 1.10×") != std::string::npos);
  CHECK(out.find("step 1: ") != std::string::npos);
  CHECK(out.find("first bad commit: " + fake_sha(14)) != std::string::npos);
  CHECK(out.find("Unroll the loop (#42)") != std::string::npos);
  CHECK(s.github->issues().empty());  // an operator's bisection files nothing

  // Bad input is refused before anything is queued.
  std::string err;
  CHECK(run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + s.bus.address() + " " + build_path("cli/benchboxctl") +
                      " bisect o/r " + fake_sha(10) + " " + fake_sha(10) + " --clone-url x 2>&1",
                  &err) == 2);
  CHECK(err.find("the same commit") != std::string::npos);
  CHECK(run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + s.bus.address() + " " + build_path("cli/benchboxctl") +
                      " bisect o/r v1.0 " + fake_sha(10) + " --clone-url " + (s.dir / "no-such.git") + " 2>&1",
                  &err) == 2);
  CHECK(err.find("--git-dir") != std::string::npos);
}

TEST_CASE("a regression found while the box's canary has shifted is held, then confirmed once it is steady") {
  ReporterFixture s;
  INFO(s.logs());
  // The box slowed down: a competing load on the benchmark CPUs.
  const int64_t t0 = std::time(nullptr) - 3600;
  s.write_shifted_canary(t0, 1.25, 1.1);

  const History h{3, 2};
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  const int64_t bad = s.run_job(push_spec(fake_sha(13)), push_result(fake_sha(13), 0.110, 13));
  REQUIRE(wait_until([&] { return s.reported(bad); }));
  REQUIRE(wait_until([&] { return s.reporterd->log().find("held: the box is shifted") != std::string::npos; }));
  // Held: no confirmation is queued, nothing is filed.
  CHECK_FALSE(claim_next(s, 3).is_object());
  CHECK(s.github->issues().empty());

  // The load is gone: the canary is steady again, and the confirmation runs.
  s.write_canary(t0 + 360, 0.069, 0.166);
  s.write_canary(t0 + 420, 0.069, 0.166);
  s.restart_reporter();
  REQUIRE(s.box_health().find("steady") != std::string::npos);
  json confirm = claim_next(s);
  REQUIRE(confirm.is_object());
  CHECK(confirm["kind"] == "compare");
  CHECK(confirm["base_sha"] == fake_sha(10));
  CHECK(confirm["head_sha"] == fake_sha(13));
  CHECK(s.reporterd->log().find("released: the box is steady again") != std::string::npos);
  answer(s, confirm, h);
  // Still there once measured on a steady box: filed.
  REQUIRE(wait_until([&] { return s.github->issues().size() == 1; }));
  CHECK(s.github->issues()[0]["body"].get<std::string>().find("**Confirmed**") != std::string::npos);
}

TEST_CASE("a held regression a later push closes is never confirmed nor told") {
  ReporterFixture s;
  INFO(s.logs());
  const int64_t t0 = std::time(nullptr) - 3600;
  s.write_shifted_canary(t0, 1.25, 1);
  s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  const int64_t bad = s.run_job(push_spec(fake_sha(11)), push_result(fake_sha(11), 0.110, 11));
  REQUIRE(wait_until([&] { return s.reported(bad); }));
  REQUIRE(wait_until([&] { return s.reporterd->log().find("held: the box is shifted") != std::string::npos; }));
  // Back at its level while still held: the regression closes.
  const int64_t back = s.run_job(push_spec(fake_sha(12)), push_result(fake_sha(12), 0.100, 12));
  REQUIRE(wait_until([&] { return s.reported(back); }));
  s.write_canary(t0 + 360, 0.069, 0.166);
  s.write_canary(t0 + 420, 0.069, 0.166);
  s.restart_reporter();
  REQUIRE(s.box_health().find("steady") != std::string::npos);
  CHECK_FALSE(claim_next(s, 3).is_object());  // nothing to confirm
  CHECK(s.github->issues().empty());
  CHECK(s.reporterd->log().find("released") == std::string::npos);
}
