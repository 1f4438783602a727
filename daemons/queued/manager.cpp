#include "manager.h"

#include <sys/epoll.h>
#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cstdlib>

#include "bus/names.h"
#include "daemon/log.h"

namespace bb::queued {

using model::Job;
using model::JobState;

namespace {

// How often running jobs' leases are checked. Leases are whole seconds, so
// a second is as fine as it gets; the check is one indexed query.
constexpr uint64_t kLeaseCheckUsec = 1000000;
// How late the count properties and the STATUS= line may follow a change.
constexpr uint64_t kCountsDelayUsec = 100000;

std::string job_path(int64_t id) { return std::string(bus::kQueueJobPathPrefix) + "/" + std::to_string(id); }

std::string id_text(int64_t id) { return std::to_string(id); }

}  // namespace

Manager::Manager(config::ApplianceConfig cfg, store::QueueStore store, sd_bus* bus, sd_event* event)
    : cfg_(std::move(cfg)), store_(std::move(store)), bus_(bus), event_(event) {}

Status Manager::start() {
  auto counts = store_.counts();
  if (!counts) return counts.error();
  counts_ = *counts;
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kLeaseCheckUsec, 100000,
                                     on_lease_timer, this);
  if (r < 0) return errno_error("add lease timer", -r);
  lease_timer_.reset(raw);
  auto batch = EnqueueBatch::create(event_, [this](const std::vector<model::JobSpec>& specs) {
    return enqueue_batch(specs);
  });
  if (!batch) return batch.error();
  batch_ = std::move(*batch);
  // Jobs whose runner died while queued was down are handled right away.
  expire_leases();
  return {};
}

store::QueueOptions queue_options(const config::ApplianceConfig& cfg) {
  store::QueueOptions o;
  o.default_lease_seconds = cfg.queue.lease_seconds;
  o.max_attempts = cfg.queue.max_attempts;
  o.replay_window_seconds = cfg.queue.replay_window_seconds;
  return o;
}

void Manager::set_config(config::ApplianceConfig cfg) {
  if (cfg.queue_database() != cfg_.queue_database() || cfg.queue.backend != cfg_.queue.backend)
    daemon::log_warning("queue.backend or queue.database changed; the new queue is used after a restart",
                        {{"DATABASE", cfg.queue_database()}});
  store::QueueOptions options = queue_options(cfg);
  options.origin = store_.options().origin;
  store_.set_options(options);
  cfg_ = std::move(cfg);
}

int Manager::on_lease_timer(sd_event_source* source, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    self->expire_leases();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("lease check failed: ") + e.what());
  }
  sd_event_source_set_time_relative(source, kLeaseCheckUsec);
  sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
  return 0;
}

Status Manager::listen(const std::string& conninfo) {
  conninfo_ = conninfo;
  return start_listening();
}

Status Manager::start_listening() {
  auto listener = store::Listener::listen(conninfo_, store::kJobsChannel);
  if (!listener) return listener.error();
  sd_event_source* raw = nullptr;
  int r = sd_event_add_io(event_, &raw, listener->fd(), EPOLLIN, on_notify, this);
  if (r < 0) return errno_error("watch the queue's notifications", -r);
  listener_ = std::move(*listener);
  notify_source_.reset(raw);
  return {};
}

int Manager::on_notify(sd_event_source*, int, uint32_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    self->handle_notifications();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("reading the queue's notifications failed: ") + e.what());
  }
  return 0;
}

void Manager::handle_notifications() {
  auto payloads = listener_->drain();
  if (!payloads) {
    daemon::log_warning(payloads.error().message + "; listening again shortly (meanwhile runners find "
                        "other boxes' jobs by polling)");
    notify_source_.reset();
    listener_.reset();
    // A second early: a change in the second the connection went.
    if (deaf_since_ == 0) deaf_since_ = store_.now() - 1;
    schedule_relisten();
    return;
  }
  // "ORIGIN JOB_ID": this box announced its own changes when it made them.
  const std::string own = store_.options().origin + " ";
  std::vector<int64_t> ids;
  for (const std::string& p : *payloads) {
    if (p.rfind(own, 0) == 0) continue;
    auto space = p.rfind(' ');
    int64_t id = space == std::string::npos ? 0 : std::strtoll(p.c_str() + space + 1, nullptr, 10);
    if (id > 0 && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::vector<Job> changed;
  for (int64_t id : ids) {
    auto job = store_.get(id);
    if (job) changed.push_back(std::move(*job));
    else daemon::log_warning("a notified job cannot be read: " + job.error().message, {{"JOB_ID", id_text(id)}});
  }
  announce(changed);
}

// What other boxes changed while this one was not listening was never
// announced here: announce every job that changed since, once. (This box's
// own changes in that time are announced a second time; listeners take a
// repeated JobQueued or JobFinished as they take a late one.)
void Manager::announce_missed() {
  auto missed = store_.changed_since(deaf_since_);
  if (!missed) {
    daemon::log_warning("cannot read what changed while not listening: " + missed.error().message);
    refresh_counts();
    return;
  }
  deaf_since_ = 0;
  if (!missed->empty())
    daemon::log_info("announcing " + std::to_string(missed->size()) + " job(s) changed while not listening");
  announce(*missed);
  refresh_counts();
}

void Manager::schedule_relisten() {
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, 3 * kLeaseCheckUsec, 100000, on_relisten, this);
  if (r < 0) {
    daemon::log_error("cannot schedule listening again: " + errno_error("timer", -r).message);
    return;
  }
  relisten_timer_.reset(raw);
}

int Manager::on_relisten(sd_event_source*, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  self->relisten_timer_.reset();
  try {
    if (auto st = self->start_listening(); !st) {
      daemon::log_warning("listening to the shared queue failed: " + st.error().message);
      self->schedule_relisten();
    } else {
      daemon::log_info("listening to the shared queue again");
      self->announce_missed();
    }
  } catch (const std::exception& e) {
    daemon::log_error(std::string("listening again failed: ") + e.what());
  }
  return 0;
}

void Manager::expire_leases() {
  auto changed = store_.expire_leases();
  if (!changed) {
    daemon::log_error("lease check failed: " + changed.error().message);
    return;
  }
  for (const Job& job : *changed)
    daemon::log_warning(job.error, {{"JOB_ID", id_text(job.id)}, {"REPOSITORY", job.spec.repository}});
  announce(*changed);
}

Error Manager::log_failure(const char* action, int64_t id, const Error& error) {
  // Refusals (wrong state, bad input) are the caller's business; failures
  // of the store itself are ours and go to the journal.
  if (error.code != Errc::io && error.code != Errc::internal && error.code != Errc::parse) return error;
  if (id > 0)
    daemon::log_error(std::string(action) + " failed: " + error.message, {{"JOB_ID", id_text(id)}});
  else
    daemon::log_error(std::string(action) + " failed: " + error.message);
  return error;
}

void Manager::enqueue_later(sd_bus_message* call, model::JobSpec spec) { batch_->add(call, std::move(spec)); }

std::vector<Result<store::EnqueueResult>> Manager::enqueue_batch(const std::vector<model::JobSpec>& specs) {
  auto results = store_.enqueue_batch(specs);
  std::vector<Job> created;
  for (auto& result : results) {
    if (!result) {
      result = log_failure("enqueue", 0, result.error());
      continue;
    }
    if (!result->created) continue;
    const Job& job = result->job;
    daemon::log_info("job queued (" + std::string(model::to_string(job.spec.kind)) + ")",
                     {{"JOB_ID", id_text(job.id)},
                      {"REPOSITORY", job.spec.repository},
                      {"COMMIT", job.spec.head_sha},
                      {"DELIVERY_ID", job.spec.delivery_id}});
    created.push_back(job);
  }
  announce(created);
  return results;
}

Result<std::optional<Job>> Manager::claim(const std::string& runner, unsigned lease_seconds) {
  auto result = store_.claim(runner, lease_seconds);
  if (!result) return log_failure("claim", 0, result.error());
  std::vector<Job> changed = result->expired;
  for (const Job& job : result->expired)
    daemon::log_warning(job.error, {{"JOB_ID", id_text(job.id)}, {"REPOSITORY", job.spec.repository}});
  if (result->job) {
    daemon::log_info("job claimed by " + runner,
                     {{"JOB_ID", id_text(result->job->id)}, {"REPOSITORY", result->job->spec.repository}});
    changed.push_back(*result->job);
  }
  announce(changed);
  return std::move(result->job);
}

Result<int64_t> Manager::heartbeat(int64_t id, const std::string& runner) {
  auto r = store_.heartbeat(id, runner);
  if (!r) return log_failure("heartbeat", id, r.error());
  return r;
}

Result<Job> Manager::complete(int64_t id, const std::string& runner, const std::string& result_path,
                              const std::string& result) {
  auto job = store_.complete(id, runner, result_path, result);
  if (!job) return log_failure("complete", id, job.error());
  daemon::log_info("job done", {{"JOB_ID", id_text(id)}, {"REPOSITORY", job->spec.repository},
                                {"RESULT_PATH", result_path}, {"RESULT_BYTES", std::to_string(result.size())}});
  announce({*job});
  return job;
}

Result<Job> Manager::fail(int64_t id, const std::string& runner, const std::string& reason) {
  auto job = store_.fail(id, runner, reason);
  if (!job) return log_failure("fail", id, job.error());
  daemon::log_notice("job failed: " + job->error, {{"JOB_ID", id_text(id)}, {"REPOSITORY", job->spec.repository}});
  announce({*job});
  return job;
}

Result<Job> Manager::cancel(int64_t id, const std::string& reason) {
  auto job = store_.cancel(id, reason);
  if (!job) return log_failure("cancel", id, job.error());
  daemon::log_notice("job cancelled: " + job->error, {{"JOB_ID", id_text(id)}, {"REPOSITORY", job->spec.repository}});
  announce({*job});
  return job;
}

Result<store::GroupEnqueueResult> Manager::plan_group(const model::GroupSpec& group, std::vector<model::JobSpec> specs) {
  auto result = store_.plan_group(group, std::move(specs));
  if (!result) return log_failure("plan group", 0, result.error());
  return result;
}

Result<store::GroupEnqueueResult> Manager::enqueue_group(const model::GroupSpec& group,
                                                         std::vector<model::JobSpec> specs) {
  const size_t asked = specs.size();
  auto result = store_.enqueue_group(group, std::move(specs));
  if (!result) return log_failure("enqueue group", 0, result.error());
  std::vector<Job> created;
  for (const auto& r : result->jobs)
    if (r.created) created.push_back(r.job);
  if (result->group.id != 0)
    daemon::log_info(std::string("job group queued (") + model::to_string(group.kind) + "): " +
                         std::to_string(created.size()) + " of " + std::to_string(asked) + " jobs new",
                     {{"GROUP_ID", id_text(result->group.id)},
                      {"REPOSITORY", group.repository},
                      {"REQUESTED_BY", group.requested_by}});
  announce(created);
  return result;
}

Result<std::vector<Job>> Manager::cancel_group(int64_t id, const std::string& reason) {
  auto jobs = store_.cancel_group(id, reason);
  if (!jobs) return log_failure("cancel group", 0, jobs.error());
  daemon::log_notice("job group cancelled: " + std::to_string(jobs->size()) + " jobs",
                     {{"GROUP_ID", id_text(id)}});
  announce(*jobs);
  return jobs;
}

Result<store::RecordResult> Manager::record_pull_request(const model::PullRequest& pr) {
  auto saved = store_.record_pull_request(pr);
  if (!saved) return log_failure("record pull request", 0, saved.error());
  if (saved->changed)
    daemon::log_info("pull request #" + std::to_string(pr.number) + " recorded (" + pr.state + ")",
                     {{"REPOSITORY", pr.repository}, {"COMMIT", pr.head_sha}});
  else
    daemon::log_notice("pull request #" + std::to_string(pr.number) +
                           " not recorded: its body was accepted before (a replay)",
                       {{"REPOSITORY", pr.repository}, {"COMMIT", pr.head_sha}});
  return saved;
}

void Manager::announce(const std::vector<Job>& changed) {
  if (changed.empty()) return;
  for (const Job& job : changed) {
    int r = 0;
    if (job.state == JobState::queued) {
      r = sd_bus_emit_signal(bus_, bus::kQueuePath, bus::kQueueInterface, "JobQueued", "xs", job.id,
                             job.spec.repository.c_str());
    } else if (job.state == JobState::running) {
      r = sd_bus_emit_signal(bus_, bus::kQueuePath, bus::kQueueInterface, "JobStarted", "xs", job.id,
                             job.runner.c_str());
    } else if (model::is_terminal(job.state)) {
      r = sd_bus_emit_signal(bus_, bus::kQueuePath, bus::kQueueInterface, "JobFinished", "xss", job.id,
                             model::to_string(job.state), job.result_path.c_str());
    }
    if (r < 0) daemon::log_warning("could not emit signal", {{"JOB_ID", id_text(job.id)}});
    // Newly created jobs have no subscribers to their properties yet, but
    // emitting is harmless and keeps one code path.
    announcing_ = &job;
    sd_bus_emit_properties_changed(bus_, job_path(job.id).c_str(), bus::kQueueJobInterface, "State",
                                   "Error", "ResultPath", nullptr);
    announcing_ = nullptr;
  }
  counts_changed();
}

const store::QueueCounts& Manager::counts() {
  if (counts_dirty_) refresh_counts();
  return counts_;
}

void Manager::counts_changed() {
  counts_dirty_ = true;
  if (counts_timer_) return;
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kCountsDelayUsec, 10000, on_counts_timer, this);
  if (r < 0) {
    refresh_counts();  // no timer: count now, as before
    return;
  }
  counts_timer_.reset(raw);
}

int Manager::on_counts_timer(sd_event_source*, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  self->counts_timer_.reset();
  if (self->counts_dirty_) self->refresh_counts();
  return 0;
}

void Manager::refresh_counts() {
  counts_dirty_ = false;
  auto fresh = store_.counts();
  if (!fresh) {
    daemon::log_error("counting jobs failed: " + fresh.error().message);
    return;
  }
  store::QueueCounts old = counts_;
  counts_ = *fresh;
  if (old == counts_) return;
  static const std::pair<const char*, JobState> props[] = {
      {"Queued", JobState::queued}, {"Running", JobState::running}, {"Done", JobState::done},
      {"Failed", JobState::failed}, {"Cancelled", JobState::cancelled}};
  std::vector<const char*> names;
  for (const auto& [name, state] : props)
    if (old.of(state) != counts_.of(state)) names.push_back(name);
  names.push_back(nullptr);
  sd_bus_emit_properties_changed_strv(bus_, bus::kQueuePath, bus::kQueueInterface,
                                      const_cast<char**>(names.data()));
  sd_notifyf(0, "STATUS=%u queued, %u running, %u done, %u failed", counts_.queued, counts_.running,
             counts_.done, counts_.failed);
}

}  // namespace bb::queued
