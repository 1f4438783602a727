// The notifications a regression raises: one id per event and regression,
// the link to where maintainers look, and the details the schema lists.
#include <catch2/catch.hpp>

#include "report/notices.h"
#include "report/regression.h"
#include "util/text.h"

using namespace bb;
using namespace bb::report;

namespace {

const std::string kGood(40, 'a'), kBad(40, 'b'), kFix(40, 'c');

Regression regression() {
  Regression r;
  r.id = 7;
  r.repository = "o/r";
  r.ref = "refs/heads/main";
  r.confirmation = "confirmed";
  RegressedBenchmark b;
  b.key = "suite/parse:wall_time";
  b.metric = "wall_time";
  b.ratio = 1.121;
  b.ci_low = 1.10;
  b.ci_high = 1.14;
  b.last_good = kGood;
  b.first_bad = kBad;
  r.benchmarks = {b};
  return r;
}

}  // namespace

TEST_CASE("notices: a confirmed regression names itself, its range and its effect") {
  const Regression r = regression();
  auto n = regression_confirmed_notice(r, "https://bench.example.org/", "", 1796515200);
  CHECK(notify::validate(n).ok());
  CHECK(n.event == "regression_confirmed");
  CHECK(n.id == "regression_confirmed:o/r:refs/heads/main:7");
  CHECK(n.repository == "o/r");
  CHECK(n.time == 1796515200);
  CHECK(n.title == regression_issue_title(r));
  CHECK(n.summary.find("between " + short_sha(kGood) + " and " + short_sha(kBad) + " on main") != std::string::npos);
  CHECK(n.summary.find("suite/parse:wall_time: ") != std::string::npos);
  CHECK(n.url.rfind("https://bench.example.org/", 0) == 0);  // the dashboard when the issue is not known
  CHECK(n.details["regression_id"] == 7);
  CHECK(n.details["last_good"] == kGood);
  CHECK(n.details["first_bad"] == kBad);
  CHECK(n.details["benchmarks"][0]["ratio"] == 1.121);
  CHECK(n.details["issue_url"].is_null());
  CHECK(n.details["confirmation"] == "confirmed");

  // The issue, once GitHub made it, is where to look; the id stays.
  auto with_issue = regression_confirmed_notice(r, "https://bench.example.org/", "https://github.com/o/r/issues/3", 1);
  CHECK(with_issue.url == "https://github.com/o/r/issues/3");
  CHECK(with_issue.id == n.id);
  CHECK(regression_confirmed_notice(r, "", "", 1).url.empty());
}

TEST_CASE("notices: the culprit, with its subject and author when the range knows them") {
  Regression r = regression();
  Bisection b;
  b.regression_id = 7;
  b.culprit = kBad;
  b.range = {{kBad, model::CommitInfo{0, "Ann <ann@example.org>", "parser: copy less", 3}}};
  auto n = culprit_named_notice(r, b, "", "", 5);
  CHECK(notify::validate(n).ok());
  CHECK(n.id == "culprit_named:o/r:refs/heads/main:7");
  CHECK(n.title == "Culprit found on main: " + short_sha(kBad) + " parser: copy less");
  CHECK(n.summary.find("by Ann <ann@example.org>") != std::string::npos);
  CHECK(n.details["culprit"]["commit"] == kBad);
  CHECK(n.details["culprit"]["subject"] == "parser: copy less");
}

TEST_CASE("notices: a closed regression says what fixed it") {
  Regression r = regression();
  r.open = false;
  r.fixed_by = kFix;
  auto n = regression_closed_notice(r, "", "https://github.com/o/r/issues/3", 9);
  CHECK(notify::validate(n).ok());
  CHECK(n.id == "regression_closed:o/r:refs/heads/main:7");
  CHECK(n.summary.find("fixed by " + short_sha(kFix)) != std::string::npos);
  CHECK(n.details["fixed_by"] == kFix);
  // Each event of one regression is its own: none of them stands for another.
  CHECK(n.id != regression_confirmed_notice(r, "", "", 9).id);
}

TEST_CASE("notices: the box's update, applied or rolled back, while it is news") {
  update::Attempt a;
  a.from = "0.9.1";
  a.to = "0.9.2";
  a.outcome = update::Outcome::upgraded;
  a.reason = "0.9.2 is installed and every daemon is ready on it";
  a.started = 1000;
  a.finished = 1100;
  auto n = update_notice(a, "https://bench.example.org/", 1200);
  REQUIRE(n);
  CHECK(notify::validate(*n).ok());
  CHECK(n->event == "update_applied");
  CHECK(n->id == "update_applied:0.9.1:0.9.2:1100");
  CHECK(n->repository.empty());  // the box's own: every repository's destinations that want it
  CHECK(n->title == "benchbox updated from 0.9.1 to 0.9.2");
  CHECK(n->details["outcome"] == "upgraded");
  CHECK(n->url == "https://bench.example.org/");

  a.outcome = update::Outcome::rolled_back;
  a.cut_job = true;
  auto back = update_notice(a, "", 1200);
  REQUIRE(back);
  CHECK(back->event == "update_rolled_back");
  CHECK(back->title == "benchbox update to 0.9.2 rolled back, still on 0.9.1");
  CHECK(back->summary.find("cut and queued again") != std::string::npos);
  CHECK(back->id != n->id);

  CHECK_FALSE(update_notice(a, "", 1100 + 24 * 3600 + 1));  // old news
  for (auto o : {update::Outcome::up_to_date, update::Outcome::refused, update::Outcome::skipped,
                 update::Outcome::failed}) {
    a.outcome = o;
    CHECK_FALSE(update_notice(a, "", 1200));
  }
}

TEST_CASE("notices: the box's health, held when the canary shifts and released when it is steady") {
  canary::Health learning, steady, shifted, back;
  steady.level = canary::Level::steady;
  steady.since = 100;
  shifted.level = canary::Level::shifted;
  shifted.since = 200;
  shifted.workload = "canary/cpu";
  shifted.ratio = 1.12;
  shifted.band = 0.03;
  back.level = canary::Level::steady;
  back.since = 300;

  auto held = health_notice(steady, shifted, "bench-1", "https://bench.example.org/");
  REQUIRE(held);
  CHECK(notify::validate(*held).ok());
  CHECK(held->event == "health_held");
  CHECK(held->id == "health_held:bench-1:200");
  CHECK(held->repository.empty());
  CHECK(held->summary.find("shifted: canary/cpu ×1.120") != std::string::npos);
  CHECK(held->details["ratio"] == 1.12);

  auto released = health_notice(shifted, back, "bench-1", "");
  REQUIRE(released);
  CHECK(released->event == "health_released");
  CHECK(released->id == "health_released:bench-1:300");

  CHECK_FALSE(health_notice(learning, steady, "bench-1", ""));
  CHECK_FALSE(health_notice(steady, steady, "bench-1", ""));
  CHECK_FALSE(health_notice(shifted, shifted, "bench-1", ""));  // still shifted: told once
}
