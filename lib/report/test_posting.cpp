// What reporterd asks GitHub to show, decided without GitHub: check-run
// states and conclusions, the sticky comment's policy, cuts on character
// boundaries, and a branch regression's issue from opening to closing.
#include <catch2/catch.hpp>

#include "report/github_wants.h"
#include "report/history.h"
#include "report/regression.h"
#include "store/test_location.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::model;

namespace {

ResultSet side(int64_t job, const std::string& commit, double value, const std::string& role = "") {
  ResultSet rs;
  rs.repository = "o/r";
  rs.ref = "refs/heads/main";
  rs.commit = commit;
  rs.job_id = job;
  rs.role = role;
  rs.environment_key = "env";
  rs.config_text = "version: 1\nsuites:\n  - name: micro\n    build: make bench\n    run: ./bench\n";
  Benchmark b;
  b.key = {"micro", "loop", {}, "wall_time"};
  for (int i = 0; i < 20; ++i) {
    b.samples.push_back(value * (1 + 0.001 * (i % 5)));
    b.rounds.push_back(i);
  }
  rs.benchmarks.push_back(b);
  return rs;
}

Job job(int64_t id, JobKind kind, JobState state = JobState::done) {
  Job j;
  j.id = id;
  j.state = state;
  j.spec.kind = kind;
  j.spec.repository = "o/r";
  j.spec.ref = kind == JobKind::pull_request ? "refs/pull/4/head" : "refs/heads/main";
  j.spec.pr_number = kind == JobKind::pull_request ? 4 : 0;
  j.spec.head_sha = std::string(40, 'h');
  j.spec.clone_url = "https://github.com/o/r.git";
  return j;
}

report::JobReport push_report(int64_t id, const std::string& base_commit, int64_t base_job, double base,
                              const std::string& head_commit, double head) {
  JobResult jr;
  jr.job_id = id;
  jr.kind = "push";
  jr.head = side(id, head_commit, head);
  return report::build_report(job(id, JobKind::push), jr, side(base_job, base_commit, base), {});
}

report::JobReport pr_report(double base, double head) {
  JobResult jr;
  jr.job_id = 9;
  jr.kind = "pull_request";
  jr.base = side(9, std::string(40, 'b'), base, "base");
  jr.head = side(9, std::string(40, 'h'), head, "head");
  return report::build_report(job(9, JobKind::pull_request), jr, std::nullopt, {});
}

const report::PostingPolicy kPolicy{"https://bench.example.org/", "changes", ""};

}  // namespace

TEST_CASE("a check run goes queued, in_progress, completed, with details on the dashboard") {
  Job j = job(7, JobKind::push, JobState::queued);
  auto queued = report::check_run_want(j, kPolicy);
  REQUIRE(queued);
  CHECK(queued->target == "check-run/o/r/7");
  const auto& q = std::get<github_api::CheckRunWant>(queued->what);
  CHECK(q.status == "queued");
  CHECK(q.head_sha == j.spec.head_sha);
  CHECK(q.external_id == "7");
  CHECK(q.details_url == "https://bench.example.org/r/o/r/runs/7.html");

  j.state = JobState::running;
  j.runner = "box-1";
  j.started = 1700000100;
  auto running = report::check_run_want(j, kPolicy);
  REQUIRE(running);
  CHECK(running->target == queued->target);  // the same run, edited
  CHECK(std::get<github_api::CheckRunWant>(running->what).status == "in_progress");
  CHECK(std::get<github_api::CheckRunWant>(running->what).started_at == 1700000100);

  // An operator's manual job (a re-run, a backfill) posts none.
  Job manual = job(9, JobKind::manual, JobState::queued);
  CHECK_FALSE(report::check_run_want(manual, kPolicy));
  // Nor does a push job of a backfill group.
  Job backfilled = job(10, JobKind::push, JobState::queued);
  backfilled.spec.group_id = 3;
  CHECK_FALSE(report::check_run_want(backfilled, kPolicy));

  // A blessed PR whose head is not known until it runs has no check run yet.
  Job unknown = job(8, JobKind::pull_request, JobState::queued);
  unknown.spec.head_sha.clear();
  CHECK_FALSE(report::check_run_want(unknown, kPolicy));
}

TEST_CASE("a queued job's check run says why it waits when the runner claims no job") {
  Job j = job(7, JobKind::push, JobState::queued);
  auto refused = report::check_run_want(j, kPolicy, "runner.containment is required, and this box cannot contain");
  REQUIRE(refused);
  const auto& q = std::get<github_api::CheckRunWant>(refused->what);
  CHECK(q.status == "queued");
  CHECK(q.title == "Queued: the runner claims no job");
  CHECK(q.summary == "Job 7 waits for the benchmark runner.\n\nThe benchmark runner on this box claims no job: "
                     "runner.containment is required, and this box cannot contain.");
  // Once it claims again, the summary is the plain one; a running job's
  // never carries the note.
  CHECK(std::get<github_api::CheckRunWant>(report::check_run_want(j, kPolicy)->what).summary ==
        "Job 7 waits for the benchmark runner.");
  j.state = JobState::running;
  CHECK(std::get<github_api::CheckRunWant>(report::check_run_want(j, kPolicy, "x")->what).summary.find("claims no") ==
        std::string::npos);
}

TEST_CASE("conclusions: failure, neutral with a reason, cancelled, success") {
  auto conclusion = [](const report::JobReport& r) {
    auto w = report::check_run_want(r, kPolicy);
    REQUIRE(w);
    const auto& c = std::get<github_api::CheckRunWant>(w->what);
    CHECK(c.status == "completed");
    return c.conclusion + "|" + c.title;
  };
  CHECK(conclusion(pr_report(0.100, 0.130)) == "failure|benchbox: regressed");
  CHECK(conclusion(pr_report(0.100, 0.100)) == "success|benchbox: unchanged");
  CHECK(conclusion(pr_report(0.100, 0.080)) == "success|benchbox: improved");
  report::JobReport cancelled = report::build_report(job(3, JobKind::push, JobState::cancelled), std::nullopt,
                                                     std::nullopt, {});
  CHECK(conclusion(cancelled) == "cancelled|benchbox: cancelled");
  report::JobReport failed = report::build_report(job(3, JobKind::push, JobState::failed), std::nullopt,
                                                  std::nullopt, {});
  CHECK(conclusion(failed) == "failure|benchbox: failed");
  report::JobReport inconclusive = pr_report(0.100, 0.100);
  inconclusive.overall = report::Overall::inconclusive;
  CHECK(conclusion(inconclusive).rfind("neutral|benchbox: inconclusive (", 0) == 0);
  JobResult empty;
  empty.kind = "push";
  empty.head = side(3, std::string(40, 'c'), 0.1);
  empty.head.benchmarks.clear();
  report::JobReport nothing = report::build_report(job(3, JobKind::push), empty, std::nullopt, {});
  CHECK(conclusion(nothing) == "neutral|benchbox: recorded (nothing was measured)");
  report::JobReport missing = pr_report(0.100, 0.100);
  missing.missing = true;
  missing.overall = report::Overall::unchanged;
  CHECK(conclusion(missing).rfind("failure|", 0) == 0);
}

TEST_CASE("a report over GitHub's limit is cut on a character boundary with a link to the full report") {
  report::JobReport r = pr_report(0.100, 0.130);
  std::string big;
  while (big.size() < 70000) big += "µ→🔥 ";
  r.markdown = big;
  auto w = report::check_run_want(r, kPolicy);
  REQUIRE(w);
  const auto& c = std::get<github_api::CheckRunWant>(w->what);
  CHECK(c.summary.size() <= github_api::kMaxSummary);
  CHECK(c.summary.find("The full report: https://bench.example.org/r/o/r/runs/9.html") != std::string::npos);
  CHECK_NOTHROW(nlohmann::json(c.summary).dump());  // valid UTF-8: the JSON that carries it can be written
  auto comment = report::comment_want(r, kPolicy);
  REQUIRE(comment);
  const auto& body = std::get<github_api::CommentWant>(comment->what).body;
  CHECK(body.size() < github_api::kMaxBody);
  CHECK_NOTHROW(nlohmann::json(body).dump());
  // The same round trip through the outbox's JSON.
  auto back = github_api::want_from_json(github_api::to_json(*w));
  REQUIRE(back);
  CHECK(std::get<github_api::CheckRunWant>(back->what).summary == c.summary);
}

TEST_CASE("the sticky comment is created only with something to say, and never goes stale") {
  auto create = [](const report::JobReport& r, const std::string& policy) -> std::string {
    auto w = report::comment_want(r, {"", policy, ""});
    if (!w) return "none";
    CHECK(w->target == "comment/o/r/4");
    return std::get<github_api::CommentWant>(w->what).create ? "create" : "edit-only";
  };
  CHECK(create(pr_report(0.100, 0.130), "changes") == "create");
  CHECK(create(pr_report(0.100, 0.100), "changes") == "edit-only");
  CHECK(create(pr_report(0.100, 0.100), "always") == "create");
  CHECK(create(pr_report(0.100, 0.130), "never") == "none");
  CHECK_FALSE(report::comment_want(push_report(2, "a", 1, 0.1, "b", 0.1), kPolicy));  // a push has no PR
}

TEST_CASE("a regression from a push measured beside its previous head keeps that run as the last good") {
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "push";
  jr.base = side(5, std::string(40, '4'), 0.100, "base");
  jr.head = side(5, std::string(40, '5'), 0.120);
  auto r5 = report::build_report(job(5, JobKind::push), jr, std::nullopt, {});
  REQUIRE(r5.overall == report::Overall::regressed);
  auto step = report::step_regression(std::nullopt, r5, {}, 1700000000);
  REQUIRE(step.regression);
  REQUIRE(step.regression->benchmarks.size() == 1);
  const auto& b = step.regression->benchmarks[0];
  CHECK(b.last_good == std::string(40, '4'));
  CHECK(b.first_bad == std::string(40, '5'));
  // One job holds both: the last good run is its base, not its head.
  CHECK(b.last_good_job == 5);
  CHECK(b.first_bad_job == 5);
  CHECK(b.last_good_role == "base");
  // Kept in history.db (SQLite, or PostgreSQL under unit-report-postgres).
  bb::test::TempDir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  report::Regression saved = *step.regression;
  REQUIRE(h->save_regression(saved).ok());
  auto back = h->regression(saved.id);
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  CHECK((*back)->benchmarks.at(0).last_good_role == "base");
}

TEST_CASE("a branch regression opens an issue, stays while it lasts, and closes when it is gone") {
  const int64_t now = 1700000000;
  // Job 2, measured alone, 20 % slower than job 1's run: held, not
  // published as regressed, and still what opens the regression (which a
  // confirmation then measures in one job before anything is filed).
  auto r2 = push_report(2, std::string(40, '1'), 1, 0.100, std::string(40, '2'), 0.120);
  REQUIRE(r2.overall == report::Overall::inconclusive);
  REQUIRE(r2.comparison);
  CHECK(r2.comparison->rows.at(0).held == compare::Verdict::regressed);
  CHECK(r2.markdown.find("❔ regressed? (across jobs: unconfirmed)") != std::string::npos);
  {
    auto w = report::check_run_want(r2, kPolicy);
    REQUIRE(w);
    const auto& c = std::get<github_api::CheckRunWant>(w->what);
    CHECK(c.conclusion == "neutral");
    CHECK(c.title == "benchbox: inconclusive (a change against another job's run, unconfirmed)");
  }
  auto step = report::step_regression(std::nullopt, r2, {}, now);
  REQUIRE(step.regression);
  CHECK(step.opened);
  report::Regression reg = *step.regression;
  reg.id = 17;
  REQUIRE(reg.benchmarks.size() == 1);
  CHECK(reg.last_good() == std::string(40, '1'));
  CHECK(reg.first_bad() == std::string(40, '2'));
  CHECK(reg.benchmarks[0].last_good_job == 1);
  CHECK(reg.benchmarks[0].last_good_role == "");  // job 1's own run, the branch's point

  const report::IssueLinks links{"https://bench.example.org/", "https://github.com/o/r.git", r2.job.spec.ref.empty() ? "" : side(2, "", 0).config_text};
  auto want = report::issue_want(reg, links);
  const auto& issue = std::get<github_api::IssueWant>(want.what);
  CHECK(want.target == "issue/o/r/regression:refs/heads/main:17");
  CHECK(issue.open);
  INFO(issue.body);
  CHECK(issue.title.find("`micro/loop:wall_time` 1.20× ± 0.0") != std::string::npos);
  CHECK(issue.title.find("more wall time") != std::string::npos);
  CHECK(issue.body.find("**Last good:** `" + std::string(40, '1') + "`") != std::string::npos);
  CHECK(issue.body.find("**First bad:** `" + std::string(40, '2') + "`") != std::string::npos);
  CHECK(issue.body.find("https://github.com/o/r/compare/" + std::string(40, '1') + "..." + std::string(40, '2')) !=
        std::string::npos);
  CHECK(issue.body.find("[trend](https://bench.example.org/r/o/r/t/") != std::string::npos);
  CHECK(issue.body.find("make bench    # build, suite micro") != std::string::npos);
  CHECK(issue.body.find("benchboxctl compare base.json head.json") != std::string::npos);
  CHECK(issue.body.find("flame graph") == std::string::npos);  // not a callgrind suite

  // A callgrind suite's: the issue links straight to the benchmark's
  // differential flame graph on the first bad run's page, kept in history.
  auto cg = r2;
  cg.json["profile_diffs"] = {{{"benchmark", "other/x:instructions"}, {"flame_page", "r/o/r/runs/2.html#flame-0"}, {"flame", {{"n", "all"}}}},
                              {{"benchmark", "micro/loop:wall_time"}, {"flame_page", "r/o/r/runs/2.html#flame-1"}, {"flame", {{"n", "all"}}}}};
  auto with_flame = report::step_regression(std::nullopt, cg, {}, now);
  REQUIRE(with_flame.regression);
  CHECK(with_flame.regression->benchmarks.at(0).flame_page == "r/o/r/runs/2.html#flame-1");
  {
    bb::test::TempDir d;
    auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
    REQUIRE(h.ok());
    report::Regression saved = *with_flame.regression;
    REQUIRE(h->save_regression(saved).ok());
    auto back = h->regression(saved.id);
    REQUIRE(back.ok());
    REQUIRE(back->has_value());
    CHECK((*back)->benchmarks.at(0).flame_page == "r/o/r/runs/2.html#flame-1");
  }
  CHECK(report::regression_issue_body(*with_flame.regression, links)
            .find(" · [flame graph](https://bench.example.org/r/o/r/runs/2.html#flame-1)") != std::string::npos);

  // Job 3: still slow against the last good run: the same issue, updated.
  compare::BenchmarkComparison still;
  still.verdict = compare::Verdict::regressed;
  auto r3 = push_report(3, std::string(40, '2'), 2, 0.120, std::string(40, '3'), 0.120);
  step = report::step_regression(reg, r3, {{"micro/loop:wall_time", still}}, now + 60);
  REQUIRE(step.regression);
  CHECK_FALSE(step.opened);
  CHECK_FALSE(step.closed);
  CHECK(step.regression->open);
  CHECK(step.regression->latest_job == 3);
  CHECK(report::issue_want(*step.regression, links).target == want.target);

  // Job 4: back to the last good level: closed, with a comment naming the commit.
  compare::BenchmarkComparison back;
  back.verdict = compare::Verdict::unchanged;
  auto r4 = push_report(4, std::string(40, '3'), 3, 0.120, std::string(40, '4'), 0.100);
  step = report::step_regression(*step.regression, r4, {{"micro/loop:wall_time", back}}, now + 120);
  REQUIRE(step.regression);
  CHECK(step.closed);
  CHECK_FALSE(step.regression->open);
  CHECK(step.regression->fixed_by == std::string(40, '4'));
  auto closing = report::issue_want(*step.regression, links);
  const auto& closed = std::get<github_api::IssueWant>(closing.what);
  CHECK_FALSE(closed.open);
  CHECK(closed.closing_comment.find(std::string(40, '4')) != std::string::npos);
  CHECK(closed.body.find("(back at `444444444444`)") != std::string::npos);
}

TEST_CASE("effect phrases say the ratio, its interval's half-width, and which way") {
  CHECK(report::effect_phrase(1.23, 1.20, 1.26, "instructions", false) == "1.23× ± 0.03 more instructions");
  CHECK(report::effect_phrase(0.80, 0.78, 0.83, "items_per_second", true) == "0.80× ± 0.03 less items per second");
}

TEST_CASE("the check run says what this box resolves now, per suite, and what its canary says") {
  report::JobReport r = pr_report(0.100, 0.100);
  REQUIRE(r.comparison);
  REQUIRE_FALSE(r.comparison->rows.empty());
  const double mde = r.comparison->rows[0].min_detectable;
  REQUIRE(mde > 0);
  const std::string note = report::resolution_note(r, "steady (last run ×1.002, band ±3.0%)");
  char pct[32];
  std::snprintf(pct, sizeof pct, "≥ %.1f %%", 100 * mde);
  CHECK(note.find("**What this box resolves now:** `micro` " + std::string(pct)) == 0);
  CHECK(note.find("its canary: steady (last run ×1.002, band ±3.0%)") != std::string::npos);
  report::PostingPolicy policy = kPolicy;
  policy.box_health = "steady (last run ×1.002, band ±3.0%)";
  auto w = report::check_run_want(r, policy);
  REQUIRE(w);
  const auto& c = std::get<github_api::CheckRunWant>(w->what);
  CHECK(c.summary.find(note) != std::string::npos);
  CHECK(c.summary.find(note) < c.summary.find(r.markdown.substr(0, 40)));  // before what the limit may cut
  // Nothing compared: nothing said.
  report::JobReport failed = report::build_report(job(3, JobKind::push, JobState::failed), std::nullopt,
                                                  std::nullopt, {});
  CHECK(report::resolution_note(failed, "steady").empty());
}
