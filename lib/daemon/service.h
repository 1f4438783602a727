// The skeleton every benchbox daemon shares (systemd src/timesync style):
// an sd-event loop that exits on SIGTERM/SIGINT, reloads on SIGHUP, pets the
// watchdog when WatchdogSec= is set, and tells systemd READY=1 only after the
// bus name is owned.
#pragma once

#include <functional>
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

  bus::EventPtr event_;
  bus::BusPtr bus_;
  std::unique_ptr<Reload> reload_;
};

}  // namespace bb::daemon
