// runnerd's turns at the canary (docs/canary.md, "When it runs"): asked
// before each claim and at each poll while idle, by lib/canary/schedule.h.
// A run goes on the worker thread as a job does, so the loop keeps serving
// the bus; meanwhile State is "canary", which the updater waits out like a
// job (the run before an update is the old version's level).
#include <unistd.h>

#include <filesystem>

#include "canary.h"
#include "bus/names.h"
#include "canary/schedule.h"
#include "daemon/log.h"
#include "manager.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/version.h"

namespace bb::runnerd {

namespace {

std::string canary_program() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return path_join(self.parent_path().string(), "benchbox-canary");
}

}  // namespace

std::string Manager::canary_dir() const { return path_join(conf_.results_dir, "canary"); }

bool Manager::canary_turn(bool before_claim) {
  if (canary_running_) return true;
  canary::ScheduleInput in;
  in.now = SystemClock().now_unix();
  in.interval = conf_.appliance.runner.canary_interval;
  in.idle_wait = conf_.appliance.runner.canary_idle_seconds;
  in.idle_since = idle_since_;
  // The last attempt, kept or failed: a canary that fails is not tried
  // again at every poll.
  in.last_run = canary_tried_;
  in.last_version = canary_tried_version_;
  in.version = bb::version();
  in.update_waiting = holders_ != nullptr;
  const canary::ScheduleDecision d = canary::schedule(in);
  if (!d.run || (before_claim && !d.before_next_job)) return false;
  begin_canary(d.why);
  return true;
}

void Manager::begin_canary(const std::string& why) {
  canary_running_ = true;
  cancel_ = false;
  properties_changed();
  CanaryRequest req;
  req.runner = runner_.get();
  req.program = canary_program();
  req.cpus = conf_.benchmark_cpus;
  req.rounds = conf_.appliance.runner.canary_rounds;
  req.dir = canary_dir();
  req.why = why;
  req.runner_id = conf_.runner_id;
  std::string fingerprint, tuning, tuner_why;
  bool drifted = false;
  check_tuner(fingerprint, drifted, tuning, tuner_why);
  req.environment.cpus = format_cpu_list(conf_.benchmark_cpus);
  req.environment.isolation = runner_->describe();
  req.environment.runner = conf_.runner_id;
  req.environment.hardware = hardware_class(fingerprint);
  req.tuning = tuning;
  req.cancel = &cancel_;
  daemon::log_info("canary: running (" + why + ")", {{"CANARY", why}});
  worker_ = std::thread([this, req] {
    Result<CanaryRecord> r = make_error(Errc::internal, "the canary did not run");
    try {
      r = run_canary(req, SystemClock().now_unix());
    } catch (const std::exception& e) {
      r = make_error(Errc::internal, std::string("runnerd internal error: ") + e.what());
    }
    canary_outcome_ = std::move(r);
    uint64_t one = 1;
    while (::write(done_fd_.get(), &one, sizeof one) < 0 && errno == EINTR) {}
  });
}

void Manager::finish_canary() {
  if (!worker_.joinable()) return;
  worker_.join();
  canary_running_ = false;
  canary_tried_ = SystemClock().now_unix();
  canary_tried_version_ = bb::version();
  if (canary_outcome_ && *canary_outcome_) {
    const CanaryRecord& rec = **canary_outcome_;
    daemon::log_info("canary: kept " + rec.path, {{"CANARY_FILE", rec.path}});
    sd_bus_emit_signal(bus_, bus::kRunnerPath, bus::kRunnerInterface, "CanaryFinished", "s", rec.path.c_str());
  } else if (canary_outcome_) {
    daemon::log_warning("canary: no run: " + canary_outcome_->error().message);
  }
  canary_outcome_.reset();
  properties_changed();
  try_claim();
}

}  // namespace bb::runnerd
