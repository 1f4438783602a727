#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>

#include "report/not_affected.h"
#include "store/test_location.h"
#include "model/environment.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/profile_diff.h"
#include "report/site.h"
#include "report/site_paths.h"
#include "util/file.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::model;

namespace {

using Dir = bb::test::TempDir;

ResultSet run(int64_t job, const std::string& commit, double value, const std::string& role = "") {
  ResultSet rs;
  rs.repository = "o/r";
  rs.ref = "refs/heads/main";
  rs.commit = commit;
  rs.job_id = job;
  rs.role = role;
  rs.environment_key = "env1";
  Benchmark b;
  b.key = {"micro", "loop", {}, "wall_time"};
  for (int i = 0; i < 20; ++i) {
    b.samples.push_back(value * (1 + 0.001 * (i % 5)));
    b.rounds.push_back(i);
  }
  rs.benchmarks.push_back(b);
  return rs;
}

// Job 5, a pull request: base and head at these levels, measured in it.
JobResult pr_result(double base, double head) {
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "pull_request";
  jr.base = run(5, "base", base, "base");
  jr.head = run(5, "head", head, "head");
  return jr;
}

Job done_job(int64_t id, JobKind kind) {
  Job j;
  j.id = id;
  j.state = JobState::done;
  j.spec.kind = kind;
  j.spec.repository = "o/r";
  j.spec.ref = "refs/heads/main";
  j.spec.pr_number = kind == JobKind::pull_request ? 4 : 0;
  return j;
}

}  // namespace

TEST_CASE("history keeps runs and finds the previous run on the same ref and environment") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  REQUIRE(h->ingest(run(1, "aaa", 0.1), "push").ok());
  REQUIRE(h->ingest(run(2, "bbb", 0.2), "push").ok());
  auto prev = h->previous_run(run(2, "bbb", 0.2), "push");
  REQUIRE(prev.ok());
  REQUIRE(prev->has_value());
  CHECK((*prev)->commit == "aaa");
  CHECK((*prev)->benchmarks.at(0).samples.size() == 20);
  ResultSet elsewhere = run(3, "ccc", 0.2);
  elsewhere.environment_key = "other-env";
  CHECK_FALSE(h->previous_run(elsewhere, "push")->has_value());
  CHECK((*h->latest_run(elsewhere, "push"))->commit == "bbb");
  auto series = h->series("o/r", "refs/heads/main");
  REQUIRE(series.ok());
  REQUIRE(series->size() == 1);
  CHECK(series->at(0).points.size() == 2);
  CHECK(series->at(0).points.at(1).median == Approx(0.2 * 1.002));
  CHECK(series->at(0).points.at(1).q1 == Approx(0.2 * 1.001));
  CHECK(series->at(0).points.at(1).q3 == Approx(0.2 * 1.003));
  // Reopening the file keeps everything.
  auto again = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(again.ok());
  CHECK(again->has_job(2));
}

TEST_CASE("history's indexes: a job's points by the primary key, the release series by an index of tags only, a window by the trend's") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  REQUIRE(h->ingest(run(1, "aaa", 0.1), "push").ok());
  store::Database& db = h->database();
  const bool sqlite = db.backend() == store::Backend::sqlite;
  auto index = db.prepare(sqlite ? "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'points_by_job'"
                                 : "SELECT 1 FROM pg_indexes WHERE indexname = 'points_by_job'");
  REQUIRE(index);
  CHECK_FALSE(*index->step());
  auto by_series = db.prepare(sqlite ? "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'points_by_series'"
                                     : "SELECT 1 FROM pg_indexes WHERE indexname = 'points_by_series'");
  REQUIRE(by_series);
  CHECK_FALSE(*by_series->step());
  CHECK(h->keys_of_job(1)->size() == 1);
  if (!sqlite) return;
  {
    // An environment's newest points (recent) walk the trend's index back
    // from the newest: no sort of the series, no scan of the branch.
    auto window = db.prepare(
        "EXPLAIN QUERY PLAN SELECT p.median FROM points p JOIN runs r ON r.job_id = p.job_id AND r.role = p.role"
        " WHERE p.repository = ? AND p.ref = ? AND p.role = '' AND p.benchmark_key = ? AND p.environment_key = ?"
        " ORDER BY p.position DESC, p.job_id DESC LIMIT 100");
    REQUIRE(window);
    std::string plan;
    while (*window->step()) plan += window->column_text(3) + "\n";
    INFO(plan);
    CHECK(plan.find("USING INDEX points_by_trend (repository=? AND ref=? AND benchmark_key=?)") != std::string::npos);
    CHECK(plan.find("TEMP B-TREE") == std::string::npos);
  }
  // What keys_of_job and a job's re-ingest ask: a search of the key's
  // prefix, not a scan of ten million points.
  auto plan = db.prepare("EXPLAIN QUERY PLAN SELECT kind, ref, benchmark_key FROM points WHERE job_id = ? AND role = ''");
  REQUIRE(plan);
  std::string steps;
  while (*plan->step()) steps += plan->column_text(3) + "\n";
  INFO(steps);
  CHECK(steps.find("SEARCH points USING INDEX sqlite_autoindex_points_1 (job_id=? AND role=?)") != std::string::npos);
  // The release series' reads (where_ref) name the partial index's own
  // terms, kind 'tag' and role '', so it serves them, in order.
  auto release = db.prepare(
      "EXPLAIN QUERY PLAN SELECT p.median FROM points p WHERE p.repository = ? AND p.kind = 'tag' AND p.role = ''"
      " AND p.benchmark_key = ? ORDER BY p.commit_time, p.job_id");
  REQUIRE(release);
  steps.clear();
  while (*release->step()) steps += release->column_text(3) + "\n";
  INFO(steps);
  CHECK(steps.find("USING INDEX points_by_release (repository=? AND benchmark_key=?)") != std::string::npos);
  CHECK(steps.find("TEMP B-TREE") == std::string::npos);
}

TEST_CASE("a point's median and quartiles come back from history exactly, all 17 digits") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  // Values whose shortest text needs 17 significant digits: SQLite writes a
  // REAL out as text with 15, which gave back 0.3 and 1 for these.
  ResultSet rs = run(1, "c1", 1);
  rs.commit_info.first_parent_position = 1;
  rs.benchmarks[0].samples = {0.1 + 0.2, 0.1 + 0.2, 1.0000000000000002, 1.0000000000000002, 1.0000000000000002};
  rs.benchmarks[0].rounds.clear();
  REQUIRE(h->ingest(rs, "push").ok());
  auto trend = h->trend("o/r", "refs/heads/main", "micro/loop:wall_time");
  REQUIRE(trend.ok());
  REQUIRE(trend->points.size() == 1);
  const report::SeriesPoint& p = trend->points[0];
  const report::Spread s = report::spread_of(rs.benchmarks[0].samples);
  CHECK(s.median == 1.0000000000000002);
  CHECK(p.median == s.median);
  CHECK(p.q1 == s.q1);
  CHECK(p.q3 == s.q3);
  auto chunk = h->trend_chunk("o/r", "refs/heads/main", "micro/loop:wall_time", 0, 1024);
  REQUIRE(chunk.ok());
  REQUIRE(chunk->points.size() == 1);
  CHECK(chunk->points[0].median == s.median);
}

TEST_CASE("runs on a branch are ordered by first-parent position, so a backfilled commit lands in place") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  auto placed = [](int64_t job, const std::string& commit, int64_t position, double value) {
    ResultSet rs = run(job, commit, value);
    rs.commit_info.first_parent_position = position;
    rs.commit_info.time = 1700000000 + position * 60;
    return rs;
  };
  REQUIRE(h->ingest(placed(1, "c10", 10, 0.1), "push").ok());
  REQUIRE(h->ingest(placed(2, "c30", 30, 0.3), "push").ok());
  // Job 3 measures an older commit (a backfill): it goes between the two.
  const ResultSet backfill = placed(3, "c20", 20, 0.2);
  CHECK((*h->previous_run(backfill, "manual"))->commit == "c10");
  REQUIRE(h->ingest(backfill, "manual").ok());
  // It is history: the branch has a run after it, so it moves no regression.
  CHECK(*h->has_later_run(backfill));
  CHECK_FALSE(*h->has_later_run(placed(2, "c30", 30, 0.3)));
  CHECK_FALSE(*h->has_later_run(placed(4, "c40", 40, 0.4)));
  CHECK((*h->previous_run(placed(4, "c40", 40, 0.4), "push"))->commit == "c30");
  auto trend = h->trend("o/r", "refs/heads/main", "micro/loop:wall_time");
  REQUIRE(trend.ok());
  REQUIRE(trend->points.size() == 3);
  CHECK(trend->points[0].commit == "c10");
  CHECK(trend->points[1].commit == "c20");
  CHECK(trend->points[2].commit == "c30");
  CHECK(trend->points[1].position == 20);
  CHECK(trend->points[1].commit_time == 1700000000 + 20 * 60);
  // Chunks of 16 positions: 10 in chunk 0, 20 and 30 in chunk 1.
  auto counts = h->chunk_counts("o/r", "refs/heads/main", "micro/loop:wall_time", 16);
  REQUIRE(counts.ok());
  CHECK(*counts == std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}});
  auto chunk = h->trend_chunk("o/r", "refs/heads/main", "micro/loop:wall_time", 1, 16);
  REQUIRE(chunk->points.size() == 2);
  CHECK(chunk->points[0].commit == "c20");
  // A chunk's commits, shared by every series of the ref: its plain runs in
  // drawing order, not a pull request's, not another ref's, not another
  // chunk's; the unplaced ones are chunk -1.
  using Commits = std::vector<std::pair<int64_t, std::string>>;
  ResultSet pr_head = placed(5, "pr", 25, 0.2);
  pr_head.role = "head";
  REQUIRE(h->ingest(pr_head, "pull_request").ok());
  ResultSet other = placed(6, "other", 21, 0.2);
  other.ref = "refs/heads/other";
  REQUIRE(h->ingest(other, "push").ok());
  REQUIRE(h->ingest(placed(7, "c20-again", 20, 0.2), "manual").ok());
  REQUIRE(h->ingest(run(8, "unplaced", 0.2), "push").ok());
  CHECK(*h->chunk_commits("o/r", "refs/heads/main", 1, 16) == Commits{{3, "c20"}, {7, "c20-again"}, {2, "c30"}});
  CHECK(*h->chunk_commits("o/r", "refs/heads/main", 0, 16) == Commits{{1, "c10"}});
  CHECK(*h->chunk_commits("o/r", "refs/heads/main", -1, 16) == Commits{{8, "unplaced"}});
  CHECK(*h->chunk_commits("o/r", "refs/heads/other", 1, 16) == Commits{{6, "other"}});
  CHECK(h->chunk_commits("o/r", "refs/heads/main", 2, 16)->empty());
  // A chunk's count: plain points only (not the PR's head at 25), from a
  // position on when asked, of the ref asked for.
  const std::string key = "micro/loop:wall_time";
  CHECK(*h->chunk_count("o/r", "refs/heads/main", key, 1, 16) == 3);
  CHECK(*h->chunk_count("o/r", "refs/heads/main", key, 1, 16, 21) == 1);
  CHECK(*h->chunk_count("o/r", "refs/heads/main", key, 0, 16) == 1);
  CHECK(*h->chunk_count("o/r", "refs/heads/other", key, 1, 16) == 1);
  // What a push added at its position, for every series of the ref at
  // once: each key's points as trend_chunk reads them from there, in job
  // order; not a pull request's (25), not another ref's (21).
  auto at20 = h->points_at("o/r", "refs/heads/main", 20);
  REQUIRE(at20.ok());
  REQUIRE(at20->size() == 1);
  const auto& both = at20->at(key);
  REQUIRE(both.size() == 2);
  CHECK(both[0].commit == "c20");
  CHECK(both[1].commit == "c20-again");
  auto from20 = h->trend_chunk("o/r", "refs/heads/main", key, 1, 16, 20);
  REQUIRE(from20->points.size() == 3);  // and c30 after them
  for (size_t i = 0; i < both.size(); ++i) {
    CHECK(both[i].job_id == from20->points[i].job_id);
    CHECK(both[i].median == from20->points[i].median);
    CHECK(both[i].position == 20);
    CHECK(both[i].commit_time == from20->points[i].commit_time);
    CHECK(both[i].environment_key == from20->points[i].environment_key);
  }
  CHECK(h->points_at("o/r", "refs/heads/main", 25)->empty());
  CHECK(h->points_at("o/r", "refs/heads/other", 21)->at(key).size() == 1);
  CHECK_FALSE(h->points_at("o/r", report::kReleaseSeries, 20).ok());

  // The run before: the nearest earlier position, the earlier job at the
  // same one; a run of unknown position (job 8, from before runs were
  // placed) counts as earlier than any placed run.
  CHECK((*h->previous_run(placed(9, "c30", 30, 0.3), "push"))->commit == "c30");
  CHECK((*h->previous_run(placed(9, "c25", 25, 0.3), "push"))->commit == "c20-again");
  CHECK((*h->previous_run(placed(9, "c20", 20, 0.3), "push"))->commit == "c20-again");
  CHECK((*h->previous_run(placed(9, "c15", 15, 0.3), "push"))->commit == "c10");
  CHECK((*h->previous_run(placed(9, "c5", 5, 0.3), "push"))->commit == "unplaced");
  CHECK((*h->previous_run(run(9, "unplaced-too", 0.3), "push"))->commit == "unplaced");
  ResultSet elsewhere = placed(9, "c40", 40, 0.3);
  elsewhere.environment_key = "env2";  // measured on another machine: nothing before it there
  CHECK_FALSE(h->previous_run(elsewhere, "push")->has_value());
  CHECK((*h->latest_run(elsewhere, "push"))->commit == "c30");
}

TEST_CASE("a tag is compared with the previous release, whichever tag it was") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  auto tag = [](int64_t job, const std::string& name, int64_t time) {
    ResultSet rs = run(job, "sha-" + name, 0.1);
    rs.ref = "refs/tags/" + name;
    rs.commit_info.time = time;
    rs.commit_info.first_parent_position = job;
    return rs;
  };
  const ResultSet first = tag(1, "v1.0", 1000);
  CHECK_FALSE(h->previous_run(first, "tag")->has_value());  // the first release: nothing before it
  REQUIRE(h->ingest(first, "tag").ok());
  REQUIRE(h->ingest(run(2, "main-commit", 0.1), "push").ok());  // a push is not a release
  const ResultSet second = tag(3, "v1.1", 2000);
  auto prev = h->previous_run(second, "tag");
  REQUIRE(prev.ok());
  REQUIRE(*prev);
  CHECK((*prev)->ref == "refs/tags/v1.0");
  REQUIRE(h->ingest(second, "tag").ok());
  // An older release measured later (backfill) is ordered by its commit's date.
  REQUIRE(h->ingest(tag(4, "v0.9", 500), "tag").ok());
  auto releases = h->trend("o/r", report::kReleaseSeries, "micro/loop:wall_time");
  REQUIRE(releases->points.size() == 3);
  CHECK(releases->points[0].label == "v0.9");
  CHECK(releases->points[2].label == "v1.1");
  CHECK(*h->has_releases("o/r"));
  CHECK(*h->branches("o/r") == std::vector<std::string>{"refs/heads/main"});
  // The release series' commits: every tag, by commit date.
  CHECK(*h->chunk_commits("o/r", report::kReleaseSeries, 0, 1024) ==
        std::vector<std::pair<int64_t, std::string>>{{4, "sha-v0.9"}, {1, "sha-v1.0"}, {3, "sha-v1.1"}});
  // Branches skip from ref to ref: each plain run's branch once, in order,
  // and not a branch only a pull request's runs (role head) name, nor
  // another repository's, nor a pull request's ref.
  auto on = [](int64_t job, const std::string& repository, const std::string& ref, const std::string& role = "") {
    ResultSet rs = run(job, "sha-" + std::to_string(job), 0.1, role);
    rs.repository = repository;
    rs.ref = ref;
    return rs;
  };
  REQUIRE(h->ingest(on(5, "o/r", "refs/heads/a-feature", "head"), "pull_request").ok());
  REQUIRE(h->ingest(on(6, "o/r", "refs/pull/7/head"), "pull_request").ok());
  REQUIRE(h->ingest(on(7, "o/r", "refs/heads/zz-last"), "push").ok());
  REQUIRE(h->ingest(on(8, "o/r", "refs/heads/dev"), "push").ok());
  REQUIRE(h->ingest(on(9, "o/r", "refs/heads/dev"), "push").ok());
  REQUIRE(h->ingest(on(10, "o/other", "refs/heads/other"), "push").ok());
  CHECK(*h->branches("o/r") == std::vector<std::string>{"refs/heads/dev", "refs/heads/main", "refs/heads/zz-last"});
  CHECK(*h->branches("o/other") == std::vector<std::string>{"refs/heads/other"});
  CHECK(h->branches("o/none")->empty());
}

TEST_CASE("retention drops a pull request's raw samples and keeps its summary") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  ResultSet base = run(5, "b", 0.1, "base"), head = run(5, "h", 0.12, "head"), push = run(6, "p", 0.1);
  base.created = head.created = push.created = 1000;
  REQUIRE(h->ingest(base, "pull_request").ok());
  REQUIRE(h->ingest(head, "pull_request").ok());
  REQUIRE(h->ingest(push, "push").ok());
  CHECK(h->prune_pull_request_samples(999)->empty());  // not old enough
  // At most about one run per call here: a backlog is worked off a share at a time.
  auto share = h->prune_pull_request_samples(2000, 1);
  REQUIRE(share.ok());
  CHECK(*share == std::vector<int64_t>{5});
  auto pruned = h->prune_pull_request_samples(2000);
  REQUIRE(pruned.ok());
  CHECK(pruned->empty());  // the first call took both runs of job 5 (one batch)
  auto kept = h->run(5, "head");
  REQUIRE(kept.ok());
  REQUIRE(*kept);
  const Benchmark& b = (*kept)->benchmarks.at(0);
  CHECK(b.samples.empty());
  CHECK(b.summary_only);
  CHECK(b.summary.at("median") == Approx(0.12 * 1.002));
  CHECK(b.summary.at("n") == 20);
  // The main branch keeps its samples forever.
  CHECK((*h->run(6, ""))->benchmarks.at(0).samples.size() == 20);
  CHECK(h->prune_pull_request_samples(2000)->empty());  // done once
  auto sizes = h->sizes();
  REQUIRE(sizes.ok());
  CHECK(sizes->runs == 3);
  CHECK(sizes->runs_with_samples == 1);
  CHECK(sizes->database_bytes > 0);
}

TEST_CASE("a PR report compares head with the merge-base and shows a regression") {
  JobResult jr = pr_result(0.100, 0.120);
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::regressed);
  CHECK(rep.markdown.find("pull request #4") != std::string::npos);
  CHECK(rep.markdown.find("regressed") != std::string::npos);
  CHECK(rep.json["overall"] == "regressed");
}

TEST_CASE("a confirmation or bisection step names its base the last good commit, not a merge-base") {
  JobResult jr;
  jr.job_id = 9;
  jr.kind = "compare";
  jr.base = run(9, "good", 0.100, "base");
  jr.head = run(9, "bad", 0.120, "head");
  auto rep = report::build_report(done_job(9, JobKind::compare), jr, std::nullopt, {});
  CHECK(rep.markdown.find("against the last good commit good (measured interleaved in this job)") != std::string::npos);
  CHECK(rep.markdown.find("merge-base") == std::string::npos);
}

TEST_CASE("a push measured beside the branch's previous head is compared within its job, paired") {
  JobResult jr;
  jr.job_id = 6;
  jr.kind = "push";
  jr.base = run(6, "before", 0.100, "base");
  jr.head = run(6, "after", 0.120);
  // A previous run exists, but the job's own base is what it is compared with.
  auto rep = report::build_report(done_job(6, JobKind::push), jr, run(3, "older", 0.080), {});
  CHECK(rep.overall == report::Overall::regressed);
  CHECK(rep.baseline_job == 6);
  CHECK(rep.markdown.find("against the branch's previous head before (measured interleaved in this job)") !=
        std::string::npos);
  CHECK(rep.markdown.find("Compared across jobs") == std::string::npos);
  REQUIRE(rep.comparison);
  CHECK_FALSE(rep.comparison->across_jobs);
  CHECK(rep.comparison->base_commit == "before");
  CHECK(rep.comparison->rows.at(0).paired);
}

TEST_CASE("the report judges with the suite's thresholds from the result set") {
  JobResult jr = pr_result(0.100, 0.120);
  jr.base->thresholds["micro"]["wall_time"] = jr.head.thresholds["micro"]["wall_time"] = 0.25;
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.overall != report::Overall::regressed);
  CHECK(rep.json["comparison"]["rows"][0]["threshold"] == 0.25);
}

TEST_CASE("a first run in a new environment says which input changed") {
  Dir d;
  auto h = report::HistoryStore::open(store::testdb::location(d.path + "/history.db"));
  REQUIRE(h.ok());
  model::Environment before;
  before.suites.push_back({"micro", "", "./b", "command", {}, {{"cc --version", "cc 12.2.0"}}, {}});
  model::Environment after = before;
  after.suites[0].toolchain["cc --version"] = "cc 13.1.0";
  ResultSet old_run = run(1, "aaa", 0.1);
  old_run.environment = before.to_json();
  old_run.environment_key = before.key();
  REQUIRE(h->ingest(old_run, "push").ok());
  ResultSet now = run(2, "bbb", 0.1);
  now.environment = after.to_json();
  now.environment_key = after.key();
  auto previous = h->previous_run(now, "push");
  REQUIRE(previous.ok());
  CHECK_FALSE(*previous);
  auto elsewhere = h->latest_run(now, "push");
  REQUIRE(elsewhere.ok());
  REQUIRE(*elsewhere);
  JobResult jr;
  jr.job_id = 2;
  jr.head = now;
  auto rep = report::build_report(done_job(2, JobKind::push), jr, std::nullopt, {}, **elsewhere);
  CHECK(rep.overall == report::Overall::recorded);
  CHECK(rep.markdown.find("Not compared with job 1 (`aaa`): the environment changed since:\n\n"
                          "- suite micro: `cc --version`: cc 12.2.0 → cc 13.1.0\n") != std::string::npos);
  CHECK(rep.json["environment_changes"] == nlohmann::json({"suite micro: `cc --version`: cc 12.2.0 → cc 13.1.0"}));
}

TEST_CASE("a callgrind regression's report lists the functions that changed most") {
  Dir d;
  auto profile = [&](const std::string& name, int work) {
    const std::string path = d.path + "/" + name;
    REQUIRE(write_file_atomic(path, "positions: line\nevents: Ir\nfn=(1) main\n1 10\ncfn=(2) parse\ncalls=1 5\n2 " +
                                        std::to_string(work) + "\nfn=(2)\n5 " + std::to_string(work) + "\n")
                .ok());
    return path;
  };
  auto side = [&](const std::string& role, double ir, const std::string& file) {
    ResultSet rs = run(5, role, 0.1, role);
    rs.benchmarks.clear();
    Benchmark b;
    b.key = {"cg", "cg", {}, "instructions"};
    b.unit = "count";
    b.samples = {ir, ir};
    b.rounds = {0, 1};
    b.extra["profiles"] = {file};
    rs.benchmarks.push_back(b);
    return rs;
  };
  JobResult jr;
  jr.job_id = 5;
  jr.base = side("base", 1000, profile("base.out", 990));
  jr.head = side("head", 1100, profile("head.out", 1090));
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  REQUIRE(rep.overall == report::Overall::regressed);
  report::add_profile_diffs(rep, *jr.base, jr.head);
  CHECK(rep.markdown.find("### Differential profile: `cg/cg:instructions`") != std::string::npos);
  CHECK(rep.markdown.find("| `parse` | 990 | 1090 | +100 | +100.0 % | +100 |") != std::string::npos);
  CHECK(rep.markdown.find("| `main` | 10 | 10 | 0 | +0.0 % | +100 |") != std::string::npos);
  CHECK(rep.json["profile_diffs"][0]["functions"][0]["function"] == "parse");
  // And head's call tree against base's, for the run page's flame graph.
  CHECK(rep.markdown.find("Differential flame graph: `" + report::site::run_page(jr.head.repository, "5") + "#flame-0`") !=
        std::string::npos);
  CHECK(rep.json["profile_diffs"][0]["flame_page"] == report::site::run_page(jr.head.repository, "5") + "#flame-0");
  CHECK(rep.json["profile_diffs"][0]["flame"]["c"][0]["n"] == "main");
  CHECK(rep.json["profile_diffs"][0]["flame"]["c"][0]["c"][0] ==
        nlohmann::json{{"n", "parse"}, {"b", 990}, {"h", 1090}, {"bs", 990}, {"hs", 1090}});
  // The profiles are named where the dashboard serves them, beside each
  // run, never by the box's own paths.
  CHECK(rep.markdown.find(d.path) == std::string::npos);
  CHECK(rep.json.dump().find(d.path) == std::string::npos);
  CHECK(rep.json["profile_diffs"][0]["head_profiles"][0] == report::site::run_profile(jr.head.repository, "5", "head", "head.out"));
  auto linked = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  report::add_profile_diffs(linked, *jr.base, jr.head, {"https://bench.example/"});
  CHECK(linked.markdown.find("[base.out](https://bench.example/" + report::site::run_profile(jr.head.repository, "5", "base", "base.out") +
                             ")") != std::string::npos);
  CHECK(linked.markdown.find("[head's call tree, coloured by the change](https://bench.example/" +
                             report::site::run_page(jr.head.repository, "5") + "#flame-0)") != std::string::npos);
  // A profile gone from disk: the section says so, the report stays.
  std::system(("rm " + d.path + "/head.out").c_str());
  auto again = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  report::add_profile_diffs(again, *jr.base, jr.head);
  CHECK(again.markdown.find("Not available: the profile head.out is no longer kept on the box.") != std::string::npos);
  CHECK(again.markdown.find(d.path) == std::string::npos);
  CHECK(again.overall == report::Overall::regressed);
}

TEST_CASE("a PR report says when a suite sampled sequentially and why it stopped") {
  JobResult jr;
  jr.kind = "pull_request";
  jr.base = run(5, "base", 0.100, "base");
  jr.head = run(5, "head", 0.120, "head");
  jr.head.benchmarks[0].extra["sequential"] = {{"rounds", 14}, {"max_rounds", 40}, {"stopped_early", true},
                                               {"budget_exhausted", false}, {"out_of_time", false}};
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.markdown.find("Suite `micro`: 14 of at most 40 rounds; stopped because every benchmark was decided") !=
        std::string::npos);
}

TEST_CASE("a failed job is reported as failed, never as success") {
  Job j = done_job(6, JobKind::push);
  j.state = JobState::failed;
  j.error = ".benchbox.yml:3:7: suites[0].repetitions: expected a non-negative integer";
  auto rep = report::build_report(j, std::nullopt, std::nullopt, {});
  CHECK(rep.overall == report::Overall::failed);
  CHECK(rep.markdown.find(".benchbox.yml:3:7") != std::string::npos);
}

TEST_CASE("a round that runnerd ran again is named in the report, per suite and side") {
  JobResult jr;
  jr.job_id = 9;
  jr.base = run(9, "a", 0.1, "base");
  jr.head = run(9, "b", 0.1, "head");
  jr.head.benchmarks[0].extra["retried_rounds"] = nlohmann::json::array({{{"round", 30}, {"reason", "killed by SIGKILL"}}});
  auto rep = report::build_report(done_job(9, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.markdown.find("Rounds run again:\n- Suite `micro` on the head: round 30 (killed by SIGKILL) failed after good "
                          "rounds and was run once more; every measured round was kept.") != std::string::npos);
  // A first run says it too.
  JobResult first;
  first.head = run(10, "c", 0.1);
  first.head.benchmarks[0].extra["retried_rounds"] = jr.head.benchmarks[0].extra["retried_rounds"];
  auto rec = report::build_report(done_job(10, JobKind::push), first, std::nullopt, {});
  CHECK(rec.markdown.find("- Suite `micro`: round 30 (killed by SIGKILL) failed after good rounds") != std::string::npos);
  // Nothing retried: no such section.
  jr.head.benchmarks[0].extra.erase("retried_rounds");
  CHECK(report::build_report(done_job(9, JobKind::pull_request), jr, std::nullopt, {}).markdown.find("Rounds run again") ==
        std::string::npos);
}

TEST_CASE("a first run is recorded; a failed benchmark in it is a failure") {
  JobResult jr;
  jr.head = run(7, "c", 0.1);
  auto rep = report::build_report(done_job(7, JobKind::push), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::recorded);
  // Its numbers, not only "ok": the median of 0.1 s x (1, 1.001, ... 1.004)
  // and the robust spread of their logarithms.
  CHECK(rep.markdown.find("| benchmark | median | spread | min. detectable | samples | status |") != std::string::npos);
  // Its noise is far under the 1 % threshold: what a next run would catch
  // is a little under the threshold itself (its interval, ±0.08 %, need
  // only reach past the threshold, not lie beyond it).
  CHECK(rep.markdown.find("| `micro/loop:wall_time` | 100.2 ms | ±0.1 % | 0.9 % | 20 | ok |") != std::string::npos);
  jr.head.benchmarks[0].status = BenchmarkStatus::failed;
  jr.head.benchmarks[0].reason = "killed by SIGSEGV";
  rep = report::build_report(done_job(7, JobKind::push), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::failed);
  CHECK(rep.markdown.find("SIGSEGV") != std::string::npos);
}

TEST_CASE("a cancelled job is reported as cancelled, with its reason") {
  Job j = done_job(8, JobKind::push);
  j.state = JobState::cancelled;
  j.error = "cancelled by alice";
  auto rep = report::build_report(j, std::nullopt, std::nullopt, {});
  CHECK(rep.overall == report::Overall::cancelled);
  CHECK(rep.markdown.find("cancelled by alice") != std::string::npos);
}

TEST_CASE("the report puts regressions first by effect, folds unchanged ones, and lists what was not measured") {
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "pull_request";
  jr.base = run(5, "0123456789abcdef", 0.100, "base");
  jr.head = run(5, "fedcba9876543210", 0.100, "head");
  auto add = [&](const std::string& name, double base, double head, BenchmarkStatus st = BenchmarkStatus::ok,
                 const std::string& reason = "") {
    Benchmark b = jr.base->benchmarks[0];
    b.key.name = name;
    for (auto& v : b.samples) v = v / 0.1 * base;
    if (base > 0) jr.base->benchmarks.push_back(b);
    b.status = st;
    b.reason = reason;
    for (size_t i = 0; i < b.samples.size(); ++i) b.samples[i] = jr.base->benchmarks[0].samples[i] / 0.1 * head;
    if (st != BenchmarkStatus::ok) b.samples.clear();
    if (head > 0 || st != BenchmarkStatus::ok) jr.head.benchmarks.push_back(b);
  };
  add("slightly-slower", 0.1, 0.105);
  add("much-slower", 0.1, 0.150);
  add("faster", 0.1, 0.080);
  add("crashes", 0.1, 0, BenchmarkStatus::failed, "killed by SIGSEGV");
  add("not-today", 0.1, 0, BenchmarkStatus::skipped, "needs a GPU");
  add("brand-new", 0, 0.1);
  jr.head.environment_key = jr.base->environment_key = "0123456789abcdef0123";
  jr.head.machine_fingerprint = "feedfacefeedface";
  jr.head.host_drifted = true;
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {},
                                  std::nullopt, {"https://bench.example.org/"});
  const std::string& md = rep.markdown;
  INFO(md);
  CHECK(rep.overall == report::Overall::failed);
  const size_t much = md.find("| `micro/much-slower:wall_time`"), slightly = md.find("| `micro/slightly-slower:wall_time`");
  REQUIRE(much != std::string::npos);
  REQUIRE(slightly != std::string::npos);
  CHECK(much < slightly);  // the larger regression first
  CHECK(slightly < md.find("| `micro/faster:wall_time`"));
  CHECK(md.find("#### Failed (1)\n\n- `micro/crashes:wall_time`: killed by SIGSEGV") != std::string::npos);
  CHECK(md.find("#### Skipped (1)\n\n- `micro/not-today:wall_time`: needs a GPU") != std::string::npos);
  CHECK(md.find("#### New on head (1)") != std::string::npos);
  CHECK(md.find("<details><summary>Unchanged (1)</summary>") != std::string::npos);
  CHECK(md.find("<details><summary>Unchanged (1)</summary>") > md.find("| `micro/faster:wall_time`"));
  CHECK(md.find("Environment `0123456789ab` · host `feedfacefeed`, tuning **drifted** during the run") !=
        std::string::npos);
  CHECK(md.find("\n\nContainment: not recorded\n\n") != std::string::npos);
  CHECK(md.find("<details><summary>Reproduce locally</summary>") != std::string::npos);
  CHECK(md.find("git checkout --quiet 0123456789abcdef") != std::string::npos);
  CHECK(md.find("curl -sSfo result.json 'https://bench.example.org/r/o/r/runs/5.result.json'") != std::string::npos);
  CHECK(md.find("https://bench.example.org/r/o/r/runs/5.html") != std::string::npos);
  CHECK_FALSE(rep.reproduce.empty());
}

TEST_CASE("the report's tuning is what tunerd said, never assumed") {
  JobResult jr = pr_result(0.100, 0.100);
  jr.head.machine_fingerprint = "feedfacefeedface";
  auto line = [&](const std::string& tuning) {
    jr.head.tuning = tuning;
    const std::string md = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {}).markdown;
    const size_t at = md.find("host `feedfacefeed`, ");
    return at == std::string::npos ? std::string() : md.substr(at, md.find('\n', at) - at);
  };
  CHECK(line("tuned") == "host `feedfacefeed`, tuning held");
  CHECK(line("untuned") == "host `feedfacefeed`, tuning **untuned** (tunerd's state when the job began)");
  CHECK(line("partial") == "host `feedfacefeed`, tuning **partial** (tunerd's state when the job began)");
  CHECK(line("") == "host `feedfacefeed`, tuning unknown (tunerd did not say)");
  // Kept in the result file.
  auto back = model::result_set_from_json(model::to_json(jr.head));
  REQUIRE(back.ok());
  CHECK(back->tuning == "");
  jr.head.tuning = "untuned";
  CHECK(model::result_set_from_json(model::to_json(jr.head))->tuning == "untuned");
  CHECK(report::tuning_of(jr.head) == "untuned");
  jr.head.host_drifted = true;
  CHECK(report::tuning_of(jr.head) == "drifted");
}

TEST_CASE("a suite a pull request did not affect is reported skipped beside its last main-branch value") {
  JobResult jr;
  jr.job_id = 9;
  jr.kind = "pull_request";
  jr.base = run(9, "base", 0.100, "base");
  jr.head = run(9, "head", 0.101, "head");
  const std::string why = std::string(kNotAffected) + ": the pull request changes none of its paths (src/parser/)";
  for (ResultSet* rs : {&*jr.base, &jr.head}) {
    rs->suites["micro"].status = BenchmarkStatus::ok;
    rs->suites["parser"].status = BenchmarkStatus::skipped;
    rs->suites["parser"].reason = why;
  }
  CHECK(report::has_not_affected(jr));
  ResultSet main_run = run(7, "c0ffee0000000000000000000000000000000000", 0.002);
  main_run.benchmarks[0].key = {"parser", "lex", {}, "wall_time"};
  Benchmark other = main_run.benchmarks[0];
  other.key = {"parser", "parse", {}, "wall_time"};
  main_run.benchmarks.push_back(other);
  main_run.benchmarks.push_back(run(7, "x", 0.5).benchmarks[0]);  // micro/loop: not added again

  report::add_not_affected(jr, main_run);
  auto rep = report::build_report(done_job(9, JobKind::pull_request), jr, std::nullopt, {});
  INFO(rep.markdown);
  int skipped = 0, missing = 0;
  for (const auto& row : rep.json["comparison"]["rows"]) {
    if (row["verdict"] == "skipped") ++skipped;
    if (row["verdict"] == "missing") ++missing;
  }
  CHECK(skipped == 2);
  CHECK(missing == 0);
  CHECK(rep.markdown.find("not affected") != std::string::npos);
  CHECK(rep.markdown.find("last on refs/heads/main: 0.002") != std::string::npos);
  CHECK(rep.markdown.find("at c0ffee000000 (not re-measured)") != std::string::npos);

  // No earlier run on the branch: the suite says so, nothing is invented.
  JobResult lone = jr;
  lone.head.benchmarks.resize(1);
  lone.base->benchmarks.resize(1);
  report::add_not_affected(lone, std::nullopt);
  CHECK(lone.head.benchmarks.size() == 1);
  CHECK(lone.head.suites["parser"].reason.find("the base branch has no earlier run to show") != std::string::npos);
}

TEST_CASE("every report says whose rights the repository's code had, and flags the runner's own") {
  model::JobResult jr;
  jr.kind = "push";
  jr.head.commit = "0123456789abcdef0123456789abcdef01234567";
  jr.head.containment = "transient service as benchbox-job (owns nothing); network: loopback only";
  auto contained = report::build_report(done_job(6, JobKind::push), jr, std::nullopt, {}, std::nullopt, {});
  CHECK(contained.markdown.find("\n\nContainment: transient service as benchbox-job (owns nothing); network: "
                                "loopback only\n\n") != std::string::npos);
  jr.head.containment = "runner's own user: runnerd is not root";
  auto loose = report::build_report(done_job(7, JobKind::push), jr, std::nullopt, {}, std::nullopt, {});
  INFO(loose.markdown);
  CHECK(loose.markdown.find("⚠ **Not contained: the build and benchmark ran with the runner's own rights "
                            "(runner's own user: runnerd is not root)**") != std::string::npos);
}
