// The bisection record driven job by job, as the reporter drives it:
// confirmation, steps, skips, refutation, and its storage in history.db.
#include <catch2/catch.hpp>

#include "store/test_location.h"
#include "report/bisection.h"
#include "report/history.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::report;

namespace {

const std::string kBisectKey = "s/loop:cpu_time";

std::string sha(int i) {
  std::string s = std::to_string(i);
  return std::string(40 - s.size(), 'c') + s;
}

compare::Comparison rows(compare::Verdict v, double ratio) {
  compare::Comparison c;
  compare::BenchmarkComparison r;
  r.key = {"s", "loop", {}, "cpu_time"};
  r.verdict = v;
  r.ratio = ratio;
  r.ci_low = ratio - 0.01;
  r.ci_high = ratio + 0.01;
  c.rows.push_back(r);
  return c;
}

Bisection fresh(int n) {
  Bisection b;
  b.repository = "o/r";
  b.ref = "refs/heads/main";
  b.clone_url = "https://github.com/o/r.git";
  b.regression_id = 4;
  b.good = sha(0);
  b.bad = sha(n);
  b.keys = {kBisectKey};
  return b;
}

std::vector<model::RangeCommit> range(int n) {
  std::vector<model::RangeCommit> out;
  for (int i = 1; i <= n; ++i)
    out.push_back({sha(i), {1700000000 + i, "Dev " + std::to_string(i) + " <d@x>",
                            i == 9 ? "Merge pull request #77 from dev/slow" : "commit " + std::to_string(i), 100 + i}});
  return out;
}

// Plays the queue and the runner: each job gets an id and finishes with
// what `verdict(base, head)` says.
struct BisectBox {
  int64_t next_id = 100;
  model::Job job_for(const model::JobSpec& s, model::JobState state = model::JobState::done) {
    model::Job j;
    j.id = next_id++;
    j.spec = s;
    j.state = state;
    return j;
  }
};

// A bisection of n commits past its confirmation (regressed 1.2x): the
// next job is its first step.
Bisection confirmed(int n, BisectBox& box) {
  Bisection b = fresh(n);
  model::Job confirm = box.job_for(*next_job(b));
  b.waiting_job = confirm.id;
  const auto c = rows(compare::Verdict::regressed, 1.2);
  REQUIRE(advance(b, confirm, &c, range(n)).confirmed);
  return b;
}

}  // namespace

TEST_CASE("a confirmed regression is bisected to its first bad commit, named with its author and pull request") {
  Bisection b = fresh(16);
  BisectBox box;
  auto spec = next_job(b);
  REQUIRE(spec);
  CHECK(spec->kind == model::JobKind::compare);
  CHECK(spec->base_sha == sha(0));
  CHECK(spec->head_sha == sha(16));
  CHECK(spec->threshold == 0);  // the confirmation asks at the suite's own thresholds
  CHECK(spec->priority < 0);
  model::Job confirm = box.job_for(*spec);
  b.waiting_job = confirm.id;
  CHECK_FALSE(next_job(b));  // one job at a time
  const auto c = rows(compare::Verdict::regressed, 1.10);
  auto a = advance(b, confirm, &c, range(16));
  CHECK(a.used);
  CHECK(a.confirmed);
  CHECK(b.state == BisectionState::bisecting);
  CHECK(b.confirm_detail.find("1.10×") != std::string::npos);
  CHECK(step_text(b).find("16 commits left") != std::string::npos);

  // The culprit is commit 9; each step against the nearest good commit.
  for (int guard = 0; guard < 20 && !b.finished(); ++guard) {
    auto s = next_job(b);
    REQUIRE(s);
    CHECK(s->threshold == Approx(0.05));  // half the confirmed 10 %
    const int base = s->base_sha == sha(0) ? 0 : std::stoi(s->base_sha.substr(s->base_sha.find_first_not_of('c')));
    const int head = std::stoi(s->head_sha.substr(s->head_sha.find_first_not_of('c')));
    model::Job j = box.job_for(*s);
    b.waiting_job = j.id;
    const auto v = base < 9 && 9 <= head ? rows(compare::Verdict::regressed, 1.10) : rows(compare::Verdict::unchanged, 1.0);
    CHECK(advance(b, j, &v, {}).used);
  }
  REQUIRE(b.state == BisectionState::done);
  CHECK(b.culprit == sha(9));
  CHECK_FALSE(b.second_regression);
  const std::string md = markdown(b);
  INFO(md);
  CHECK(md.find("**First bad commit:** `" + sha(9) + "` Merge pull request #77 from dev/slow (Dev 9 <d@x>), pull "
                "request #77") != std::string::npos);
  CHECK(md.find("1.10×") != std::string::npos);
  CHECK(md.find("| step | commit |") != std::string::npos);
  CHECK(step_text(b).rfind("done: first bad commit", 0) == 0);

  // Round trip through history.db, and the queries the reporter uses.
  test::TempDir dir;
  auto h = HistoryStore::open(store::testdb::location(dir.file("history.db")));
  REQUIRE(h.ok());
  b.group_id = 7;
  REQUIRE(h->save_bisection(b, 1700000000).ok());
  auto back = h->bisection_by_group(7);
  REQUIRE(back.ok());
  REQUIRE(*back);
  CHECK((*back)->culprit == sha(9));
  CHECK((*back)->steps.size() == b.steps.size());
  CHECK((*back)->range.size() == 16);
  CHECK(markdown(**back) == md);
  CHECK(h->active_bisections()->empty());
  Bisection active = fresh(3);
  REQUIRE(h->save_bisection(active, 1700000001).ok());
  CHECK(h->active_bisections()->size() == 1);
}

TEST_CASE("a regression the confirmation does not reproduce is refuted, with the interval that refuted it") {
  Bisection b = fresh(4);
  BisectBox box;
  model::Job confirm = box.job_for(*next_job(b));
  b.waiting_job = confirm.id;
  const auto c = rows(compare::Verdict::unchanged, 1.001);
  auto a = advance(b, confirm, &c, range(4));
  CHECK(a.refuted);
  CHECK(a.finished);
  CHECK(b.state == BisectionState::refuted);
  CHECK(b.outcome.find("not confirmed") != std::string::npos);
  CHECK(b.outcome.find("[0.991, 1.011]") != std::string::npos);
  CHECK_FALSE(next_job(b));
}

TEST_CASE("a confirmation that cannot run fails the bisection; a step that fails is skipped; stale jobs are ignored") {
  SECTION("the confirmation failed") {
    Bisection b = fresh(4);
    BisectBox box;
    model::Job confirm = box.job_for(*next_job(b), model::JobState::failed);
    confirm.error = "build failed";
    b.waiting_job = confirm.id;
    auto a = advance(b, confirm, nullptr, {});
    CHECK(a.finished);
    CHECK(b.state == BisectionState::failed);
    CHECK(b.outcome.find("build failed") != std::string::npos);
  }
  SECTION("a confirmation that failed for something else is run once more, then fails") {
    Bisection b = fresh(4);
    BisectBox box;
    model::Job confirm = box.job_for(*next_job(b), model::JobState::failed);
    confirm.error = "lease expired: runner r1 stopped answering";
    b.waiting_job = confirm.id;
    auto a = advance(b, confirm, nullptr, {});
    CHECK(a.used);
    CHECK_FALSE(a.finished);
    CHECK(b.state == BisectionState::confirming);
    auto again = next_job(b);
    REQUIRE(again);
    CHECK(again->head_sha == sha(4));
    // It survives storage, and a second failure ends it with both reasons.
    auto stored = bisection_from_json(to_json(b));
    REQUIRE(stored.ok());
    b = *stored;
    model::Job second = box.job_for(*again, model::JobState::failed);
    second.error = "fetch failed: connection refused";
    b.waiting_job = second.id;
    CHECK(advance(b, second, nullptr, {}).finished);
    CHECK(b.state == BisectionState::failed);
    CHECK(b.outcome.find("failed twice: lease expired: runner r1 stopped answering; then fetch failed") !=
          std::string::npos);
  }
  SECTION("a step that failed for something other than its commit is measured again") {
    BisectBox box;
    Bisection b = confirmed(4, box);
    auto s = next_job(b);
    REQUIRE(s);
    model::Job crashed = box.job_for(*s, model::JobState::failed);
    crashed.error = "no benchmark could be measured: suite 's' on cccc: killed by SIGKILL";
    b.waiting_job = crashed.id;
    CHECK(advance(b, crashed, nullptr, {}).used);
    CHECK(b.steps.empty());  // not skipped
    auto again = next_job(b);
    REQUIRE(again);
    CHECK(again->head_sha == s->head_sha);  // the same commit, once more
    model::Job ok = box.job_for(*again);
    b.waiting_job = ok.id;
    const auto good = rows(compare::Verdict::unchanged, 1.0);
    advance(b, ok, &good, {});
    REQUIRE(b.steps.size() == 1);
    CHECK(b.steps[0].outcome == StepOutcome::good);
    // A failure that repeats skips the commit, saying so.
    auto next = next_job(b);
    REQUIRE(next);
    for (int i = 0; i < 2; ++i) {
      model::Job dies = box.job_for(*next, model::JobState::failed);
      dies.error = "killed by SIGSEGV";
      b.waiting_job = dies.id;
      advance(b, dies, nullptr, {});
    }
    REQUIRE(b.steps.size() == 2);
    CHECK(b.steps[1].outcome == StepOutcome::skipped);
    CHECK(b.steps[1].detail == "failed twice: killed by SIGSEGV; then killed by SIGSEGV");
  }
  SECTION("a step whose commit does not build") {
    BisectBox box;
    Bisection b = confirmed(4, box);
    auto s = next_job(b);
    REQUIRE(s);
    model::Job broken = box.job_for(*s, model::JobState::failed);
    broken.error = "build: make: *** [all] Error 2";
    b.waiting_job = broken.id;
    // A job of another bisection, or a repeat, changes nothing.
    model::Job stale = broken;
    stale.id = 1;
    CHECK_FALSE(advance(b, stale, nullptr, {}).used);
    CHECK(advance(b, broken, nullptr, {}).used);
    REQUIRE(b.steps.size() == 1);
    CHECK(b.steps[0].outcome == StepOutcome::skipped);
    CHECK(b.steps[0].detail.find("Error 2") != std::string::npos);
    auto again = next_job(b);
    REQUIRE(again);
    CHECK(again->head_sha != s->head_sha);  // the neighbour, not the broken commit again
  }
  SECTION("a one-commit range needs no bisection") {
    Bisection b = fresh(1);
    BisectBox box;
    model::Job confirm = box.job_for(*next_job(b));
    b.waiting_job = confirm.id;
    const auto c = rows(compare::Verdict::regressed, 1.2);
    auto a = advance(b, confirm, &c, range(1));
    CHECK(a.confirmed);
    CHECK(a.finished);
    CHECK(b.state == BisectionState::done);
    CHECK(b.culprit == sha(1));
  }
}

TEST_CASE("a regression's bisection follows every benchmark its confirmation found regressed; an operator's, what was asked") {
  auto confirmed = [] {
    compare::Comparison c;
    auto row = [&](const std::string& name, compare::Verdict v, double ratio) {
      compare::BenchmarkComparison r;
      r.key = {"s", name, {}, "cpu_time"};
      r.verdict = v;
      r.ratio = ratio;
      r.ci_low = ratio - 0.01;
      r.ci_high = ratio + 0.01;
      c.rows.push_back(r);
    };
    row("loop", compare::Verdict::regressed, 1.20);    // what the regression named
    row("parse", compare::Verdict::regressed, 1.30);   // found by the confirmation
    row("hash", compare::Verdict::regressed, 1.05);    // too small for the steps (threshold 10 %)
    row("sort", compare::Verdict::unchanged, 1.0);
    return c;
  }();
  BisectBox box;
  Bisection b = fresh(8);
  model::Job confirm = box.job_for(*next_job(b));
  b.waiting_job = confirm.id;
  REQUIRE(advance(b, confirm, &confirmed, range(8)).confirmed);
  CHECK(b.keys == std::vector<std::string>{kBisectKey, "s/parse:cpu_time"});
  CHECK(markdown(b).find("**Followed** 2 benchmarks") != std::string::npos);
  CHECK(markdown(b).find("`s/parse:cpu_time`") != std::string::npos);

  Bisection asked = fresh(8);
  asked.regression_id = 0;  // an operator's --benchmark s/loop
  asked.keys = {"s/loop"};
  model::Job c2 = box.job_for(*next_job(asked));
  asked.waiting_job = c2.id;
  REQUIRE(advance(asked, c2, &confirmed, range(8)).confirmed);
  CHECK(asked.keys == std::vector<std::string>{kBisectKey});
  CHECK(markdown(asked).find("**Followed**") == std::string::npos);
}

TEST_CASE("a second regression after the culprit is noted in the issue, not chased") {
  Bisection b = fresh(8);
  BisectBox box;
  auto drive = [&](const model::JobSpec& s) {
    auto idx = [](const std::string& sha) { return std::stoi(sha.substr(sha.find_first_not_of('c'))); };
    const int base = idx(s.base_sha), head = idx(s.head_sha);
    // Regressions at commits 3 and 6: bad when one lies in (base, head].
    const bool bad = (base < 3 && 3 <= head) || (base < 6 && 6 <= head);
    model::Job j = box.job_for(s);
    b.waiting_job = j.id;
    const auto c = bad ? rows(compare::Verdict::regressed, 1.2) : rows(compare::Verdict::unchanged, 1.0);
    advance(b, j, &c, range(8));
  };
  for (int guard = 0; guard < 20 && !b.finished(); ++guard) drive(*next_job(b));
  REQUIRE(b.state == BisectionState::done);
  CHECK(b.culprit == sha(3));
  CHECK(b.second_regression);
  CHECK(markdown(b).find("A second regression lies after it") != std::string::npos);
}

TEST_CASE("pull request numbers from merge and squash subjects") {
  CHECK(pull_request_of("Merge pull request #123 from a/b") == 123);
  CHECK(pull_request_of("Make the parser faster (#45)") == 45);
  CHECK(pull_request_of("Fix #12 in the docs") == 0);
  CHECK(pull_request_of("") == 0);
}
