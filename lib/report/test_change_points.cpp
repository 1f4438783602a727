#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>

#include "store/test_location.h"
#include "report/change_points.h"
#include "report/job_report.h"
#include "report/site.h"
#include "stats/rng.h"
#include "util/file.h"
#include "util/test_tempdir.h"

using namespace bb;

namespace {

std::string commit_of(size_t i) { return "c" + std::to_string(1000 + i) + std::string(36, 'a'); }

// 40 runs, medians 1.0 then `step` from index `at`, each with +-0.5 % noise.
report::Series step_series(double step, size_t at, size_t n = 40, uint64_t noise_seed = 7) {
  report::Series s{"o/r", "micro/loop:wall_time", "env1", "s", {}};
  stats::Rng rng(noise_seed);
  for (size_t i = 0; i < n; ++i) {
    report::SeriesPoint p;
    p.job_id = int64_t(100 + i);
    p.commit = commit_of(i);
    p.median = (i < at ? 1.0 : step) * (1 + 0.01 * (rng.uniform() - 0.5));
    p.samples = 20;
    p.status = "ok";
    s.points.push_back(p);
  }
  return s;
}

using Dir = bb::test::TempDir;

model::ResultSet noisy_run(int64_t job, const std::string& commit, double value) {
  model::ResultSet rs;
  rs.repository = "o/r";
  rs.ref = "refs/heads/main";
  rs.commit = commit;
  rs.job_id = job;
  rs.environment_key = "env1";
  model::Benchmark b;
  b.key = {"micro", "loop", {}, "wall_time"};
  stats::Rng rng{uint64_t(job)};
  for (int i = 0; i < 5; ++i) b.samples.push_back(value * (1 + 0.01 * (rng.uniform() - 0.5)));
  rs.benchmarks.push_back(b);
  return rs;
}

}  // namespace

TEST_CASE("a flat series has no change point") {
  CHECK(report::detect_changes(step_series(1.0, 40)).empty());
}

TEST_CASE("a +10 % step at run 20 of 40 is found with its commit range and effect") {
  const report::Series s = step_series(1.10, 20);
  const auto changes = report::detect_changes(s);
  REQUIRE(changes.size() == 1);
  const auto& c = changes[0];
  CHECK(c.index == 20);
  CHECK(c.commit_before == commit_of(19));
  CHECK(c.commit_after == commit_of(20));
  CHECK(c.range() == commit_of(19).substr(0, 12) + ".." + commit_of(20).substr(0, 12));
  CHECK(c.job_before == 119);
  CHECK(c.job_after == 120);
  CHECK(c.ratio == Approx(1.10).epsilon(0.01));
  CHECK(c.ci_low < 1.10);
  CHECK(c.ci_high > 1.10);
  CHECK(c.ci_low > 1.05);
  CHECK(c.p_value < 0.05);
  CHECK(c.seed == report::series_seed(s));
  CHECK(c.describe().find(" ×1.1") != std::string::npos);
  CHECK(c.worse);  // a time that grew
  CHECK(c.describe().find(" worse") != std::string::npos);
  // Deterministic: the same series gives the same answer, seed included.
  const auto again = report::detect_changes(s);
  REQUIRE(again.size() == 1);
  CHECK(again[0].p_value == c.p_value);
  CHECK(again[0].ci_low == c.ci_low);
  // The seed follows the series' identity.
  report::Series other = s;
  other.environment_key = "env2";
  CHECK(report::series_seed(other) != report::series_seed(s));
}

TEST_CASE("failed points are skipped; the range names the measured commits either side") {
  report::Series s = step_series(1.10, 20);
  s.points[19].status = "failed";
  s.points[19].median = 0;
  const auto changes = report::detect_changes(s);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].index == 20);
  CHECK(changes[0].commit_before == commit_of(18));
}

TEST_CASE("the cache recomputes only a changed series") {
  report::ChangeCache cache;
  report::Series s = step_series(1.10, 20, 22);  // too few points after the step yet
  CHECK(cache.changes(s).empty());
  s = step_series(1.10, 20, 40);
  CHECK(cache.changes(s).size() == 1);
  s.points[30].median *= 1.5;  // a re-ingested job: same length, new median
  s.points[30].median /= 1.5;
  CHECK(cache.changes(s).size() == 1);
  CHECK(cache.changes(step_series(1.0, 40)).empty());
}

TEST_CASE("a push report lists the recent change point of its series") {
  const report::Series s = step_series(1.10, 20, 26);
  model::Job job;
  job.id = 125;  // the last point of s
  job.state = model::JobState::done;
  job.spec.kind = model::JobKind::push;
  job.spec.repository = "o/r";
  job.spec.ref = "refs/heads/main";
  report::JobReport rep;
  rep.job = job;
  report::ChangeCache cache;
  report::add_change_points(rep, {s}, cache);
  CHECK(rep.markdown.find("### Change points on refs/heads/main") != std::string::npos);
  CHECK(rep.markdown.find(commit_of(19).substr(0, 12) + ".." + commit_of(20).substr(0, 12)) != std::string::npos);
  REQUIRE(rep.json["change_points"].size() == 1);
  CHECK(rep.json["change_points"][0]["benchmark"] == "micro/loop:wall_time");
  CHECK(rep.json["change_points"][0]["index"] == 20);

  // Long after the change (outside the window), nothing is listed.
  report::JobReport late;
  late.job = job;
  late.job.id = 139;
  report::add_change_points(late, {step_series(1.10, 20, 40)}, cache);
  CHECK(late.markdown.empty());
  CHECK(late.json["change_points"].empty());

  // A pull request is not a main-branch run.
  report::JobReport pr;
  pr.job = job;
  pr.job.spec.kind = model::JobKind::pull_request;
  report::add_change_points(pr, {s}, cache);
  CHECK(pr.markdown.empty());
  CHECK_FALSE(pr.json.contains("change_points"));
}

TEST_CASE("a step up of a higher-is-better series is better, a step down worse") {
  report::Series up = step_series(1.10, 20);
  up.direction = model::Direction::higher_is_better;
  auto changes = report::detect_changes(up);
  REQUIRE(changes.size() == 1);
  CHECK_FALSE(changes[0].worse);
  CHECK(changes[0].to_json()["worse"] == false);
  report::Series down = step_series(0.90, 20);
  down.direction = model::Direction::higher_is_better;
  changes = report::detect_changes(down);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].worse);
}

TEST_CASE("history keeps each series' direction") {
  Dir dir;
  auto h = report::HistoryStore::open(store::testdb::location(dir.path + "/history.db"));
  REQUIRE(h.ok());
  model::ResultSet rs = noisy_run(1, commit_of(1), 1.0);
  model::Benchmark rate = rs.benchmarks[0];
  rate.key.metric = "throughput";
  rate.unit = "ops";  // no /s: only the recorded direction says higher-is-better
  rate.direction = model::Direction::higher_is_better;
  rs.benchmarks.push_back(rate);
  REQUIRE(h->ingest(rs, "push").ok());
  auto series = h->series("o/r", "refs/heads/main");
  REQUIRE(series.ok());
  REQUIRE(series->size() == 2);
  for (const auto& s : *series) {
    INFO(s.key);
    CHECK(s.direction == (s.key == "micro/loop:throughput" ? model::Direction::higher_is_better
                                                           : model::Direction::lower_is_better));
  }
}
