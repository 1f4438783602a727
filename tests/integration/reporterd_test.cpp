// benchbox-reporterd with a real queue and a local fake of GitHub's API: the
// test plays the runner (claims jobs, writes result files, completes them)
// and checks the reports, the check runs' life cycle, the sticky comment
// and the regression issue.
#include <catch2/catch.hpp>
#include "skip.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "reporterd_fixture.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

model::JobResult pr_result(const std::string& base, double base_s, const std::string& head, double head_s) {
  model::JobResult jr;
  jr.kind = "pull_request";
  jr.base = result_set(base, base_s, "base");
  jr.head = result_set(head, head_s, "head");
  jr.head.ref = "refs/pull/3/head";
  return jr;
}

// The statuses a check run went through, from the requests the fake saw.
std::vector<std::string> statuses(github_api::FakeGitHub& gh, const std::string& external_id) {
  std::vector<std::string> out;
  for (const auto& r : gh.requests()) {
    if (r.path.find("/check-runs") == std::string::npos || r.status / 100 != 2 || r.method == "GET") continue;
    auto body = json::parse(r.body, nullptr, false);
    if (!body.is_object()) continue;
    if (r.method == "POST" && body.value("external_id", "") != external_id) continue;
    if (body.contains("status")) out.push_back(body["status"]);
  }
  return out;
}

}  // namespace

TEST_CASE("a check run goes queued, in_progress, completed; a PR's sticky comment is edited in place") {
  ReporterFixture s;
  const std::string base = fake_sha(1), head = fake_sha(2), head2 = fake_sha(3);
  const int64_t id = s.enqueue(pr_spec(head));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "queued"; }));
  CHECK(s.check_run(id)["head_sha"] == head);
  CHECK(s.check_run(id)["details_url"] == "https://bench.example.org/r/o/r/runs/" + std::to_string(id) + ".html");
  s.claim(id);
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "in_progress"; }));
  s.complete(id, pr_result(base, 0.100, head, 0.115));
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }));
  const json run = s.check_run(id);
  CHECK(run["conclusion"] == "failure");
  CHECK(run["output"]["title"] == "benchbox: regressed");
  CHECK(run["output"]["summary"].get<std::string>().find("Overall: regressed") != std::string::npos);
  // One run, created once and edited: never a second one for the same job.
  CHECK(s.github->check_runs().size() == 1);
  CHECK(statuses(*s.github, std::to_string(id)) == std::vector<std::string>{"queued", "in_progress", "completed"});
  REQUIRE(wait_until([&] { return s.github->comments("o/r", 3).size() == 1; }));
  REQUIRE(wait_until([&] { return s.reported(id); }));  // written after the wants
  CHECK(slurp(s.report_path(id)).find("Overall: regressed") != std::string::npos);
  const json comment = s.github->comments("o/r", 3)[0];
  CHECK(comment["body"].get<std::string>().find("Overall: regressed") != std::string::npos);

  // The PR is fixed: the same comment is edited, not a second one added,
  // although "unchanged" alone would not have made one.
  const int64_t id2 = s.run_job(pr_spec(head2), pr_result(base, 0.100, head2, 0.100));
  REQUIRE(wait_until([&] { return s.check_run(id2).value("status", "") == "completed"; }));
  REQUIRE(wait_until([&] {
    auto c = s.github->comments("o/r", 3);
    return c.size() == 1 && c[0]["body"].get<std::string>().find("Overall: unchanged") != std::string::npos;
  }));
  CHECK(s.github->comments("o/r", 3)[0]["id"] == comment["id"]);
  CHECK(s.check_run(id2)["conclusion"] == "success");
  CHECK(s.github->issues().empty());

  // The sizes benchboxctl status shows. The outbox empties once the poster
  // has recorded GitHub's answer, a moment after the fake has the edit.
  std::string out;
  CHECK(wait_until([&] {
    return run_shell("busctl --address=" + s.bus.address() +
                         " get-property org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1"
                         " HistoryBytes SiteBytes OutboxPending",
                     &out) == 0 &&
           out.find("u 0") != std::string::npos;
  }));
  CHECK(out.find("t 0\n") == std::string::npos);
}

TEST_CASE("a PR with nothing to say gets no comment by default") {
  ReporterFixture s;
  const int64_t id = s.run_job(pr_spec(fake_sha(2), 5), pr_result(fake_sha(1), 0.100, fake_sha(2), 0.100));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }));
  CHECK(s.check_run(id)["conclusion"] == "success");
  CHECK(s.github->comments("o/r", 5).empty());
}

TEST_CASE("Ingest is for operators, Report for anyone", "[root]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: cannot call as another user");
  }
  ReporterFixture s;
  const int64_t id = s.run_job(pr_spec(fake_sha(2)), pr_result(fake_sha(1), 0.100, fake_sha(2), 0.100));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(id); }));
  const std::string call = "busctl --address=" + s.bus.address() +
                           " call org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 ";
  std::string out;
  CHECK(run_as_nobody(call + "Ingest x " + std::to_string(id), &out) != 0);
  CHECK(out.find("Access denied") != std::string::npos);
  CHECK(slurp(s.dir / "reporterd.log").find("refused a bus call: Ingest is for root") != std::string::npos);
  CHECK(run_as_nobody(call + "Report x " + std::to_string(id), &out) == 0);
  CHECK(out.find("Overall") != std::string::npos);
  CHECK(run_shell(call + "Ingest x " + std::to_string(id) + " >/dev/null 2>&1") == 0);  // root may
}

TEST_CASE("a main-branch regression is one issue, updated while it lasts and closed when it is gone") {
  // Filed at once: confirmation and bisection have their own test (bisect_test.cpp).
  ReporterFixture s("  confirm_regressions: false\n");
  const int64_t a = s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(a); }));
  CHECK(slurp(s.report_path(a)).find("First run") != std::string::npos);

  const int64_t b = s.run_job(push_spec(fake_sha(11)), push_result(fake_sha(11), 0.120, 11));
  REQUIRE(wait_until([&] { return s.github->issues().size() == 1; }));
  // The issue is wanted before the report is written (report.json last):
  // wait for the file, not the issue, before reading it.
  REQUIRE(wait_until([&] { return s.reported(b); }));
  // Measured alone, against job a's run: the report holds the change for a
  // confirmation (this box files at once: confirm_regressions is off).
  CHECK(slurp(s.report_path(b)).find("Overall: inconclusive") != std::string::npos);
  CHECK(slurp(s.report_path(b)).find("❔ regressed? (across jobs: unconfirmed)") != std::string::npos);
  json issue = s.github->issues()[0];
  CHECK(issue["state"] == "open");
  const std::string title = issue["title"], body = issue["body"];
  INFO(body);
  CHECK(title.find("`micro/loop:wall_time` 1.20×") != std::string::npos);
  CHECK(body.find("**Last good:** `" + fake_sha(10) + "`") != std::string::npos);
  CHECK(body.find("**First bad:** `" + fake_sha(11) + "`") != std::string::npos);
  CHECK(body.find("more wall time") != std::string::npos);
  CHECK(body.find("[trend](https://bench.example.org/r/o/r/t/") != std::string::npos);
  CHECK(body.find("Reproduce locally") != std::string::npos);

  // Still slow: the same issue is updated, not a second one opened.
  const int64_t c = s.run_job(push_spec(fake_sha(12)), push_result(fake_sha(12), 0.120, 12));
  REQUIRE(wait_until([&] {
    auto list = s.github->issues();
    return list.size() == 1 && list[0]["body"].get<std::string>().find("(job " + std::to_string(c) + ")") !=
                                   std::string::npos;
  }));
  CHECK(s.github->issues()[0]["state"] == "open");

  // Back to the last good level: a comment names the commit, and the issue closes.
  const int64_t d = s.run_job(push_spec(fake_sha(13)), push_result(fake_sha(13), 0.100, 13));
  REQUIRE(wait_until([&] { return s.github->issues()[0]["state"] == "closed"; }));
  const auto number = s.github->issues()[0]["number"].get<int64_t>();
  auto comments = s.github->comments("o/r", number);
  REQUIRE(comments.size() == 1);
  CHECK(comments[0]["body"].get<std::string>().find(fake_sha(13)) != std::string::npos);
  CHECK(s.github->issues().size() == 1);
  (void)d;

  // A failed job: reported as failed with its reason, never as success.
  const int64_t id = s.enqueue(push_spec(fake_sha(14)));
  s.claim(id);
  REQUIRE_FALSE(s.queue->fail(id, "test-runner", ".benchbox.yml:4:12: suites[0].timeout: expected a non-negative integer"));
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }));
  REQUIRE(wait_until([&] { return s.reported(id); }));
  CHECK(slurp(s.report_path(id)).find(".benchbox.yml:4:12") != std::string::npos);
  CHECK(s.check_run(id)["conclusion"] == "failure");
}

TEST_CASE("a job that fails as soon as it starts is reported once") {
  ReporterFixture s;
  // Started and failed back to back: JobStarted's Get may already see the
  // job failed, and JobFinished asks again.
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    const int64_t id = s.enqueue(push_spec(fake_sha(20 + i)));
    s.claim(id);
    REQUIRE_FALSE(s.queue->fail(id, "test-runner", "fetch failed: no route to host"));
    ids.push_back(id);
  }
  INFO(s.logs());
  for (int64_t id : ids) REQUIRE(wait_until([&] { return s.reported(id); }));
  // Any second report would have come right behind the first.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::string log = s.reporterd->log();
  for (int64_t id : ids) {
    size_t lines = 0;
    for (size_t at = log.find("VERDICT=failed"); at != std::string::npos; at = log.find("VERDICT=failed", at + 1)) {
      const size_t begin = log.rfind('\n', at) + 1;
      if (log.substr(begin, at - begin).find("JOB_ID=" + std::to_string(id) + " ") != std::string::npos) ++lines;
    }
    CHECK(lines == 1);
  }
}

TEST_CASE("a backfill's jobs post no check run, and an old regression opens no issue") {
  ReporterFixture s;
  const int64_t now = s.run_job(push_spec(fake_sha(30)), push_result(fake_sha(30), 0.100, 30));
  REQUIRE(wait_until([&] { return s.reported(now); }));
  // Two older commits, measured afterwards as one backfill group: the
  // second is 20 % slower than the first, long ago.
  int64_t group = 0;
  std::vector<int64_t> ids;
  std::vector<json> specs{push_spec(fake_sha(10)), push_spec(fake_sha(11))};
  for (auto& spec : specs) spec.erase("delivery_id");  // the box's own jobs, not GitHub's
  auto e = s.queue->enqueue_group({{"kind", "backfill"}, {"repository", "o/r"}, {"description", "test"}}, specs,
                                  &group, &ids);
  INFO(e.name << ": " << e.message);
  REQUIRE_FALSE(e);
  REQUIRE(group > 0);
  REQUIRE(ids.size() == 2);
  s.claim(ids[0]);
  s.complete(ids[0], push_result(fake_sha(10), 0.100, 10));
  s.claim(ids[1]);
  s.complete(ids[1], push_result(fake_sha(11), 0.120, 11));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(ids[1]); }));
  // The old step is in the report (against the run before it in
  // first-parent order), but GitHub hears nothing of it.
  CHECK(slurp(s.report_path(ids[1])).find("❔ regressed? (across jobs: unconfirmed)") != std::string::npos);
  CHECK(s.check_run(ids[0]).empty());
  CHECK(s.check_run(ids[1]).empty());
  CHECK(s.check_run(now)["conclusion"] == "success");
  CHECK(s.github->issues().empty());
  CHECK(s.logs().find("a backfilled commit: the branch's regression stays as it is") != std::string::npos);
}

TEST_CASE("a step on the main branch is reported as a change point with its commit range") {
  ReporterFixture s("  regression_issues: false\n");
  // Ten pushes at 100 ms, then ten at 112 ms, each run a little off its level.
  int64_t last = 0;
  std::vector<int64_t> jobs;
  for (int i = 0; i < 20; ++i) {
    const double level = (i < 10 ? 0.100 : 0.112) * (1 + 0.002 * ((i * 7) % 5 - 2));
    last = s.run_job(push_spec(fake_sha(30 + i)), push_result(fake_sha(30 + i), level, 100 + i));
    jobs.push_back(last);
    REQUIRE(wait_until([&] { return s.reported(last); }));
  }
  INFO(s.logs());
  // A push within eight runs of the step says so in its report, from the
  // window its trend was drawn with (the fourth after the step is the first
  // whose window shows it, as when the report read history); a push before
  // the step does not, nor the last, further on.
  const std::string range = "`" + fake_sha(39).substr(0, 12) + ".." + fake_sha(40).substr(0, 12) + "`";
  const std::string near = slurp(s.report_path(jobs[13]));
  INFO(near);
  CHECK(near.find("### Change points on refs/heads/main") != std::string::npos);
  CHECK(near.find(range) != std::string::npos);
  CHECK(slurp(s.report_path(jobs[9])).find("### Change points") == std::string::npos);
  CHECK(slurp(s.report_path(jobs[19])).find("### Change points") == std::string::npos);
  // The trend marks it, in its recent file (docs/dashboard.md).
  std::string sid;
  REQUIRE(run_shell("cd " + (s.dir / "state/site/data/r/o/r/s") + " && grep -l 'micro/loop:wall_time' *.js | grep -v '\\.[0-9]*\\.js$' | head -1 | tr -d '\\n'", &sid) == 0);
  auto data = [](const std::string& text) { return json::parse(text.substr(text.find(", ") + 2, text.rfind(");") - text.find(", ") - 2)); };
  const json series = data(slurp(s.dir / ("state/site/data/r/o/r/s/" + sid)));
  const json recent = data(slurp(s.dir / ("state/site/" + series["recent"]["src"].get<std::string>())));
  const std::string changes = recent["series"][series["id"].get<std::string>()]["change_points"].dump();
  INFO(changes);
  CHECK(changes.find("\"commit_before\":\"" + fake_sha(39) + "\"") != std::string::npos);
  CHECK(changes.find("\"commit_after\":\"" + fake_sha(40) + "\"") != std::string::npos);
  CHECK(s.github->issues().empty());  // regression_issues: false
}

TEST_CASE("jobs that change while the reporter is down are caught up, a cancelled one as cancelled") {
  ReporterFixture s;
  REQUIRE(s.reporterd->terminate() == 0);
  const int64_t done = s.run_job(push_spec(fake_sha(20)), push_result(fake_sha(20), 0.1, 20));
  const int64_t cancelled = s.enqueue(push_spec(fake_sha(21)));
  REQUIRE_FALSE(s.queue->cancel(cancelled, "superseded by a newer push"));
  const int64_t waiting = s.enqueue(push_spec(fake_sha(22)));
  s.start_reporter();
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(done) && s.reported(cancelled); }));
  CHECK(slurp(s.report_path(cancelled)).find("cancelled") != std::string::npos);
  REQUIRE(wait_until([&] { return s.check_run(cancelled).value("conclusion", "") == "cancelled"; }));
  REQUIRE(wait_until([&] { return s.check_run(waiting).value("status", "") == "queued"; }));
}

TEST_CASE("nothing is lost while GitHub is down, across a restart of reporterd") {
  ReporterFixture s;
  s.github->set_outage(true, 502);
  const int64_t id = s.run_job(pr_spec(fake_sha(2)), pr_result(fake_sha(1), 0.100, fake_sha(2), 0.130));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(id); }));
  // It tried, and GitHub answered 502: retried, not dropped.
  REQUIRE(wait_until([&] { return s.reporterd->log().find("502") != std::string::npos; }));
  REQUIRE(s.reporterd->terminate() == 0);
  CHECK(s.github->check_runs().empty());
  s.github->set_outage(false);
  s.start_reporter();
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }, std::chrono::seconds(30)));
  CHECK(s.check_run(id)["conclusion"] == "failure");
  REQUIRE(wait_until([&] { return s.github->comments("o/r", 3).size() == 1; }));
  CHECK(s.github->check_runs().size() == 1);
}

TEST_CASE("GitHub's refusal that cannot succeed is logged with its message and dropped") {
  ReporterFixture s;
  s.github->fail_next(5, 422, {},
                      {{"message", "Validation Failed"},
                       {"errors", json::array({{{"resource", "CheckRun"}, {"code", "invalid"}, {"field", "head_sha"}}})}},
                      "POST /repos/o/r/check-runs");
  const int64_t id = s.run_job(push_spec(fake_sha(5)), push_result(fake_sha(5), 0.1, 5));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reporterd->log().find("Validation Failed") != std::string::npos; }));
  CHECK(s.reporterd->log().find("head_sha") != std::string::npos);
  CHECK(s.check_run(id).empty());
}

TEST_CASE("a report over GitHub's limit is posted cut on a character boundary") {
  ReporterFixture s;
  model::JobResult jr = pr_result(fake_sha(1), 0.100, fake_sha(2), 0.130);
  // 600 benchmarks with long names full of multi-byte characters.
  for (int i = 0; i < 600; ++i) {
    model::Benchmark b = jr.head.benchmarks[0];
    b.key.name = "µ-bench-🔥-" + std::to_string(i) + std::string(60, 'x') + "→";
    jr.head.benchmarks.push_back(b);
    b.samples = jr.base->benchmarks[0].samples;
    jr.base->benchmarks.push_back(b);
  }
  const int64_t id = s.run_job(pr_spec(fake_sha(2)), jr);
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }));
  const std::string summary = s.check_run(id)["output"]["summary"];
  CHECK(summary.size() <= 65535);
  CHECK(summary.find("The full report: https://bench.example.org/r/o/r/runs/" + std::to_string(id) + ".html") !=
        std::string::npos);
  REQUIRE(wait_until([&] { return s.github->comments("o/r", 3).size() == 1; }));
  CHECK(s.github->comments("o/r", 3)[0]["body"].get<std::string>().size() <= 65536);
  REQUIRE(wait_until([&] { return s.reported(id); }));
  CHECK(slurp(s.report_path(id)).size() > 65536);  // the report itself is whole
}

TEST_CASE("a plain token posts as well as an App") {
  ReporterFixture s("  github_auth: token\n");
  s.github->accept_token("ghp_plain_test_token");
  const int64_t id = s.enqueue(push_spec(fake_sha(7)));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "queued"; }));
  bool used_token = false;
  for (const auto& r : s.github->requests()) used_token = used_token || r.authorization == "Bearer ghp_plain_test_token";
  CHECK(used_token);
}

TEST_CASE("posting to GitHub without its credential is refused at start, clearly") {
  TempDir dir;
  PrivateBus bus;
  std::ofstream(dir / "benchbox.yml") << "state_dir: " << (dir / "state") << "\nreporter:\n  github_app_id: 77\n";
  Process p({build_path("daemons/reporterd/benchbox-reporterd"), "--config", dir / "benchbox.yml"}, daemon_env(bus.address()),
            dir / "reporterd.log");
  REQUIRE(wait_until([&] { return !p.running(); }));
  CHECK(p.log().find("github-app-key") != std::string::npos);
}

TEST_CASE("outbox.db on a full disk: what GitHub should show is held, and posted once space returns", "[root]") {
  if (::geteuid() != 0) {
    BB_SKIP("mounting a small filesystem needs root");
    return;
  }
  TempDir under;
  SmallDisk disk(under / "outbox", "1m");
  REQUIRE(disk.mounted());
  ReporterFixture s("  outbox_database: " + (disk / "outbox.db") + "\n");
  disk.fill();
  const int64_t id = s.run_job(pr_spec(fake_sha(41)), pr_result(fake_sha(40), 0.100, fake_sha(41), 0.100));
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.reported(id); }));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  // Not stored, not posted, not lost: held, and the journal says so.
  CHECK(s.reporterd->log().find("held in memory and stored as soon as outbox.db can take it") != std::string::npos);
  CHECK(s.check_run(id).value("status", "") != "completed");
  REQUIRE(disk.free_space());
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "completed"; }, std::chrono::seconds(30)));
  CHECK(s.reporterd->log().find("stored in outbox.db after all") != std::string::npos);
}

TEST_CASE("a queued job's check run says why it waits while this box's runner claims no job", "[root]") {
  if (::geteuid() != 0) BB_SKIP("needs root to run benchbox-runnerd as another user");
  ReporterFixture s;
  const int64_t id = s.enqueue(push_spec(fake_sha(40)));
  auto summary = [&] { return s.check_run(id).value("output", json::object()).value("summary", std::string()); };
  REQUIRE(wait_until([&] { return s.check_run(id).value("status", "") == "queued"; }));
  CHECK(summary().find("claims no job") == std::string::npos);

  // runnerd as nobody, under the default runner.containment (required):
  // not root and no systemd, it cannot contain a job, so it claims none.
  REQUIRE(run_shell("chmod 0755 " + s.dir.path() + " && mkdir -p " + (s.dir / "nobody/cache") + " " +
                    (s.dir / "nobody/results") + " && chown -R 65534:65534 " + (s.dir / "nobody")) == 0);
  std::ofstream(s.dir / "runner.yml") << "state_dir: " << (s.dir / "state") << "\ncache_dir: " << (s.dir / "nobody/cache")
                                      << "\nrunner:\n  results_dir: " << (s.dir / "nobody/results") << "\n";
  auto env = daemon_env(s.bus.address());
  env["HOME"] = "/nonexistent";
  std::vector<std::string> argv = as_nobody_argv();
  for (const std::string& a : {build_path("daemons/runnerd/benchbox-runnerd"), std::string("--config"),
                               s.dir / "runner.yml"})
    argv.push_back(a);
  auto runnerd = std::make_unique<Process>(argv, env, s.dir / "runnerd.log");
  const bool told = wait_until([&] { return summary().find("claims no job") != std::string::npos; },
                               std::chrono::seconds(30));
  INFO(s.logs() << "\n---- runnerd\n" << runnerd->log());
  REQUIRE(told);
  CHECK(s.check_run(id)["output"]["title"] == "Queued: the runner claims no job");
  CHECK(summary().find("The benchmark runner on this box claims no job: runner.containment is required, and this "
                       "box cannot contain a job's code") != std::string::npos);
  CHECK(s.check_run(id)["status"] == "queued");

  // Gone from the bus, it refuses nothing: the summary is the plain one again.
  runnerd.reset();
  CHECK(wait_until([&] { return summary().find("claims no job") == std::string::npos; }, std::chrono::seconds(30)));
}
