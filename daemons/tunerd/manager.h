// benchbox-tunerd's state: the Tuner, the periodic re-verify timer, and what
// the bus exposes (State, LastVerify, the Drifted signal). Single-threaded:
// everything runs on the sd-event loop.
#pragma once

#include <memory>
#include <string>

#include "bus/handles.h"
#include "conf.h"
#include "daemon/service.h"
#include "sys/sysfs.h"
#include "tuning/bench_admission.h"
#include "tuning/systemd.h"
#include "tuning/tuner.h"
#include "util/clock.h"

namespace bb::tunerd {

class Manager {
 public:
  static Result<std::unique_ptr<Manager>> create(daemon::Service& service, Conf conf);

  // Before the bus name is taken: a save left by a crash is restored first;
  // then the profile is applied if apply_on_start; then the first verify.
  Status start();
  // After the loop ends (SIGTERM): restore when the profile says so.
  void stop();
  // SIGHUP: the new config and profile take over and are verified at once.
  // The save of originals is kept, so Restore still undoes the old profile's
  // changes. On a bad config or profile the old ones stay in force.
  Status reload(Conf fresh);
  const config::AccessConfig& access() const { return conf_.appliance.access; }

  // The bus methods (bus.cpp). Verify also emits Drifted and property changes.
  Result<tuning::Report> check();
  Result<tuning::Report> verify();
  Result<tuning::Report> apply();
  Result<tuning::Report> restore();
  // AdmitToBench: a contained command's gate into the v1 benchmark cpuset
  // (tuning/bench_admission.h); the unit's name.
  Result<std::string> admit_to_bench(pid_t pid);

  const char* state() const { return tuning::state_name(tuner_->state()); }
  std::string housekeeping_cpus() const;
  std::string benchmark_cpus() const;
  uint64_t last_verify() const { return last_verify_; }

  sd_bus* bus() const { return service_.bus(); }
  // Holds the vtable registration (bus.cpp).
  bus::SlotPtr vtable_slot;

 private:
  Manager(daemon::Service& service, Conf conf) : service_(service), conf_(std::move(conf)) {}
  // Builds fs_, systemd_ and tuner_ from conf_.
  Status make_tuner();
  Status arm_timer();
  static int on_timer(sd_event_source* s, uint64_t usec, void* userdata);
  // Emits PropertiesChanged for State if it changed since the last call.
  void publish_state(const char* previous);
  void emit_drifted(const std::vector<tuning::Row>& rows);
  void log_report(const char* what, const tuning::Report& report);

  daemon::Service& service_;
  Conf conf_;
  SystemClock clock_;
  std::unique_ptr<sys::SysFs> fs_;
  std::unique_ptr<tuning::Systemd> systemd_;
  std::unique_ptr<tuning::Tuner> tuner_;
  bus::SourcePtr timer_;
  uint64_t last_verify_ = 0;
};

// Appends rows as a(sssbs) (bus.cpp); <0 errno on failure.
int append_rows(sd_bus_message* m, const std::vector<tuning::Row>& rows);
// Appends the checklist as a(sssbs) and the fingerprint as s (bus.cpp).
int append_report(sd_bus_message* m, const tuning::Report& report);
// Registers the org.benchbox.Tuner1 vtable (bus.cpp).
Status register_bus(Manager& manager);

}  // namespace bb::tunerd
