#include "manager.h"

#include <sys/stat.h>

#include <exception>
#include <filesystem>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/handles.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "model/pull_request.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;

namespace {

constexpr uint64_t kRetentionUsec = 3600ull * 1000000;  // pruning runs hourly
constexpr uint32_t kPage = 500;                          // jobs per ListAfter
constexpr size_t kRenderSteps = 20;                      // series or run pages per turn of the loop
constexpr size_t kRetentionRuns = 400;                   // runs pruned per turn of the loop

}  // namespace

Manager::Manager(config::ApplianceConfig config, report::HistoryStore history, sd_bus* bus, sd_event* event,
                 std::unique_ptr<GitHubPoster> poster, std::unique_ptr<NotifyPoster> notifier)
    : config_(std::move(config)),
      history_(std::move(history)),
      bus_(bus),
      event_(event),
      poster_(std::move(poster)),
      notifier_(std::move(notifier)) {
  site_ = std::make_unique<report::SiteWriter>(history_, site_options(), changes_);
}

report::SiteOptions Manager::site_options() {
  report::SiteOptions o;
  o.site_dir = config_.site_dir();
  o.clock = &clock_;
  o.branch_globs = [this](const std::string& repository) {
    const auto* policy = config_.find_repository(repository);
    return policy ? policy->branches : std::vector<std::string>{};
  };
  o.issue_url = [this](const report::Regression& r) { return issue_url(r); };
  o.pull_request = [this](const std::string& repository, int64_t number) { return recorded_pull_request(repository, number); };
  return o;
}

// The queue's record of a pull request (Queue1.GetPullRequest), for its
// page's title and author. A queue that does not answer costs the page
// its title, never the page: nullopt, logged.
std::optional<model::PullRequest> Manager::recorded_pull_request(const std::string& repository, int64_t number) {
  sd_bus_message* call_raw = nullptr;
  if (sd_bus_message_new_method_call(bus_, &call_raw, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface,
                                     "GetPullRequest") < 0)
    return std::nullopt;
  bus::MessagePtr call(call_raw);
  if (sd_bus_message_append(call_raw, "sx", repository.c_str(), number) < 0) return std::nullopt;
  bus::BusError error;
  sd_bus_message* reply_raw = nullptr;
  const int r = sd_bus_call(bus_, call_raw, 2'000'000, error.get(), &reply_raw);
  bus::MessagePtr reply(reply_raw);
  if (r < 0) {
    const Error e = bus::from_bus_error(error.get(), r, "Queue1.GetPullRequest");
    if (e.code != Errc::not_found)
      log_warning("pull request " + repository + "#" + std::to_string(number) + " not read: " + e.message,
                  {{"REPOSITORY", repository}});
    return std::nullopt;
  }
  auto dict = bus::read_dict(reply_raw);
  if (!dict) return std::nullopt;
  auto pr = model::pull_request_from_json(*dict);
  if (!pr) return std::nullopt;
  return std::move(*pr);
}

std::string Manager::issue_url(const report::Regression& r) {
  if (!poster_) return "";
  auto posted = poster_->posted(github_api::issue_target(r.repository, r.marker()));
  return posted ? posted->html_url : "";
}

void Manager::tell(const notify::Notification& n) {
  if (!notifier_) return;
  if (auto st = notifier_->notify(n); !st)
    log_error("notification " + n.id + " not recorded: " + st.error().message,
              {{"REPOSITORY", n.repository}, {"NOTIFICATION", n.id}});
}

void Manager::set_config(config::ApplianceConfig config) {
  const bool moved = config.site_dir() != config_.site_dir();
  config_ = std::move(config);
  // Destinations may have come or gone: the poster delivers to them as
  // the config now says; the first destination starts it.
  if (notifier_) {
    notifier_->set_config(config_);
  } else if (auto created = NotifyPoster::create(config_); !created) {
    log_error("notifications: " + created.error().message);
  } else {
    notifier_ = std::move(*created);
  }
  // The site's options read config_ when they are used; only a new
  // directory needs a new writer, and a site written there.
  if (moved) {
    site_ = std::make_unique<report::SiteWriter>(history_, site_options(), changes_);
    if (site_->stale()) start_render();
  }
}

// Brings a site written by another version (or none) up to date, a little
// per turn of the loop: on a big history this takes minutes, during which
// the bus, new jobs and the watchdog must still be served.
void Manager::start_render() {
  log_info("bringing the dashboard up to date for this version", {{"SITE", config_.site_dir()}});
  site_->begin_render_all();
  if (!render_source_) {
    sd_event_source* raw = nullptr;
    int r = sd_event_add_defer(event_, &raw, on_render, this);
    if (r < 0) {
      log_warning(std::string("dashboard not rebuilt: ") + strerror(-r));
      return;
    }
    render_source_.reset(raw);
  }
  sd_event_source_set_enabled(render_source_.get(), SD_EVENT_ON);
}

int Manager::on_render(sd_event_source* source, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  try {
    auto done = self->site_->render_some(kRenderSteps);
    if (!done) {
      log_warning("dashboard not rebuilt: " + done.error().message);
      sd_event_source_set_enabled(source, SD_EVENT_OFF);
    } else if (*done) {
      log_info("dashboard up to date", {{"SITE", self->config_.site_dir()}});
      sd_event_source_set_enabled(source, SD_EVENT_OFF);
    }
  } catch (const std::exception& e) {
    log_error(std::string("dashboard not rebuilt: ") + e.what());
    sd_event_source_set_enabled(source, SD_EVENT_OFF);
  }
  return 0;
}

Status Manager::start() {
  struct Match {
    const char* sender;
    const char* path;
    const char* interface;
    const char* member;
    sd_bus_message_handler_t handler;
  };
  const Match matches[] = {
      {bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "JobQueued", on_job_signal},
      {bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "JobStarted", on_job_signal},
      {bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "JobFinished", on_job_signal},
      // When queued (re)appears, jobs may have changed while we could not hear.
      {"org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", on_queue_owner},
      // The runner's Refusal: no sender filter (a well-known sender is
      // resolved once, and runnerd restarts under a new unique name).
      {nullptr, bus::kRunnerPath, "org.freedesktop.DBus.Properties", "PropertiesChanged", on_runner_changed},
      {"org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", on_runner_changed},
      // A canary run kept: read at once (the minute's look is the fallback).
      {nullptr, bus::kRunnerPath, bus::kRunnerInterface, "CanaryFinished", on_canary_finished},
  };
  for (const auto& m : matches) {
    sd_bus_slot* slot = nullptr;
    int r = sd_bus_match_signal(bus_, &slot, m.sender, m.path, m.interface, m.member, m.handler, this);
    if (r < 0) return errno_error(std::string("subscribe to ") + m.member, -r);
    matches_.emplace_back(slot);
  }
  // A new benchbox draws with new assets and may write new data: every
  // page again, once (the run files of earlier jobs stay).
  if (site_->stale()) start_render();
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kRetentionUsec, 60ull * 1000000,
                                     on_retention_timer, this);
  if (r < 0) return errno_error("add retention timer", -r);
  retention_timer_.reset(raw);
  if (apply_retention()) sd_event_source_set_time_relative(raw, 1000000);
  // The box's health first: a regression caught up with may be held.
  if (auto st = watch_box(); !st) return st;
  catch_up();
  resume_bisections();
  ask_runner_refusal();
  return {};
}

int Manager::on_job_signal(sd_bus_message* m, void* userdata, sd_bus_error*) {
  auto* self = static_cast<Manager*>(userdata);
  int64_t id = 0;
  if (sd_bus_message_read(m, "x", &id) < 0) return 0;
  try {
    self->fetch(id);
  } catch (const std::exception& e) {
    log_error(std::string("handling ") + sd_bus_message_get_member(m) + ": " + e.what(), {{"JOB_ID", std::to_string(id)}});
  }
  return 0;
}

int Manager::on_queue_owner(sd_bus_message* m, void* userdata, sd_bus_error*) {
  const char* name = nullptr;
  const char* old_owner = nullptr;
  const char* new_owner = nullptr;
  if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
  if (std::string(name) != bus::kQueueName || !new_owner || !*new_owner) return 0;
  try {
    static_cast<Manager*>(userdata)->catch_up();
    static_cast<Manager*>(userdata)->resume_bisections();
  } catch (const std::exception& e) {
    log_error(std::string("catching up: ") + e.what());
  }
  return 0;
}

int Manager::on_retention_timer(sd_event_source* source, uint64_t, void* userdata) {
  bool more = false;
  try {
    more = static_cast<Manager*>(userdata)->apply_retention();
    static_cast<Manager*>(userdata)->resume_bisections();
  } catch (const std::exception& e) {
    log_error(std::string("retention: ") + e.what());
  }
  sd_event_source_set_time_relative(source, more ? 1000000 : kRetentionUsec);
  sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
  return 0;
}

namespace {

struct GetContext {
  Manager* manager;
  int64_t job_id;
};

}  // namespace

// Jobs are fetched asynchronously so a slow queue never stalls our own bus
// interface. What a reply says is the job's state now, whichever signal
// asked: a check run follows the state, not the order signals arrived in.
void Manager::fetch(int64_t job_id) {
  // A signal while the job's Get is on its way (JobFinished right after
  // JobStarted): that answer may be older than the signal, so ask again
  // once it is in.
  if (!in_flight_.insert(job_id).second) {
    ask_again_.insert(job_id);
    return;
  }
  auto* ctx = new GetContext{this, job_id};
  sd_bus_slot* slot = nullptr;
  int r = sd_bus_call_method_async(bus_, &slot, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "Get",
                                   on_get_reply, ctx, "x", job_id);
  if (r < 0) {
    delete ctx;
    in_flight_.erase(job_id);
    log_warning("cannot ask the queue for job " + std::to_string(job_id) + ": " + strerror(-r),
                {{"JOB_ID", std::to_string(job_id)}});
    return;
  }
  // The slot frees the context whether the reply came or the bus went away
  // first (a stop with a Get in flight).
  sd_bus_slot_set_destroy_callback(slot, [](void* p) { delete static_cast<GetContext*>(p); });
  sd_bus_slot_set_floating(slot, 1);
  sd_bus_slot_unref(slot);
}

int Manager::on_get_reply(sd_bus_message* m, void* userdata, sd_bus_error*) {
  const GetContext* ctx = static_cast<const GetContext*>(userdata);  // the slot owns it
  Manager* self = ctx->manager;
  self->in_flight_.erase(ctx->job_id);
  std::string id = std::to_string(ctx->job_id);
  try {
    if (sd_bus_message_is_method_error(m, nullptr)) {
      Error e = bus::from_bus_error(sd_bus_message_get_error(m), -EIO, "Queue1.Get");
      log_warning("cannot fetch job " + id + ": " + e.message, {{"JOB_ID", id}});
    } else if (auto dict = bus::read_dict(m); !dict) {
      log_error("bad job from the queue: " + dict.error().message, {{"JOB_ID", id}});
    } else if (auto job = model::job_from_json(*dict); !job) {
      log_error("bad job from the queue: " + job.error().message, {{"JOB_ID", id}});
    } else {
      self->handle(*job);
    }
  } catch (const std::exception& e) {
    log_error(std::string("report failed: ") + e.what(), {{"JOB_ID", id}});
  }
  if (self->ask_again_.erase(ctx->job_id)) self->fetch(ctx->job_id);
  return 0;
}

void Manager::handle(const model::Job& job) {
  if (!model::is_terminal(job.state)) {
    post_state(job);
    return;
  }
  // A finished job is reported once. The Get that JobStarted asked for can
  // already see it finished, and JobFinished then asks again (fetch's
  // ask_again_): without this the report, its log line and a bisection's
  // step were done twice (a failed job on bidict was logged twice).
  if (path_exists(path_join(report_dir(job.id), "report.json"))) return;
  if (auto st = process(job); !st)
    log_error("report for job " + std::to_string(job.id) + " failed: " + st.error().message,
              {{"JOB_ID", std::to_string(job.id)}, {"REPOSITORY", job.spec.repository}});
}

// Pages through every job the queue has after the last one known to be
// finished and reported: finished ones without a report are reported
// (cancelled ones too), queued and running ones get their check run.
void Manager::catch_up() {
  int64_t after = caught_up_to_;
  bool contiguous = true;  // every job so far finished and reported
  for (;;) {
    bus::BusError error;
    sd_bus_message* reply = nullptr;
    int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "ListAfter",
                               error.get(), &reply, "xu", after, kPage);
    bus::MessagePtr owned(reply);
    if (r < 0) return;  // the queue is not there yet; NameOwnerChanged brings us back
    if (sd_bus_message_enter_container(reply, 'a', "a{sv}") < 0) return;
    uint32_t seen = 0;
    while (sd_bus_message_at_end(reply, 0) == 0) {
      auto dict = bus::read_dict(reply);
      if (!dict) return;
      ++seen;
      auto job = model::job_from_json(*dict);
      if (!job) continue;
      after = job->id;
      const bool finished = model::is_terminal(job->state);
      if (finished && !path_exists(path_join(report_dir(job->id), "report.json"))) {
        if (auto st = process(*job); !st)
          log_error("report for job " + std::to_string(job->id) + " failed: " + st.error().message,
                    {{"JOB_ID", std::to_string(job->id)}});
      } else if (!finished) {
        post_state(*job);
      }
      contiguous = contiguous && finished;
      if (contiguous) caught_up_to_ = job->id;
    }
    if (seen < kPage) return;
  }
}

bool Manager::apply_retention() {
  if (config_.reporter.pr_samples_days == 0) return false;
  const int64_t before = clock_.now_unix() - static_cast<int64_t>(config_.reporter.pr_samples_days) * 86400;
  // A bounded share per turn of the loop: a long backlog (retention just
  // turned on) is worked off a second apart, never holding the loop.
  auto pruned = history_.prune_pull_request_samples(before, kRetentionRuns);
  if (!pruned) {
    log_warning("retention: " + pruned.error().message);
    return false;
  }
  if (pruned->empty()) return false;
  log_info("retention: raw samples of " + std::to_string(pruned->size()) + " pull-request jobs older than " +
           std::to_string(config_.reporter.pr_samples_days) + " days dropped; their summaries stay");
  if (auto st = site_->prune_downloads(*pruned); !st) log_warning("retention: " + st.error().message);
  return true;
}

std::string Manager::report_dir(int64_t job_id) const {
  return path_join(config_.reports_dir(), std::to_string(job_id));
}

Status Manager::write_report(const report::JobReport& r, const std::string& dir) {
  if (auto st = make_dirs(dir, 0755); !st) return st;
  if (auto st = write_file_atomic(path_join(dir, "report.md"), r.markdown); !st) return st;
  return write_file_atomic(path_join(dir, "report.json"), r.json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<std::pair<std::string, std::string>> Manager::read_stored_report(const std::string& dir,
                                                                         const std::string& missing) {
  auto md = read_file(path_join(dir, "report.md"), 64 << 20);
  if (!md) return md.error().code == Errc::not_found ? make_error(Errc::not_found, missing) : md.error();
  return std::make_pair(std::move(*md), path_join(dir, "report.json"));
}

Result<std::pair<std::string, std::string>> Manager::stored_report(int64_t job_id) const {
  return read_stored_report(report_dir(job_id),
                            "no report for job " + std::to_string(job_id) + " (not finished yet, or unknown)");
}

Status Manager::reingest(int64_t job_id) {
  fetch(job_id);
  return {};
}

uint64_t Manager::history_bytes() {
  auto sizes = history_.sizes();
  return sizes ? static_cast<uint64_t>(sizes->database_bytes) : 0;
}

uint64_t Manager::site_bytes() {
  // Walking the site costs a few ms per 10,000 files: measured at most
  // once a minute.
  const int64_t now = clock_.now_unix();
  if (site_bytes_at_ && now - site_bytes_at_ < 60) return site_bytes_;
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(config_.site_dir(), ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec))
      if (const uintmax_t n = it->file_size(ec); !ec) total += n;  // not one removed since it was listed
  site_bytes_ = total;
  site_bytes_at_ = now;
  return total;
}

uint32_t Manager::outbox_pending() {
  if (!poster_) return 0;
  auto counts = poster_->counts();
  return counts ? static_cast<uint32_t>(counts->pending) : 0;
}

}  // namespace bb::reporterd
