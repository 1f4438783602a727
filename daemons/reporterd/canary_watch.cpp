// The box's health (docs/canary.md, "The box's health"): runnerd keeps each
// canary run as <results_dir>/canary/<unix time>.json; reporterd reads the
// runs it has not seen yet (at start, on runnerd's CanaryFinished, and
// each minute: box_watch.cpp),
// keeps those of the newest environment (a new hardware class, CPUs,
// isolation or canary version starts the history over), judges them with
// lib/canary/health.h, and tells a shift or its end where maintainers
// asked (health_held, health_released; once each, by id).
#include <cmath>

#include <nlohmann/json.hpp>

#include "canary/runs.h"
#include "daemon/log.h"
#include "manager.h"
#include "report/notices.h"
#include "stats/describe.h"
#include "util/file.h"

namespace bb::reporterd {

namespace {

// The newest runs judged: the baseline uses ten, a shift at most five more.
constexpr size_t kCanaryRunsKept = 200;

// One run's medians and its environment key; false for a file that is not
// a canary result set (it is skipped, saying why).
bool read_run(const canary::RunFile& f, canary::Run& run, std::string& key, std::string& why) {
  auto text = read_file(f.path, 16 << 20);
  if (!text) {
    why = text.error().message;
    return false;
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    why = "not a result set";
    return false;
  }
  key = j.value("environment_key", "");
  run.time = f.time;
  for (const auto& b : j["benchmarks"]) {
    if (!b.is_object() || !b.contains("samples") || !b["samples"].is_array()) continue;
    std::vector<double> samples;
    for (const auto& s : b["samples"])
      if (s.is_number()) samples.push_back(s.get<double>());
    if (samples.empty()) continue;
    const std::string workload = b.value("suite", "") + "/" + b.value("name", "");
    run.medians[workload] = stats::median(samples);
    if (const double mean = stats::mean(samples); samples.size() > 1 && mean > 0)
      run.cv[workload] = std::sqrt(stats::variance(samples)) / mean;
  }
  if (run.medians.empty()) {
    why = "holds no samples";
    return false;
  }
  return true;
}

}  // namespace

int Manager::on_canary_finished(sd_bus_message*, void* userdata, sd_bus_error*) {
  try {
    static_cast<Manager*>(userdata)->check_canary();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("reading the canary: ") + e.what());
  }
  return 0;
}

void Manager::check_canary() {
  const auto files = canary::run_files(path_join(config_.results_dir(), "canary"), canary_seen_);
  if (files.empty()) return;
  // What the box was before these runs; at start, before the newest one
  // (so a shift or its end while reporterd was down is still told).
  const bool starting = canary_seen_ == 0;
  size_t before = canary_runs_.size();
  for (const canary::RunFile& f : files) {
    canary_seen_ = f.time;
    canary::Run run;
    std::string key, why;
    if (!read_run(f, run, key, why)) {
      daemon::log_warning("canary run " + f.path + " skipped: " + why, {{"CANARY_FILE", f.path}});
      continue;
    }
    if (key != canary_key_) {
      if (!canary_key_.empty())
        daemon::log_notice("the canary's environment changed (hardware class, CPUs, isolation or canary version): "
                           "its history starts over",
                           {{"CANARY_FILE", f.path}});
      canary_runs_.clear();
      canary_key_ = key;
      before = 0;
    }
    canary_runs_.push_back(std::move(run));
  }
  if (canary_runs_.size() > kCanaryRunsKept) {
    const size_t drop = canary_runs_.size() - kCanaryRunsKept;
    canary_runs_.erase(canary_runs_.begin(), canary_runs_.begin() + long(drop));
    before = before > drop ? before - drop : 0;
  }
  if (starting && !canary_runs_.empty()) before = canary_runs_.size() - 1;
  const canary::Health was =
      canary::judge(std::vector<canary::Run>(canary_runs_.begin(), canary_runs_.begin() + long(before)));
  const canary::Health now = canary::judge(canary_runs_);
  if (now.level != health_.level || now.since != health_.since)
    daemon::log_info("box health: " + now.describe(),
                     {{"HEALTH", canary::to_string(now.level)}, {"CANARY_RUNS", std::to_string(now.runs)}});
  health_ = now;
  // Steady again, or found steady at a start (it may have steadied while
  // reporterd was down): what was held is confirmed now.
  if (now.level != canary::Level::shifted && (was.level == canary::Level::shifted || starting)) release_held();
  if (notifier_)
    if (auto n = report::health_notice(was, now, notifier_->box(), config_.reporter.site_url)) tell(*n);
  if (auto st = site_->box_canary(health_, canary_runs_, canary_key_); !st)
    daemon::log_warning("box health page not written: " + st.error().message);
}

}  // namespace bb::reporterd
