// A sharded suite's report from its group of shard jobs, at every stage:
// nothing done, some done, one lost, all done; and the check run it makes.
#include <catch2/catch.hpp>

#include <set>

#include "report/github_wants.h"
#include "report/shard_merge.h"

using namespace bb;
using namespace bb::model;

namespace {

const std::vector<std::vector<std::string>> kShards = {{"BM_a", "BM_e"}, {"BM_b", "BM_f"}, {"BM_c"}, {"BM_d"}};

ResultSet side(int64_t job, const std::vector<std::string>& names, const std::string& role, double value) {
  ResultSet rs;
  rs.repository = "o/r";
  rs.ref = "refs/pull/4/head";
  rs.commit = std::string(40, role == "base" ? 'b' : 'h');
  rs.job_id = job;
  rs.role = role;
  rs.environment_key = "env";
  SuiteOutcome o;
  o.declared = names;
  o.declared_by = "shard";
  rs.suites["micro"] = o;
  for (const auto& n : names) {
    Benchmark b;
    b.key = {"micro", n, {}, "wall_time"};
    for (int i = 0; i < 20; ++i) {
      b.samples.push_back(value * (1 + 0.001 * (i % 5)));
      b.rounds.push_back(i);
    }
    rs.benchmarks.push_back(b);
  }
  return rs;
}

// Shard `n` (1-based) of kShards, job 10 + n, in `state`; done ones with
// their pair measured, head `slower` times the base.
report::ShardJob shard(int n, JobState state, double slower = 1.0) {
  report::ShardJob s;
  Job& j = s.job;
  j.id = 10 + n;
  j.state = state;
  j.spec.kind = JobKind::pull_request;
  j.spec.repository = "o/r";
  j.spec.ref = "refs/pull/4/head";
  j.spec.pr_number = 4;
  j.spec.head_sha = std::string(40, 'h');
  j.spec.group_id = 7;
  j.spec.suite = "micro";
  j.spec.shard = n;
  j.spec.shards = 4;
  j.spec.benchmarks = kShards[n - 1];
  if (state == JobState::running) j.runner = "box-2";
  if (state == JobState::failed) {
    j.attempts = 3;
    j.error = "lease expired 3 times";
  }
  if (state == JobState::done) {
    JobResult r;
    r.job_id = j.id;
    r.kind = "pull_request";
    r.base = side(j.id, kShards[n - 1], "base", 1.0);
    r.head = side(j.id, kShards[n - 1], "head", slower);
    s.result = r;
  }
  return s;
}

std::multiset<std::string> rows(const report::JobReport& r) {
  std::multiset<std::string> out;
  for (const auto& row : r.comparison->rows) out.insert(row.key.name);
  return out;
}

const report::PostingPolicy kMergePolicy{"", "changes", ""};

}  // namespace

TEST_CASE("a sharded suite before any shard is done: queued, nothing measured yet") {
  auto m = report::merge_shards(7, {shard(1, JobState::queued), shard(2, JobState::queued),
                                    shard(3, JobState::queued), shard(4, JobState::queued)});
  REQUIRE(m.ok());
  CHECK(m->progress.text().rfind("0 of 4 shards done; pending: shard 1 (job 11, queued)", 0) == 0);
  CHECK_FALSE(m->result);
  auto rep = report::shards_report(*m, std::nullopt, {});
  CHECK(rep.markdown.find("Nothing measured yet") != std::string::npos);
  CHECK(rep.json["shards"]["done"] == 0);
  auto want = report::shards_check_run_want(rep, m->progress, kMergePolicy);
  REQUIRE(want);
  const auto& run = std::get<github_api::CheckRunWant>(want->what);
  CHECK(want->target == "check-run/o/r/group-7");
  CHECK(run.name == "benchbox: micro");
  CHECK(run.external_id == "group-7");
  CHECK(run.status == "queued");
  CHECK(run.title == "0 of 4 shards done");
}

TEST_CASE("shards as they arrive: merged once each, pending named, in progress") {
  // Out of order, as a queue may list them.
  auto m = report::merge_shards(7, {shard(4, JobState::queued), shard(2, JobState::running),
                                    shard(1, JobState::done), shard(3, JobState::done)});
  REQUIRE(m.ok());
  CHECK(m->progress.done == 2);
  CHECK(m->progress.text() == "2 of 4 shards done; pending: shard 2 (job 12, running on `box-2`); "
                              "shard 4 (job 14, queued)");
  REQUIRE(m->result);
  CHECK(m->result->head.benchmarks.size() == 3);
  CHECK(m->result->base->benchmarks.size() == 3);
  CHECK(m->job.spec.shard == 0);
  CHECK(m->job.spec.group_id == 0);
  auto rep = report::shards_report(*m, std::nullopt, {});
  CHECK(rows(rep) == std::multiset<std::string>{"BM_a", "BM_c", "BM_e"});
  CHECK(rep.markdown.rfind("## benchbox: o/r suite `micro`, sharded (job group 7)\n\n**2 of 4 shards done**", 0) == 0);
  CHECK(rep.markdown.find("shard 4 (job 14, queued)") != std::string::npos);
  auto want = report::shards_check_run_want(rep, m->progress, kMergePolicy);
  REQUIRE(want);
  const auto& run = std::get<github_api::CheckRunWant>(want->what);
  CHECK(run.status == "in_progress");
  CHECK(run.conclusion.empty());
  CHECK(run.title == "2 of 4 shards done");
}

TEST_CASE("a shard whose attempts ran out: its benchmarks are missing with why, and the suite fails") {
  auto m = report::merge_shards(7, {shard(1, JobState::done), shard(2, JobState::failed), shard(3, JobState::done),
                                    shard(4, JobState::done)});
  REQUIRE(m.ok());
  CHECK(m->progress.finished());
  REQUIRE(m->progress.lost.size() == 1);
  CHECK(m->progress.lost[0] == "shard 2 (job 12) failed after 3 attempts: lease expired 3 times");
  auto rep = report::shards_report(*m, std::nullopt, {});
  // Every benchmark of the manifest exactly once.
  CHECK(rows(rep) == std::multiset<std::string>{"BM_a", "BM_b", "BM_c", "BM_d", "BM_e", "BM_f"});
  for (const auto& row : rep.comparison->rows) {
    const bool lost = row.key.name == "BM_b" || row.key.name == "BM_f";
    CHECK((row.verdict == compare::Verdict::missing) == lost);
    if (lost) CHECK(row.note == m->progress.lost[0]);
  }
  CHECK(rep.missing);
  auto want = report::shards_check_run_want(rep, m->progress, kMergePolicy);
  REQUIRE(want);
  const auto& run = std::get<github_api::CheckRunWant>(want->what);
  CHECK(run.status == "completed");
  CHECK(run.conclusion == "failure");
  CHECK(run.summary.find("lease expired 3 times") != std::string::npos);
}

TEST_CASE("every shard done: one suite's verdict, as a single job's would be") {
  auto m = report::merge_shards(7, {shard(1, JobState::done), shard(2, JobState::done, 1.2),
                                    shard(3, JobState::done), shard(4, JobState::done)});
  REQUIRE(m.ok());
  auto rep = report::shards_report(*m, std::nullopt, {});
  CHECK(rep.overall == report::Overall::regressed);
  CHECK(rows(rep).size() == 6);
  CHECK(rep.markdown.find("**4 of 4 shards done**.") != std::string::npos);
  auto want = report::shards_check_run_want(rep, m->progress, kMergePolicy);
  REQUIRE(want);
  CHECK(std::get<github_api::CheckRunWant>(want->what).conclusion == "failure");
  CHECK(rep.json["shards"]["finished"] == true);
}

TEST_CASE("no shard finished with results: the suite failed, saying why") {
  auto m = report::merge_shards(7, {shard(1, JobState::failed), shard(2, JobState::cancelled)});
  REQUIRE(m.ok());
  CHECK(m->job.state == JobState::failed);
  auto rep = report::shards_report(*m, std::nullopt, {});
  CHECK(rep.overall == report::Overall::failed);
  CHECK(rep.markdown.find("lease expired 3 times") != std::string::npos);
}

TEST_CASE("a group that is not one suite's shards is refused") {
  auto other = shard(2, JobState::queued);
  other.job.spec.suite = "macro";
  CHECK_FALSE(report::merge_shards(7, {shard(1, JobState::queued), other}).ok());
  auto plain = shard(1, JobState::queued);
  plain.job.spec.shard = 0;
  CHECK_FALSE(report::merge_shards(7, {plain}).ok());
  CHECK_FALSE(report::merge_shards(7, {}).ok());
}
