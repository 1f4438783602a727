// benchbox-reporterd's state: history.db, the reports directory, the site.
// Turns every finished job into a report: PR head against its merge-base,
// a push against the previous run of its branch.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "bus/handles.h"
#include "config/appliance.h"
#include "github_poster.h"
#include "model/job.h"
#include "report/change_points.h"
#include "report/history.h"
#include "report/job_report.h"
#include "util/result.h"

namespace bb::reporterd {

class Manager {
 public:
  Manager(config::ApplianceConfig config, report::HistoryStore history, sd_bus* bus,
          std::unique_ptr<GitHubPoster> poster);

  // Subscribes to JobFinished and to the queue's arrival on the bus, then
  // catches up with jobs that finished while the reporter was not running.
  Status start();
  void set_config(config::ApplianceConfig config) { config_ = std::move(config); }
  const config::AccessConfig& access() const { return config_.access; }

  // Handles one finished job end to end (idempotent: re-reporting rewrites).
  Status process(const model::Job& job);

  // The stored report of a job: (markdown, path of the JSON report).
  Result<std::pair<std::string, std::string>> stored_report(int64_t job_id) const;
  Status reingest(int64_t job_id);

  uint64_t jobs_reported() const { return jobs_reported_; }

 private:
  static int on_job_finished(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_queue_owner(sd_bus_message* m, void* userdata, sd_bus_error* error);
  static int on_get_reply(sd_bus_message* m, void* userdata, sd_bus_error* error);
  void fetch_and_process(int64_t job_id);
  void catch_up();
  std::string report_dir(int64_t job_id) const;
  Status write_report(const report::JobReport& r);
  void render_site();

  config::ApplianceConfig config_;
  report::HistoryStore history_;
  report::ChangeCache changes_;  // change points per series, for reports and the site
  sd_bus* bus_;
  std::unique_ptr<GitHubPoster> poster_;  // null when posting is off
  bus::SlotPtr finished_match_;
  bus::SlotPtr owner_match_;
  std::set<int64_t> in_flight_;
  uint64_t jobs_reported_ = 0;
};

}  // namespace bb::reporterd
