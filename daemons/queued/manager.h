// benchbox-queued's state: the QueueStore plus everything the bus must hear
// about its changes (JobQueued/JobFinished, the count properties, each job
// object's PropertiesChanged) and the lease-expiry timer. bus.cpp turns
// D-Bus calls into these methods; nothing here parses messages.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bus/handles.h"
#include "config/appliance.h"
#include "enqueue_batch.h"
#include "model/job.h"
#include "store/listener.h"
#include "store/queue_store.h"
#include "util/clock.h"

namespace bb::queued {

// The config's queue section as the store's options.
store::QueueOptions queue_options(const config::ApplianceConfig& cfg);

class Manager {
 public:
  Manager(config::ApplianceConfig cfg, store::QueueStore store, sd_bus* bus, sd_event* event);

  // Reads the counts and arms the periodic lease check.
  Status start();
  // PostgreSQL: LISTENs for the other boxes' changes to the shared queue
  // and tells this box's bus about them as if they were its own, so
  // runnerd and reporterd hear JobQueued/JobFinished as on one box. A lost
  // connection is listened again every few seconds.
  Status listen(const std::string& conninfo);
  void set_config(config::ApplianceConfig cfg);
  const config::ApplianceConfig& config() const { return cfg_; }

  // Queue1.Enqueue: `call` is answered once the spec's batch has committed
  // (enqueue_batch.h).
  void enqueue_later(sd_bus_message* call, model::JobSpec spec);
  // The store's enqueue_batch, logged and announced: one answer per spec.
  std::vector<Result<store::EnqueueResult>> enqueue_batch(const std::vector<model::JobSpec>& specs);
  Result<std::optional<model::Job>> claim(const std::string& runner, unsigned lease_seconds);
  Result<int64_t> heartbeat(int64_t id, const std::string& runner);
  Result<model::Job> complete(int64_t id, const std::string& runner, const std::string& result_path,
                              const std::string& result = "");
  Result<std::string> result(int64_t id) { return store_.result(id); }
  Result<model::Job> fail(int64_t id, const std::string& runner, const std::string& reason);
  Result<model::Job> cancel(int64_t id, const std::string& reason);
  Result<model::Job> get(int64_t id) {
    // While announce() emits a job's PropertiesChanged, sd-bus looks the
    // object up and reads each changed property: four reads of a row the
    // caller has just written, on every Enqueue, Claim and Complete.
    if (announcing_ && announcing_->id == id) return *announcing_;
    return store_.get(id);
  }
  Result<std::vector<model::Job>> list_after(int64_t after_id, uint32_t limit) {
    return store_.list_after(after_id, limit);
  }
  Result<std::vector<model::Job>> list(std::optional<model::JobState> state, uint32_t limit) {
    return store_.list(state, limit);
  }
  Result<std::vector<int64_t>> job_ids() { return store_.ids(); }
  Result<store::RecordResult> record_pull_request(const model::PullRequest& pr);

  Result<store::GroupEnqueueResult> enqueue_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs);
  // What enqueue_group would do; stores and announces nothing.
  Result<store::GroupEnqueueResult> plan_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs);
  Result<std::vector<model::Job>> cancel_group(int64_t id, const std::string& reason);
  Result<model::JobGroup> get_group(int64_t id) { return store_.get_group(id); }
  Result<std::vector<model::JobGroup>> list_groups(uint32_t limit) { return store_.list_groups(limit); }
  Result<std::vector<model::Job>> group_jobs(int64_t id) { return store_.group_jobs(id); }
  Status set_group_step(int64_t id, const std::string& step) { return store_.set_group_step(id, step); }
  Result<model::PullRequest> get_pull_request(const std::string& repository, int64_t number) {
    return store_.get_pull_request(repository, number);
  }

  // Counted again first when a change is pending (counts_changed).
  const store::QueueCounts& counts();

  // Runs lease expiry now (the timer and every Claim call this).
  void expire_leases();

 private:
  static int on_lease_timer(sd_event_source* source, uint64_t usec, void* userdata);
  static int on_notify(sd_event_source* source, int fd, uint32_t revents, void* userdata);
  static int on_relisten(sd_event_source* source, uint64_t usec, void* userdata);
  static int on_counts_timer(sd_event_source* source, uint64_t usec, void* userdata);
  void handle_notifications();
  Status start_listening();
  void schedule_relisten();
  void announce_missed();

  // Tells the bus about jobs whose state changed: signals, the job object's
  // properties, the counts.
  void announce(const std::vector<model::Job>& changed);
  void refresh_counts();
  // Jobs changed: the counts are read again within kCountsDelayUsec (or at
  // the next read of a count), not once per change. Counting reads every
  // job's index entry, and a busy queue changes hundreds of times a second.
  void counts_changed();
  // Logs a store failure with the job id, and passes the error on.
  Error log_failure(const char* action, int64_t id, const Error& error);

  config::ApplianceConfig cfg_;
  store::QueueStore store_;
  sd_bus* bus_;
  sd_event* event_;
  bus::SourcePtr lease_timer_;
  std::string conninfo_;
  std::optional<store::Listener> listener_;
  bus::SourcePtr notify_source_;
  bus::SourcePtr relisten_timer_;
  bus::SourcePtr counts_timer_;
  bool counts_dirty_ = false;
  const model::Job* announcing_ = nullptr;  // the job announce() is emitting, as it was just written
  int64_t deaf_since_ = 0;  // when the listening connection was lost; 0 = listening
  store::QueueCounts counts_;
  // Last: destroyed first, it answers its waiting calls while the store is open.
  std::unique_ptr<EnqueueBatch> batch_;
};

}  // namespace bb::queued
