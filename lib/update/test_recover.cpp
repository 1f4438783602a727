// The intent journal: what an update writes before each step, and how the
// next run finishes or undoes an update that was killed at any step.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "update/test_fake_host.h"
#include "update/updater.h"

using namespace bb;
using namespace bb::update;
using bb::update::test::FakeHost;
using bb::update::test::quick;

namespace {

// What is on disk: the last state the updater saved (a kill loses the
// rest), through JSON as state.json holds it.
struct Disk {
  State state;
  std::vector<std::string> phases;  // each save's intent phase, "-" for none
  Updater::Save save() {
    return [this](const State& s) {
      auto back = state_from_json(to_json(s));
      REQUIRE(back);
      state = *back;
      phases.push_back(s.intent ? to_string(s.intent->phase) : "-");
      return Status{};
    };
  }
};

Intent intent(Intent::Phase phase) {
  return Intent{phase, "1", "2", "/kept/benchbox_1.deb", {"benchbox-queued.service", "benchbox-runnerd.service"}, 4000};
}

}  // namespace

TEST_CASE("the intent is saved before the install, after it, and cleared once healthy") {
  FakeHost host;
  Disk disk;
  Attempt a = Updater(host, quick(), State{}, {}, disk.save()).run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK(disk.phases == std::vector<std::string>{"installing", "installed", "-"});
  CHECK_FALSE(disk.state.intent);
}

TEST_CASE("an intent that cannot be saved (a full disk) installs nothing") {
  FakeHost host;
  Attempt a = Updater(host, quick(), State{}, {}, [](const State&) {
                return Status(make_error(Errc::io, "write state.json: No space left on device"));
              }).run();
  CHECK(a.outcome == Outcome::failed);
  CHECK(a.reason == "cannot record the update's intent (write state.json: No space left on device); not updating");
  CHECK(host.installed == "1");
  CHECK(host.called("resume"));
}

TEST_CASE("an interrupted install that dpkg finishes is checked and kept") {
  FakeHost host;
  host.installed = "2";
  host.half = true;  // killed mid-dpkg
  State s;
  s.intent = intent(Intent::Phase::installing);
  Disk disk;
  Updater u(host, quick(), s, {}, disk.save());
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK(host.calls == std::vector<std::string>{"pause: benchbox-update: finishing 1 -> 2", "configure",
                                               "healthy? 2 (2 services, 20 s)", "keep 2", "resume"});
  CHECK_FALSE(u.state().intent);
  CHECK(disk.phases.back() == "-");
}

TEST_CASE("an install killed before dpkg changed anything is dropped, and the next run tries again") {
  FakeHost host;
  State s;
  s.intent = intent(Intent::Phase::installing);
  Updater u(host, quick(), s);
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::failed);
  CHECK(a.reason == "interrupted before 2 was installed; 1 is still installed, unchanged; the next attempt tries again");
  CHECK_FALSE(u.state().intent);
  CHECK(u.state().bad_versions.empty());
  CHECK(Updater(host, quick(), u.state()).run().outcome == Outcome::upgraded);
  CHECK(host.installed == "2");
}

TEST_CASE("a dpkg that cannot finish is undone with the kept package, and the version is not marked bad") {
  FakeHost host;
  host.installed = "2";
  host.half = true;
  host.configure_fixes = false;
  State s;
  s.intent = intent(Intent::Phase::installing);
  Updater u(host, quick(), s);
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::rolled_back);
  CHECK(a.reason.rfind("interrupted while installing 2 (benchbox 2 is half-configured, not installed)", 0) == 0);
  CHECK(host.installed == "1");
  CHECK(u.state().bad_versions.empty());
}

TEST_CASE("killed after the install, before the health check: checked now, rolled back and marked bad if down") {
  FakeHost host;
  host.installed = "2";
  host.comes_up["2"] = false;
  State s;
  s.intent = intent(Intent::Phase::installed);
  Updater u(host, quick(), s);
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::rolled_back);
  CHECK_FALSE(host.called("configure"));
  CHECK(host.installed == "1");
  CHECK(u.state().bad_versions == std::vector<std::string>{"2"});
  CHECK_FALSE(u.state().intent);
}

TEST_CASE("an interrupted rollback is finished") {
  FakeHost host;
  host.installed = "1";
  host.half = true;
  State s;
  s.bad_versions = {"2"};
  s.intent = intent(Intent::Phase::rolling_back);
  Updater u(host, quick(), s);
  Attempt a = u.run();
  CHECK(a.outcome == Outcome::rolled_back);
  CHECK(host.called("install_file /kept/benchbox_1.deb"));
  CHECK(host.called("healthy? 1 (2 services, 20 s)"));
  CHECK(u.state().bad_versions == std::vector<std::string>{"2"});
  CHECK_FALSE(u.state().intent);
}

TEST_CASE("a half-configured package found without an intent is configured before anything else") {
  FakeHost host;
  host.half = true;
  Attempt a = Updater(host, quick(), State{}).run();
  CHECK(a.outcome == Outcome::upgraded);
  CHECK(host.calls.front() == "configure");
}

TEST_CASE("killed at any step, the next run ends on a healthy version with nothing left to finish") {
  // Every step that changes the box, on both paths: 2 comes up, or not.
  for (bool comes_up : {true, false}) {
    for (int k = 1; k <= 8; ++k) {
      FakeHost host;
      host.comes_up["2"] = comes_up;
      host.crash_at = k;
      Disk disk;
      (void)Updater(host, quick(), State{}, {}, disk.save()).run();  // killed (or done) here
      host.crash_at = 0;
      State after = disk.state;
      Attempt a = Updater(host, quick(), after, {}, disk.save()).run();
      INFO("2 comes up: " << comes_up << ", killed at step " << k << ": " << a.reason);
      CHECK(host.comes_up[host.installed]);
      CHECK_FALSE(host.half);
      CHECK_FALSE(disk.state.intent);
      if (!comes_up) CHECK(host.installed == "1");
    }
  }
}
