#include "manager.h"

#include <systemd/sd-daemon.h>

#include "bus/names.h"
#include "daemon/log.h"
#include "util/cpu_list.h"

namespace bb::tunerd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_notice;
using daemon::log_warning;

Result<std::unique_ptr<Manager>> Manager::create(daemon::Service& service, Conf conf) {
  std::unique_ptr<Manager> m(new Manager(service, std::move(conf)));
  if (auto st = m->make_tuner(); !st) return st.error();
  return m;
}

Status Manager::make_tuner() {
  Manager* m = this;
  m->fs_ = sys::open_root(m->conf_.sysfs_root());
  // systemd's D-Bus API is only there to ask when systemd is PID 1; on other
  // hosts the items that need it say so in the checklist.
  if (sd_booted() > 0) {
    auto systemd = tuning::connect_systemd();
    if (systemd)
      m->systemd_ = std::move(*systemd);
    else
      log_warning("systemd is PID 1 but its bus is not reachable: " + systemd.error().message);
  }
  tuning::Tuner::Options o;
  o.fs = m->fs_.get();
  o.systemd = m->systemd_.get();
  o.profile = m->conf_.profile;
  o.save_path = m->conf_.save_path;
  o.clock = &m->clock_;
  auto tuner = tuning::Tuner::create(std::move(o));
  if (!tuner) return tuner.error();
  m->tuner_ = std::move(*tuner);
  return {};
}

Status Manager::reload(Conf fresh) {
  Conf old = std::move(conf_);
  auto old_fs = std::move(fs_);
  auto old_systemd = std::move(systemd_);
  auto old_tuner = std::move(tuner_);
  conf_ = std::move(fresh);
  if (auto st = make_tuner(); !st) {
    conf_ = std::move(old);
    fs_ = std::move(old_fs);
    systemd_ = std::move(old_systemd);
    tuner_ = std::move(old_tuner);
    return st;
  }
  old_tuner.reset();  // before the fs and systemd handles it points into
  timer_.reset();
  auto report = verify();
  if (!report) return report.error();
  log_report("verify after reload", *report);
  return arm_timer();
}

std::string Manager::housekeeping_cpus() const { return format_cpu_list(tuner_->roles().housekeeping); }
std::string Manager::benchmark_cpus() const { return format_cpu_list(tuner_->roles().benchmark); }

void Manager::log_report(const char* what, const tuning::Report& report) {
  size_t bad = 0;
  // After a restore most items differ from the profile by design: count only.
  bool details = tuner_->has_save();
  for (const auto& r : report.rows) {
    if (r.ok || r.advisory) continue;
    ++bad;
    if (details)
      log_info(std::string(what) + ": " + r.name + " wanted " + r.wanted + ", is " + r.actual +
             (r.reason.empty() ? "" : " (" + r.reason + ")"));
  }
  log_notice(std::string(what) + ": state " + tuning::state_name(report.state) + ", " + std::to_string(bad) +
                 " item(s) not as wanted, fingerprint " + report.fingerprint,
             {{"TUNING_STATE", tuning::state_name(report.state)}, {"TUNING_FINGERPRINT", report.fingerprint}});
}

Status Manager::start() {
  if (tuner_->has_save()) {
    // A save on disk at start means the last run did not restore: a crash,
    // a kill -9 or a power cut. The host is in an unknown mix: undo first.
    log_notice("found saved originals from an earlier run (" + conf_.save_path + "): restoring them first");
    auto restored = tuner_->restore();
    if (!restored) return restored.error().with_context("restore after an unclean stop");
    log_report("restore after unclean stop", *restored);
  }
  if (conf_.profile.apply_on_start) {
    auto applied = tuner_->apply();
    if (!applied) return applied.error().with_context("apply at start");
    log_report("apply at start", *applied);
  }
  auto first = verify();
  if (!first) return first.error();
  return arm_timer();
}

Status Manager::arm_timer() {
  uint64_t usec = uint64_t(conf_.verify_interval_seconds()) * 1000000u;
  sd_event_source* raw = nullptr;
  int r = sd_event_add_time_relative(service_.event(), &raw, CLOCK_MONOTONIC, usec, 0, on_timer, this);
  if (r < 0) return errno_error("add verify timer", -r);
  timer_.reset(raw);
  return {};
}

int Manager::on_timer(sd_event_source* s, uint64_t, void* userdata) {
  auto* m = static_cast<Manager*>(userdata);
  try {
    if (auto r = m->verify(); !r) log_error("periodic verify failed: " + r.error().message);
  } catch (const std::exception& e) {
    log_error(std::string("periodic verify failed: ") + e.what());
  }
  uint64_t usec = uint64_t(m->conf_.verify_interval_seconds()) * 1000000u;
  sd_event_source_set_time_relative(s, usec);
  sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
  return 0;
}

void Manager::stop() {
  timer_.reset();
  if (!conf_.profile.restore_on_stop || !tuner_->has_save()) return;
  auto restored = tuner_->restore();
  if (restored)
    log_report("restore on stop", *restored);
  else
    log_error("restore on stop failed: " + restored.error().message);
}

void Manager::publish_state(const char* previous) {
  if (std::string(previous) == state() || !bus()) return;
  log_notice(std::string("tuning state: ") + previous + " -> " + state(), {{"TUNING_STATE", state()}});
  sd_bus_emit_properties_changed(bus(), bus::kTunerPath, bus::kTunerInterface, "State", nullptr);
}

Result<tuning::Report> Manager::check() {
  const char* before = state();
  auto report = tuner_->check();
  if (report) publish_state(before);
  return report;
}

Result<tuning::Report> Manager::verify() {
  const char* before = state();
  std::vector<tuning::Row> drifted;
  auto report = tuner_->verify(&drifted);
  if (!report) return report;
  last_verify_ = static_cast<uint64_t>(clock_.now_unix());
  if (bus()) sd_bus_emit_properties_changed(bus(), bus::kTunerPath, bus::kTunerInterface, "LastVerify", nullptr);
  publish_state(before);
  if (!drifted.empty()) {
    for (const auto& r : drifted)
      log_warning("drift: " + r.name + " wanted " + r.wanted + ", is " + r.actual, {{"TUNING_ITEM", r.name}});
    emit_drifted(drifted);
  }
  return report;
}

void Manager::emit_drifted(const std::vector<tuning::Row>& rows) {
  if (!bus()) return;
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_signal(bus(), &raw, bus::kTunerPath, bus::kTunerInterface, "Drifted");
  bus::MessagePtr m(raw);
  if (r < 0) return;
  if (append_rows(raw, rows) < 0) return;
  sd_bus_send(bus(), raw, nullptr);
}

Result<tuning::Report> Manager::apply() {
  const char* before = state();
  auto report = tuner_->apply();
  if (!report) {
    log_error("apply failed: " + report.error().message);
    return report;
  }
  log_report("apply", *report);
  publish_state(before);
  return report;
}

Result<tuning::Report> Manager::restore() {
  const char* before = state();
  auto report = tuner_->restore();
  if (!report) {
    log_error("restore failed: " + report.error().message);
    publish_state(before);
    return report;
  }
  log_report("restore", *report);
  publish_state(before);
  return report;
}

Result<std::string> Manager::admit_to_bench(pid_t pid) {
  auto unit = tuning::admit_to_bench(*fs_, pid);
  if (!unit) {
    log_warning("refused to admit process " + std::to_string(pid) + " to the benchmark cpuset: " +
                    unit.error().message,
                {{"ADMIT_PID", std::to_string(pid)}});
    return unit;
  }
  log_info("admitted " + *unit + " (process " + std::to_string(pid) + ") to the benchmark cpuset",
           {{"UNIT", *unit}, {"ADMIT_PID", std::to_string(pid)}});
  return unit;
}

}  // namespace bb::tunerd
