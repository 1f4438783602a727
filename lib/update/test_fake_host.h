// The updater's fake box, for its unit tests: versions are integers, every
// call is recorded, and a kill can be simulated at any step.
#pragma once

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "update/updater.h"

namespace bb::update::test {

// Versions compare as integers here; dpkg's order is the real Host's job.
class FakeHost final : public Host {
 public:
  std::string installed = "1";
  std::vector<std::string> offered = {"2"};
  Status refresh_result;
  int64_t date = 1000;
  std::map<std::string, bool> comes_up = {{"1", true}, {"2", true}};
  std::vector<std::string> calls;
  int busy_polls = 0;  // the runner is busy for this many polls
  int64_t busy_job = 7;              // ... with this job (0: none)
  std::string busy_state = "running";  // ... in this Runner1.State
  bool keep_ok = true;
  Status install_result;
  int64_t clock = 5000;

  // A simulated kill: the `crash_at`-th step that changes the box throws
  // (dpkg cut off in install() leaves the package half-configured).
  int crash_at = 0, steps = 0;
  bool half = false;           // dpkg was interrupted: the package is half-configured
  bool configure_fixes = true;  // dpkg --configure -a finishes it (as the new version)
  struct Killed : std::runtime_error {
    Killed() : std::runtime_error("killed") {}
  };
  void step(const std::string& what) {
    calls.push_back(what);
    if (crash_at > 0 && ++steps == crash_at) throw Killed();
  }

  Result<std::string> installed_version() override {
    if (half) return make_error(Errc::conflict, "benchbox " + installed + " is half-configured, not installed");
    return installed;
  }
  Status refresh() override {
    calls.push_back("refresh");
    return refresh_result;
  }
  Result<int64_t> index_date() override { return date; }
  Result<std::vector<std::string>> offered_versions() override { return offered; }
  Result<int> compare_versions(const std::string& a, const std::string& b) override {
    return std::stoi(a) < std::stoi(b) ? -1 : std::stoi(a) > std::stoi(b) ? 1 : 0;
  }
  Result<RunnerState> runner() override {
    RunnerState r;
    r.reachable = true;
    r.busy = busy_polls > 0;
    r.job = busy_job;
    r.state = r.busy ? busy_state : "idle";
    if (busy_polls > 0) --busy_polls;
    return r;
  }
  Status pause_runner(const std::string& reason) override {
    step("pause: " + reason);
    return {};
  }
  Status resume_runner() override {
    calls.push_back("resume");
    return {};
  }
  Result<std::string> keep_package(const std::string& version) override {
    calls.push_back("keep " + version);
    if (!keep_ok) return make_error(Errc::not_found, "not in the archive any more");
    return "/kept/benchbox_" + version + ".deb";
  }
  Result<std::vector<std::string>> running_services() override {
    return std::vector<std::string>{"benchbox-queued.service", "benchbox-runnerd.service"};
  }
  Status install(const std::string& version) override {
    if (!install_result) {
      calls.push_back("install " + version);
      return install_result;
    }
    installed = version;
    half = true;  // unpacked, not yet configured: where a kill hurts most
    step("install " + version);
    half = false;
    return {};
  }
  Status install_file(const std::string& path) override {
    installed = path.substr(path.find('_') + 1, path.rfind('.') - path.find('_') - 1);
    half = true;
    step("install_file " + path);
    half = false;
    return {};
  }
  Status configure_pending() override {
    calls.push_back("configure");
    if (configure_fixes) half = false;
    return {};
  }
  Status wait_healthy(const std::string& version, const std::vector<std::string>& services,
                      std::chrono::seconds timeout) override {
    step("healthy? " + version + " (" + std::to_string(services.size()) + " services, " +
         std::to_string(timeout.count()) + " s)");
    if (comes_up[version]) return {};
    return make_error(Errc::timeout, "benchbox-queued.service is activating, not active");
  }
  int64_t now() override { return clock; }
  void sleep(std::chrono::milliseconds d) override { clock += std::max<int64_t>(1, d.count() / 1000); }

  bool called(const std::string& what) const { return std::find(calls.begin(), calls.end(), what) != calls.end(); }
};

inline Options quick() {
  Options o;
  o.max_wait = std::chrono::seconds(30);
  o.health_timeout = std::chrono::seconds(20);
  o.poll = std::chrono::milliseconds(1000);
  return o;
}

}  // namespace bb::update::test
