// The skeleton every benchbox daemon shares (systemd src/timesync style):
// an sd-event loop that exits on SIGTERM/SIGINT, reloads on SIGHUP, pets the
// watchdog when WatchdogSec= is set, and tells systemd READY=1 only after the
// bus name is owned.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bus/handles.h"
#include "util/result.h"

namespace bb::daemon {

class Service {
 public:
  // Creates the event loop and signal handling. `reload` runs on SIGHUP
  // (may be empty); it returns an error when it kept the old configuration,
  // and the service logs either outcome, so every daemon says the same.
  using Reload = std::function<Status()>;
  static Result<Service> create(Reload reload);

  sd_event* event() const { return event_.get(); }
  sd_bus* bus() const { return bus_.get(); }

  // Connects to the system bus and attaches it to the loop. Register vtables
  // after this and before own_name().
  Status connect_bus();
  // Uses an already-connected bus (tests, socketpairs).
  Status adopt_bus(bus::BusPtr bus);
  // Requests the well-known name synchronously; fails if it is taken.
  Status own_name(const std::string& name);

  // Ties the watchdog to the daemon doing its job, not only to its loop
  // turning: with WatchdogSec= set, WATCHDOG=1 goes out every half period
  // only while `problem` returns "" (and the service logs when that changes,
  // with the reason). A daemon that stops serving is then restarted by
  // systemd instead of looking healthy. Without it the loop's own turning
  // pets the watchdog (sd_event_set_watchdog).
  using Liveness = std::function<std::string()>;
  Status set_liveness(Liveness problem);
  // WatchdogSec= in microseconds, 0 when systemd asked for none.
  static uint64_t watchdog_usec();

  // READY=1 plus a STATUS= line.
  void notify_ready(const std::string& status);
  void notify_status(const std::string& status);

  // Runs until a signal or exit(); sends STOPPING=1 on the way out.
  Result<int> run();
  void exit(int code);

  Service(Service&&) = default;
  Service& operator=(Service&&) = default;

 private:
  Service() = default;
  static int on_sighup(sd_event_source*, const struct signalfd_siginfo*, void* userdata);
  static int on_watchdog(sd_event_source*, uint64_t, void* userdata);

  struct Watch {
    Liveness problem;
    uint64_t period_usec = 0;
    std::string last_problem;
  };

  bus::EventPtr event_;
  bus::BusPtr bus_;
  std::unique_ptr<Reload> reload_;
  std::unique_ptr<Watch> watch_;
  bus::SourcePtr watchdog_timer_;
};

}  // namespace bb::daemon
