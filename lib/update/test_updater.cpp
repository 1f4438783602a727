// The updater's decisions on a fake box: what it installs, refuses, waits
// for and rolls back, and what it remembers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "update/test_fake_host.h"
#include "update/updater.h"

using namespace bb;
using namespace bb::update;
using bb::update::test::FakeHost;
using bb::update::test::quick;

TEST_CASE("a newer signed version is installed once the runner is idle, and kept for the next rollback") {
  FakeHost host;
  host.busy_polls = 3;
  std::vector<std::string> said;
  Updater u(host, quick(), State{}, [&](const std::string& s) { said.push_back(s); });
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK(a.from == "1");
  CHECK(a.to == "2");
  CHECK_FALSE(a.cut_job);
  CHECK(host.installed == "2");
  // The order that matters: keep the old package, pause, wait, install, check, keep the new.
  std::vector<std::string> want = {"refresh", "keep 1", "pause: benchbox-update: 1 -> 2", "install 2",
                                   "healthy? 2 (2 services, 20 s)", "keep 2", "resume"};
  CHECK(host.calls == want);
  CHECK(std::find(said.begin(), said.end(), "waiting for runnerd to finish job 7") != said.end());
  CHECK(std::find(said.begin(), said.end(), "installing 2") != said.end());
  CHECK(u.state().last->outcome == Outcome::upgraded);
  CHECK(u.state().newest_index == 1000);
}

TEST_CASE("the updater waits out the runner's canary run before the update, and says what it waits for") {
  FakeHost host;
  host.busy_polls = 2;
  host.busy_job = 0;
  host.busy_state = "canary";
  std::vector<std::string> said;
  Updater u(host, quick(), State{}, [&](const std::string& s) { said.push_back(s); });
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK_FALSE(a.cut_job);
  CHECK(std::find(said.begin(), said.end(),
                  "waiting for runnerd's canary run (the box's level before the update)") != said.end());
}

TEST_CASE("a runner running a job or the canary keeps the update waiting; idle or refusing does not") {
  CHECK(runner_busy("running"));
  CHECK(runner_busy("canary"));
  CHECK_FALSE(runner_busy("idle"));
  CHECK_FALSE(runner_busy("refusing"));  // it claims no job: nothing to finish
}

TEST_CASE("a runner still busy at max_wait is cut, and the attempt says so") {
  FakeHost host;
  host.busy_polls = 1000;
  Updater u(host, quick(), State{});
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK(a.cut_job);
  CHECK(host.clock - 5000 >= 30);
}

TEST_CASE("the same version, or nothing offered, installs nothing") {
  FakeHost host;
  host.offered = {"1"};
  Updater u(host, quick(), State{});
  CHECK(u.run().outcome == Outcome::up_to_date);
  CHECK_FALSE(host.called("install 1"));
  host.offered = {};
  CHECK(u.run().outcome == Outcome::failed);
}

TEST_CASE("refusals leave the installed version alone") {
  FakeHost host;
  SECTION("an index apt does not trust") {
    host.refresh_result = make_error(Errc::invalid_argument, "E: The repository 'file:/srv/a stable InRelease' is not signed.");
    Attempt a = Updater(host, quick(), State{}).run();
    CHECK(a.outcome == Outcome::refused);
    CHECK(a.reason.find("not signed") != std::string::npos);
  }
  SECTION("an archive that cannot be reached is a failure, not a refusal") {
    host.refresh_result = make_error(Errc::unavailable, "E: Failed to fetch http://127.0.0.1:1/dists/stable/InRelease");
    CHECK(Updater(host, quick(), State{}).run().outcome == Outcome::failed);
  }
  SECTION("an index older than one already accepted: a replay") {
    State s;
    s.newest_index = 2000;
    Updater u(host, quick(), s);
    Attempt a = u.run();
    CHECK(a.outcome == Outcome::refused);
    CHECK(a.reason == "the archive's index (Date 1970-01-01 00:16:40 UTC) is older than one already accepted "
                      "(Date 1970-01-01 00:33:20 UTC): a replayed or stale Release");
    CHECK(u.state().newest_index == 2000);
  }
  SECTION("an older version offered: no downgrade") {
    host.installed = "3";
    Attempt a = Updater(host, quick(), State{}).run();
    CHECK(a.outcome == Outcome::refused);
    CHECK(a.reason == "the archive offers 2, older than the installed 3: not downgrading");
    host.installed = "1";  // for the checks below
  }
  SECTION("a package that does not match the signed index") {
    host.install_result = make_error(Errc::invalid_argument, "E: Failed to fetch .../benchbox_2.deb  Hash Sum mismatch");
    Attempt a = Updater(host, quick(), State{}).run();
    CHECK(a.outcome == Outcome::refused);
    CHECK(a.reason.find("Hash Sum mismatch") != std::string::npos);
    CHECK(host.installed == "1");
    CHECK(host.called("resume"));  // the runner is not left paused
  }
  CHECK(host.installed == "1");
  CHECK_FALSE(host.called("install_file /kept/benchbox_1.deb"));
}

TEST_CASE("a version that does not come up is rolled back and not tried again") {
  FakeHost host;
  host.comes_up["2"] = false;
  Updater u(host, quick(), State{});
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::rolled_back);
  CHECK(a.reason == "2 did not come up (benchbox-queued.service is activating, not active); back on 1");
  CHECK(host.installed == "1");
  CHECK(host.called("install_file /kept/benchbox_1.deb"));
  CHECK(host.called("healthy? 1 (2 services, 20 s)"));
  CHECK(host.called("resume"));
  CHECK(u.state().bad_versions == std::vector<std::string>{"2"});

  // The next timer run: still offered, not tried again.
  host.calls.clear();
  Updater again(host, quick(), u.state());
  Attempt b = again.run();
  CHECK(b.outcome == Outcome::skipped);
  CHECK_FALSE(host.called("install 2"));
  // A newer one is.
  host.offered = {"2", "3"};
  host.comes_up["3"] = true;
  CHECK(Updater(host, quick(), again.state()).run().outcome == Outcome::upgraded);
  CHECK(host.installed == "3");
}

TEST_CASE("no package to roll back to: no update") {
  FakeHost host;
  host.keep_ok = false;
  Attempt a = Updater(host, quick(), State{}).run();
  CHECK(a.outcome == Outcome::failed);
  CHECK(a.reason.find("to roll back to") != std::string::npos);
  CHECK_FALSE(host.called("install 2"));
}

TEST_CASE("the state survives a round trip through JSON, and bad JSON is an error") {
  State s;
  s.newest_index = 123;
  s.bad_versions = {"0.1.3"};
  Attempt a;
  a.from = "0.1.0";
  a.to = "0.1.3";
  a.outcome = Outcome::rolled_back;
  a.reason = "why";
  a.started = 1;
  a.finished = 2;
  a.cut_job = true;
  s.last = a;
  auto back = state_from_json(to_json(s));
  REQUIRE(back);
  CHECK(back->newest_index == 123);
  CHECK(back->bad_versions == s.bad_versions);
  REQUIRE(back->last);
  CHECK(back->last->outcome == Outcome::rolled_back);
  CHECK(back->last->cut_job);
  CHECK_FALSE(state_from_json(nlohmann::json::parse(R"({"bad_versions": 3, "newest_index": 0})")));
  CHECK_FALSE(state_from_json(nlohmann::json::parse(R"({"bad_versions": [], "newest_index": 0,
      "last": {"from":"1","to":"2","outcome":"exploded","reason":"","started":0,"finished":0,"cut_job":false}})")));
}
