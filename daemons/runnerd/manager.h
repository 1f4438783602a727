// runnerd's state: at most one job at a time. The main thread owns the bus
// and the sd-event loop and makes every bus call (Claim, Tuner1.Check,
// Heartbeat, Complete, Fail, Cancel); the job itself runs on a worker
// thread (executor.h) that never touches the bus and reports back through
// an eventfd (see Manager::start for why).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bus/handles.h"
#include "canary.h"
#include "conf.h"
#include "exec/command_runner.h"
#include "containment.h"
#include "executor.h"
#include "model/job.h"
#include "util/clock.h"
#include "util/fd.h"

namespace bb::runnerd {

class Manager {
 public:
  Manager(Conf conf, sd_bus* bus, sd_event* event);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Subscribes to JobQueued, arms the poll timer, removes work trees a
  // killed runner left, and tries a first claim.
  Status start();
  // Stops the running job's processes and waits for the worker. Reports
  // nothing to the queue (see the comment in the implementation).
  void shutdown();

  // Runner1 properties.
  const char* state() const {
    return current_ ? "running" : canary_running_ ? "canary" : refusal().empty() ? "idle" : "refusing";
  }
  // Runner1.Containment: what a job's code runs as here (containment.h).
  const std::string& containment() const { return box_.description; }
  // Runner1.Refusal: why no job is claimed (runner.containment), or "".
  std::string refusal() const;
  int64_t current_job() const { return current_ ? current_->id : 0; }
  uint64_t jobs_run() const { return jobs_run_; }
  std::string isolation() const { return runner_->describe(); }
  // Which runner was chosen and why (scopes under systemd, else affinity).
  const std::string& runner_choice() const { return runner_why_; }
  std::string benchmark_cpus() const;

  // SIGHUP: the new settings (CPUs, paths, lease, drift policy) take effect
  // for the next job; a running job keeps the ones it started with.
  void reload(Conf fresh);
  const Conf& conf() const { return conf_; }

  // Runner1.CancelCurrent: stops the job's processes; the job is then
  // cancelled in the queue with `reason`.
  Status cancel_current(const std::string& reason);

  // Runner1.Pause/Resume: a paused runner finishes the job it has and
  // claims no other until resumed. In memory only: a restarted runner (on
  // the new version) is not paused. Resume ends every pause and hold.
  void pause(const std::string& reason);
  void resume();
  // Runner1.Hold: a pause that lasts while `holder` (the caller's unique
  // bus name) stays on the bus, the self-updater's: when it is killed mid-
  // update its connection goes, and so does the pause, instead of a box
  // that never claims again.
  Status hold(sd_bus_message* call, const std::string& reason);
  // Runner1.Release: ends the caller's own hold, and no one else's pause.
  void release_hold(sd_bus_message* call);
  bool paused() const { return paused_ || holders_ != nullptr; }
  std::string paused_reason() const;

 private:
  static int on_job_queued(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_poll_timer(sd_event_source* s, uint64_t usec, void* userdata);
  static int on_heartbeat_timer(sd_event_source* s, uint64_t usec, void* userdata);
  static int on_worker_done(sd_event_source* s, int fd, uint32_t revents, void* userdata);

  void apply_pending_conf();
  void try_claim();
  // ---- the canary (canary_turn.cpp)
  // Runs it now if the schedule says so (before_claim: only a run that
  // goes ahead of the next job); true while it runs.
  bool canary_turn(bool before_claim);
  void begin_canary(const std::string& why);
  void finish_canary();
  std::string canary_dir() const;
  void begin(model::Job job);
  void finish_job();
  void heartbeat();
  void report(const char* method, const std::string& text);
  // Queue1.CompleteWithResult with the result file's contents (Complete alone
  // when it is too large to travel).
  void complete(const std::string& result_path);
  model::HardwareClass hardware_class(const std::string& tuning);
  // ExecContext::queue_shards: EnqueueGroup on a connection of its own.
  static Result<int64_t> queue_shards(const model::GroupSpec& group, const std::vector<model::JobSpec>& specs);
  void properties_changed();
  // Tuner1.Check(): the fingerprint, whether the host drifted, and the
  // names of failing items; "unavailable" when tunerd is not on the bus.
  void check_tuner(std::string& fingerprint, bool& drifted, std::string& state, std::string& why);

  Conf conf_;
  std::optional<Conf> pending_conf_;  // a reload waiting for the job to end
  sd_bus* bus_;
  sd_event* event_;
  std::unique_ptr<exec::CommandRunner> runner_;
  std::string runner_why_;
  bool contained_ = false;
  BoxContainment box_;
  std::unique_ptr<FetchTokens> tokens_;  // private repositories; null without a GitHub App  // the runner is the transient service (containment.h)

  std::optional<model::Job> current_;
  std::thread worker_;
  ExecOutcome outcome_;              // written by the worker before it signals
  std::atomic<bool> cancel_{false};  // read by the worker and its commands
  bool abandon_ = false;             // the queue took the job away: report nothing
  std::string cancel_reason_;        // CancelCurrent's reason, to Cancel the job with
  uint64_t jobs_run_ = 0;
  bool queue_reachable_ = true;      // to log losing/regaining the queue once
  bool paused_ = false;
  std::string paused_reason_;
  // Who holds the runner (Runner1.Hold): sd-bus tracks each caller and
  // calls on_holders_gone once the last has left the bus. Null: no hold.
  sd_bus_track* holders_ = nullptr;
  std::string hold_reason_;
  static int on_holders_gone(sd_bus_track* track, void* userdata);
  void drop_holders();
  void emit_paused();

  // The canary: running on the worker thread, its outcome, the last
  // attempt (kept or failed) and the version that made it, and since when
  // the runner has had nothing to claim (0: it had a job since).
  bool canary_running_ = false;
  std::optional<Result<CanaryRecord>> canary_outcome_;
  int64_t canary_tried_ = 0;
  std::string canary_tried_version_;
  int64_t idle_since_ = 0;

  UniqueFd done_fd_;
  bus::SourcePtr done_source_, poll_timer_, heartbeat_timer_;
  bus::SlotPtr job_queued_slot_;
};

}  // namespace bb::runnerd
