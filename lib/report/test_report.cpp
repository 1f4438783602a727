#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>

#include "model/environment.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/profile_diff.h"
#include "report/site.h"
#include "util/file.h"

using namespace bb;
using namespace bb::model;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/bb-report-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~Dir() { std::system(("rm -rf " + path).c_str()); }
};

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
  auto h = report::HistoryStore::open(d.path + "/history.db");
  REQUIRE(h.ok());
  REQUIRE(h->ingest(run(1, "aaa", 0.1), "push").ok());
  REQUIRE(h->ingest(run(2, "bbb", 0.2), "push").ok());
  auto prev = h->previous_run("o/r", "refs/heads/main", "env1", 2);
  REQUIRE(prev.ok());
  REQUIRE(prev->has_value());
  CHECK((*prev)->commit == "aaa");
  CHECK((*prev)->benchmarks.at(0).samples.size() == 20);
  CHECK_FALSE(h->previous_run("o/r", "refs/heads/main", "other-env", 3)->has_value());
  auto series = h->series("o/r", "refs/heads/main");
  REQUIRE(series.ok());
  REQUIRE(series->size() == 1);
  CHECK(series->at(0).points.size() == 2);
  CHECK(series->at(0).points.at(1).median == Approx(0.2 * 1.002));
  // Reopening the file keeps everything.
  auto again = report::HistoryStore::open(d.path + "/history.db");
  REQUIRE(again.ok());
  CHECK(again->has_job(2));
}

TEST_CASE("a PR report compares head with the merge-base and shows a regression") {
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "pull_request";
  jr.base = run(5, "base", 0.100, "base");
  jr.head = run(5, "head", 0.120, "head");
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::regressed);
  CHECK(rep.markdown.find("pull request #4") != std::string::npos);
  CHECK(rep.markdown.find("regressed") != std::string::npos);
  CHECK(rep.json["overall"] == "regressed");
}

TEST_CASE("the report judges with the suite's thresholds from the result set") {
  JobResult jr;
  jr.job_id = 5;
  jr.kind = "pull_request";
  jr.base = run(5, "base", 0.100, "base");
  jr.head = run(5, "head", 0.120, "head");
  jr.base->thresholds["micro"]["wall_time"] = jr.head.thresholds["micro"]["wall_time"] = 0.25;
  auto rep = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  CHECK(rep.overall != report::Overall::regressed);
  CHECK(rep.json["comparison"]["rows"][0]["threshold"] == 0.25);
}

TEST_CASE("a first run in a new environment says which input changed") {
  Dir d;
  auto h = report::HistoryStore::open(d.path + "/history.db");
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
  auto previous = h->previous_run("o/r", "refs/heads/main", now.environment_key, 2);
  REQUIRE(previous.ok());
  CHECK_FALSE(*previous);
  auto elsewhere = h->latest_run("o/r", "refs/heads/main", 2);
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
  // A profile gone from disk: the section says so, the report stays.
  std::system(("rm " + d.path + "/head.out").c_str());
  auto again = report::build_report(done_job(5, JobKind::pull_request), jr, std::nullopt, {});
  report::add_profile_diffs(again, *jr.base, jr.head);
  CHECK(again.markdown.find("Not available: ") != std::string::npos);
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

TEST_CASE("a first run is recorded; a failed benchmark in it is a failure") {
  JobResult jr;
  jr.head = run(7, "c", 0.1);
  auto rep = report::build_report(done_job(7, JobKind::push), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::recorded);
  jr.head.benchmarks[0].status = BenchmarkStatus::failed;
  jr.head.benchmarks[0].reason = "killed by SIGSEGV";
  rep = report::build_report(done_job(7, JobKind::push), jr, std::nullopt, {});
  CHECK(rep.overall == report::Overall::failed);
  CHECK(rep.markdown.find("SIGSEGV") != std::string::npos);
}

TEST_CASE("the site is written with escaped names and a trend line") {
  Dir d;
  auto h = report::HistoryStore::open(d.path + "/history.db");
  REQUIRE(h.ok());
  REQUIRE(h->ingest(run(1, "aaa", 0.1), "push").ok());
  REQUIRE(h->ingest(run(2, "bbb", 0.2), "push").ok());
  REQUIRE(report::render_site(*h, d.path + "/site", d.path + "/reports").ok());
  auto index = read_file(d.path + "/site/index.html");
  REQUIRE(index.ok());
  CHECK(index->find("o_r.html") != std::string::npos);
  auto page = read_file(d.path + "/site/o_r.html");
  REQUIRE(page.ok());
  CHECK(page->find("<polyline") != std::string::npos);
  CHECK(report::html_escape("<a&\"") == "&lt;a&amp;&quot;");
}

TEST_CASE("a callgrind series links the profiles of its latest run and the run before it") {
  Dir d;
  auto h = report::HistoryStore::open(d.path + "/history.db");
  REQUIRE(h.ok());
  auto callgrind = [](int64_t job, const std::string& commit, std::vector<std::string> files) {
    ResultSet rs = run(job, commit, 0.1);
    rs.benchmarks[0].key.metric = "instructions";
    rs.benchmarks[0].unit = "count";
    if (!files.empty()) rs.benchmarks[0].extra["profiles"] = files;
    return rs;
  };
  REQUIRE(h->ingest(callgrind(1, "aaaaaaaaaaaaaaaa", {"/r/1/profiles/run/cg/callgrind.out.1"}), "push").ok());
  REQUIRE(h->ingest(callgrind(2, "bbbbbbbbbbbbbbbb", {}), "push").ok());
  REQUIRE(h->ingest(callgrind(3, "cccccccccccccccc", {"/r/3/profiles/run/cg/callgrind.out.7&"}), "push").ok());
  auto series = h->series("o/r", "refs/heads/main");
  REQUIRE(series.ok());
  REQUIRE(series->size() == 1);
  const auto& s = series->front();
  CHECK(s.points[0].profiles == std::vector<std::string>{"/r/1/profiles/run/cg/callgrind.out.1"});
  CHECK(s.points[1].profiles.empty());
  const std::string cell = report::profiles_cell(s);
  CHECK(cell ==
        "latest <code>cccccccccccc</code>: <a href=\"file:///r/3/profiles/run/cg/callgrind.out.7&amp;\">"
        "callgrind.out.7&amp;</a><br>before <code>aaaaaaaaaaaa</code>: "
        "<a href=\"file:///r/1/profiles/run/cg/callgrind.out.1\">callgrind.out.1</a>");
  REQUIRE(report::render_site(*h, d.path + "/site", d.path + "/reports").ok());
  auto page = read_file(d.path + "/site/o_r.html");
  REQUIRE(page.ok());
  CHECK(page->find(cell) != std::string::npos);
  // A series whose latest run kept no profile shows none.
  REQUIRE(h->ingest(callgrind(4, "dddddddddddddddd", {}), "push").ok());
  CHECK(report::profiles_cell(h->series("o/r", "refs/heads/main")->front()).empty());
}
