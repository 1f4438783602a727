// benchbox-reporterd's state: history.db, the reports directory, the site,
// and what it asks GitHub to show. Follows every job through the queue's
// signals: a queued or started job's check run (JobQueued, JobStarted), a
// finished job's report (JobFinished): PR head against its merge-base, a
// push against the run before it on its branch, a tag against the previous
// release; then history, the branch's regression, the dashboard and the
// posts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "bus/handles.h"
#include "canary/health.h"
#include "config/appliance.h"
#include "github_poster.h"
#include "notify_poster.h"
#include "model/job.h"
#include "report/change_points.h"
#include "report/github_wants.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/site.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::reporterd {

class Manager {
 public:
  Manager(config::ApplianceConfig config, report::HistoryStore history, sd_bus* bus, sd_event* event,
          std::unique_ptr<GitHubPoster> poster, std::unique_ptr<NotifyPoster> notifier);

  // Subscribes to the queue's signals and its arrival on the bus, brings a
  // site written by another version up to date, starts the retention timer,
  // then catches up with jobs that changed while it was not running.
  Status start();
  void set_config(config::ApplianceConfig config);
  const config::AccessConfig& access() const { return config_.access; }

  // Handles one finished job end to end (idempotent: re-reporting rewrites,
  // and what GitHub shows is a desired state, never posted twice).
  Status process(const model::Job& job);
  Result<model::JobResult> load_job_result(const model::Job& job);

  // An operator's bisection (benchboxctl bisect): good and bad are full
  // commit ids on `ref`; benchmarks are keys ("suite/name:metric") or
  // "suite/name" for all its metrics, empty for whatever regressed.
  Result<int64_t> bisect(const std::string& repository, const std::string& clone_url, const std::string& ref,
                         const std::string& good, const std::string& bad, const std::vector<std::string>& benchmarks);
  // A bisection as JSON, with its step in words and its Markdown.
  Result<std::string> bisection_json(int64_t id);

  // The stored report of a job: (markdown, path of the JSON report).
  Result<std::pair<std::string, std::string>> stored_report(int64_t job_id) const;
  // ... and of a sharded suite's job group (shard_report.cpp).
  Result<std::pair<std::string, std::string>> stored_group_report(int64_t group_id) const;
  Status reingest(int64_t job_id);

  uint64_t jobs_reported() const { return jobs_reported_; }
  uint64_t history_bytes();
  uint64_t site_bytes();
  uint32_t outbox_pending();
  // Reporter1.BoxHealth: the canary's verdict on the box, one line.
  std::string box_health() const { return health_.describe(); }

 private:
  static int on_job_signal(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_queue_owner(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_get_reply(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_retention_timer(sd_event_source* s, uint64_t usec, void* userdata);
  static int on_render(sd_event_source* s, void* userdata);
  // ---- the box's canary and updates (box_watch.cpp, canary_watch.cpp)
  Status watch_box();
  static int on_box_timer(sd_event_source* s, uint64_t usec, void* userdata);
  void check_update();
  void check_canary();
  static int on_canary_finished(sd_bus_message* m, void* userdata, sd_bus_error* error);
  // ---- the runner's Refusal (runner_watch.cpp)
  static int on_runner_changed(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_refusal_reply(sd_bus_message* m, void* userdata, sd_bus_error* error);
  void ask_runner_refusal();
  void start_render();
  void fetch(int64_t job_id);
  void handle(const model::Job& job);
  void catch_up();
  bool apply_retention();  // true: more is left to prune
  void post_state(const model::Job& job);  // a queued or running job's check run
  // The config's posting settings, and the canary's verdict for the summary.
  report::PostingPolicy posting_policy() const {
    return {config_.reporter.site_url, config_.reporter.pr_comment, health_.describe()};
  }
  void post_report(const report::JobReport& report);
  void track_regression(const report::JobReport& report, const model::JobResult& result);
  // Puts a notification in its outbox (once per event and destination);
  // nothing when no repository has a notify list.
  void tell(const notify::Notification& n);
  // GitHub's address of the regression's issue, once it is made; "".
  std::string issue_url(const report::Regression& r);
  // ---- regressions held while the box has shifted (hold.cpp)
  Status hold_regression(report::Regression& r, const model::Job& job);
  bool held(const report::Bisection& b);  // its regression waits for a steady box
  void release_held();
  // ---- confirmation and bisection (bisector.cpp)
  Status start_confirmation(report::Regression& r, const model::Job& job);
  void queue_next(report::Bisection& b);
  void set_group_step(int64_t group_id, const std::string& step);
  void resume_bisections();
  // Moves the bisection on and says so in the job's report (before it is
  // written).
  void bisection_job_finished(const model::Job& job, report::JobReport& rep,
                              const std::optional<model::JobResult>& result);
  void update_regression(const report::Bisection& b, const report::Advance& a);
  void tell_finding_runs(const report::Regression& r, const report::Bisection& b);
  std::optional<model::PullRequest> recorded_pull_request(const std::string& repository, int64_t number);
  report::SiteOptions site_options();
  // ---- sharded suites (shard_report.cpp)
  // Rebuilds the report and check run of a group of shard jobs from where
  // each of them is now.
  Status report_shards(int64_t group_id);
  void shard_changed(const model::Job& job);
  std::string report_dir(int64_t job_id) const;
  std::string group_report_dir(int64_t group_id) const;
  Status write_report(const report::JobReport& r, const std::string& dir);
  // report.md of `dir` and the path of its report.json; NotFound says `missing`.
  static Result<std::pair<std::string, std::string>> read_stored_report(const std::string& dir,
                                                                        const std::string& missing);

  config::ApplianceConfig config_;
  report::HistoryStore history_;
  report::ChangeCache changes_;  // change points per series, for reports and the site
  std::unique_ptr<report::SiteWriter> site_;
  sd_bus* bus_;
  sd_event* event_;
  std::unique_ptr<GitHubPoster> poster_;  // null when posting is off
  std::unique_ptr<NotifyPoster> notifier_;  // null while no repository has a notify list
  SystemClock clock_;
  std::vector<bus::SlotPtr> matches_;
  bus::SourcePtr retention_timer_;
  bus::SourcePtr box_timer_;      // the canary's runs and benchbox-update's state.json, once a minute
  std::string update_trouble_;    // why state.json could not be read, as last logged
  // The canary's runs of the newest environment (hardware class, CPUs,
  // isolation, canary version), oldest first; the newest file read; the
  // box's health judged from them.
  std::vector<canary::Run> canary_runs_;
  std::string canary_key_;
  int64_t canary_seen_ = 0;
  canary::Health health_;
  bus::SourcePtr render_source_;  // renders a stale site a little per turn of the loop
  std::set<int64_t> in_flight_;   // jobs whose Queue1.Get is on its way
  std::set<int64_t> ask_again_;   // ... and that signalled again meanwhile
  int64_t caught_up_to_ = 0;  // every job up to this id is finished and reported
  std::string runner_refusal_;    // Runner1.Refusal: why this box's runner claims no job, or ""
  bus::SlotPtr refusal_call_;     // the Get of it on its way
  uint64_t jobs_reported_ = 0;
  uint64_t site_bytes_ = 0;
  int64_t site_bytes_at_ = 0;  // when site_bytes_ was measured (unix seconds)
};

}  // namespace bb::reporterd
