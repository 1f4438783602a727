// The self-updater's decisions, apart from the OS: when to upgrade, when to
// refuse, when to wait for the runner, when to roll back. Everything it
// does to the box goes through Host (apt-get, dpkg, systemd and the bus in
// daemons/updater/host.cpp; a fake in the tests), so each path is tested
// without a package manager.
//
// One attempt:
//   refresh the benchbox source (apt checks the signature)
//   -> refuse an index older than one already accepted (a replayed Release)
//   -> the newest offered version: older than installed = refuse (never
//      downgrade); equal = up to date; one that failed before = skip
//   -> keep a package of the installed version (for a rollback)
//   -> pause the runner, wait until it is idle (up to max_wait)
//   -> install; wait until every daemon that ran is ready on it
//   -> healthy: upgraded; else reinstall the kept package: rolled back.
//
// Interruptible anywhere: before each step that changes the box the
// attempt's intent (what is installed, the kept package, the phase) is
// saved; an updater that finds one finishes or undoes it first
// (recover.cpp): dpkg --configure -a after an interrupted dpkg, the health
// check, a rollback with the version marked bad when it does not come up.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace bb::update {

enum class Outcome { up_to_date, upgraded, refused, rolled_back, skipped, failed };
const char* to_string(Outcome o);
std::optional<Outcome> outcome_from_string(const std::string& s);

// What one attempt did: the journal line and `benchboxctl status`.
struct Attempt {
  std::string from;  // the version installed when it started
  std::string to;    // the version it tried, or "" when none
  Outcome outcome = Outcome::failed;
  std::string reason;  // one line
  int64_t started = 0, finished = 0;  // unix seconds
  bool cut_job = false;  // the runner was still busy at max_wait
};

// An attempt in the middle of changing the box: the intent journal.
struct Intent {
  // installing: apt/dpkg may have run part way. installed: the new version
  // is in place, not yet found healthy. rolling_back: the kept package is
  // going back in.
  enum class Phase { installing, installed, rolling_back };
  Phase phase = Phase::installing;
  std::string from, to;
  std::string kept;                   // the package file of `from`
  std::vector<std::string> services;  // those that ran before: must be ready again
  int64_t started = 0;
};
const char* to_string(Intent::Phase p);

// What the updater remembers between runs (state.json in its state dir).
struct State {
  std::optional<Attempt> last;
  std::vector<std::string> bad_versions;  // rolled back once: not tried again
  int64_t newest_index = 0;               // the newest index Date accepted (unix seconds)
  std::optional<Intent> intent;           // an attempt not yet finished
};

nlohmann::json to_json(const Attempt& a);
nlohmann::json to_json(const State& s);
Result<State> state_from_json(const nlohmann::json& j);

struct RunnerState {
  bool reachable = false;  // runnerd is on the bus
  bool busy = false;
  int64_t job = 0;
  std::string state;       // Runner1.State: "running", "canary" (the box's level before the update), ...
};

// Whether a Runner1.State keeps the update waiting: a job or the canary
// running. "idle" and "refusing" (it claims no job: nothing to finish) do not.
bool runner_busy(const std::string& state);

// Why an apt step failed matters: a trust problem (bad signature, expired
// or replayed index, a package that does not match the signed index) is a
// refusal; anything else (the archive unreachable, dpkg failing) a failure.
// Host methods return Errc::invalid_argument for the first kind.
class Host {
 public:
  virtual ~Host() = default;
  virtual Result<std::string> installed_version() = 0;
  virtual Status refresh() = 0;
  // The Date of the benchbox source's signed index, unix seconds.
  virtual Result<int64_t> index_date() = 0;
  // Versions of the package the benchbox source offers.
  virtual Result<std::vector<std::string>> offered_versions() = 0;
  // <0, 0, >0 as a is older than, equal to, newer than b (dpkg's order).
  virtual Result<int> compare_versions(const std::string& a, const std::string& b) = 0;
  virtual Result<RunnerState> runner() = 0;
  virtual Status pause_runner(const std::string& reason) = 0;
  virtual Status resume_runner() = 0;
  // A package file of `version` kept for a rollback; returns its path.
  virtual Result<std::string> keep_package(const std::string& version) = 0;
  // The services running now, which must be ready again after the install.
  virtual Result<std::vector<std::string>> running_services() = 0;
  virtual Status install(const std::string& version) = 0;
  virtual Status install_file(const std::string& path) = 0;
  // Finishes what an interrupted dpkg left unpacked or half-configured
  // (dpkg --configure -a).
  virtual Status configure_pending() = 0;
  // Ok once every service in `services` is active and answers as `version`,
  // or an error saying which one is not, at `timeout`.
  virtual Status wait_healthy(const std::string& version, const std::vector<std::string>& services,
                              std::chrono::seconds timeout) = 0;
  virtual int64_t now() = 0;
  virtual void sleep(std::chrono::milliseconds d) = 0;
};

struct Options {
  std::chrono::seconds max_wait{3600};        // for the runner to finish its job
  std::chrono::seconds health_timeout{120};   // for the new version to come up
  std::chrono::milliseconds poll{1000};       // how often the runner is asked
};

class Updater {
 public:
  using Progress = std::function<void(const std::string&)>;
  // Makes the state durable (state.json, fsynced): called with the intent
  // before each step that changes the box.
  using Save = std::function<Status(const State&)>;
  Updater(Host& host, Options options, State state, Progress progress = {}, Save save = {})
      : host_(host), options_(options), state_(std::move(state)), progress_(std::move(progress)),
        save_(std::move(save)) {}

  // One attempt, or the end of an interrupted one when the state holds an
  // intent; the state is updated (last attempt, bad versions, the newest
  // index, the intent). Never throws.
  Attempt run();
  const State& state() const { return state_; }

 private:
  Attempt attempt();
  Attempt upgrade(Attempt a);
  // recover.cpp: the journal's steps.
  Status journal(std::optional<Intent> intent);
  Attempt recover(const Intent& in);
  // The installed `in.to` checked; healthy: upgraded, else rolled back.
  Attempt finish_install(Attempt a, Intent in);
  // The kept package of `in.from` back in and checked; `to` marked bad when
  // it was its own fault (it did not come up), not when it was interrupted.
  Attempt roll_back(Attempt a, Intent in, const std::string& why, bool mark_bad);
  // Waits for the runner to be idle, up to max_wait; false: still busy.
  bool wait_for_runner(Attempt& a);
  void say(const std::string& line) {
    if (progress_) progress_(line);
  }

  Host& host_;
  Options options_;
  State state_;
  Progress progress_;
  Save save_;
};

}  // namespace bb::update
