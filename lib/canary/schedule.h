// When runnerd runs the canary (docs/canary.md, "When it runs"). Pure: the
// runner says what it knows (the time, how long it has been idle, the last
// canary, an update on its way) and is told whether to run it now, and if
// not, when to ask again.
//
// A canary run takes the benchmark CPUs for about ten seconds, so it runs
// only where no job waits for them: after the runner has been idle for
// runner.canary_idle_seconds, at most every runner.canary_interval (0 turns
// it off). Two runs come first whatever the interval: one before an update
// (the updater has paused the runner and waits for it: the box's level on
// the old version) and one after (the first idle moment on a new version,
// before the next job is claimed): a shift between the two is the update's.
#pragma once

#include <cstdint>
#include <string>

namespace bb::canary {

struct ScheduleInput {
  int64_t now = 0;             // unix seconds
  int64_t interval = 3600;     // runner.canary_interval; 0 = never
  int64_t idle_wait = 300;     // runner.canary_idle_seconds
  int64_t idle_since = 0;      // when the runner last became idle; 0 = it is running a job
  int64_t last_run = 0;        // when the last canary run finished; 0 = never
  std::string last_version;    // the benchbox version that ran it
  std::string version;         // this benchbox's
  bool update_waiting = false; // the updater paused the runner for an update
};

struct ScheduleDecision {
  bool run = false;
  // Ahead of the next job (around an update); else only while idle.
  bool before_next_job = false;
  // Not now: when to ask again (unix seconds); 0 = when something changes
  // (the runner goes idle, an update asks, the config is reloaded).
  int64_t next_check = 0;
  std::string why;  // run: "first", "interval", "before an update", "after an update"
};

// A canary run younger than this is the box's level before an update: the
// updater need not wait for another.
inline constexpr int64_t kFreshBeforeUpdate = 600;

ScheduleDecision schedule(const ScheduleInput& in);

}  // namespace bb::canary
