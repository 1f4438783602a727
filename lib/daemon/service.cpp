#include "daemon/service.h"

#include <signal.h>
#include <systemd/sd-daemon.h>

#include "bus/connect.h"
#include "daemon/log.h"

namespace bb::daemon {

Result<Service> Service::create(Reload reload) {
  Service s;
  sd_event* raw = nullptr;
  int r = sd_event_default(&raw);
  if (r < 0) return errno_error("sd_event_default", -r);
  s.event_.reset(raw);

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &mask, nullptr) < 0) return errno_error("sigprocmask", errno);
  // A NULL handler makes sd-event exit the loop on the signal.
  if ((r = sd_event_add_signal(raw, nullptr, SIGTERM, nullptr, nullptr)) < 0)
    return errno_error("watch SIGTERM", -r);
  if ((r = sd_event_add_signal(raw, nullptr, SIGINT, nullptr, nullptr)) < 0)
    return errno_error("watch SIGINT", -r);
  s.reload_ = std::make_unique<Reload>(std::move(reload));
  if ((r = sd_event_add_signal(raw, nullptr, SIGHUP, on_sighup, s.reload_.get())) < 0)
    return errno_error("watch SIGHUP", -r);
  // Pets the watchdog at half of WatchdogSec= when systemd asked for one.
  if ((r = sd_event_set_watchdog(raw, 1)) < 0) return errno_error("sd_event_set_watchdog", -r);
  return s;
}

int Service::on_sighup(sd_event_source*, const struct signalfd_siginfo*, void* userdata) {
  auto* reload = static_cast<Reload*>(userdata);
  if (!*reload) return 0;
  sd_notify(0, "RELOADING=1");
  try {
    if (auto st = (*reload)(); !st)
      log_error("reload: keeping the old configuration: " + st.error().message);
    else
      log_notice("configuration reloaded");
  } catch (const std::exception& e) {
    log_error(std::string("reload: keeping the old configuration: ") + e.what());
  }
  sd_notify(0, "READY=1");
  return 0;
}

Status Service::connect_bus() {
  auto bus = bus::open_system_bus();
  if (!bus) return bus.error();
  return adopt_bus(std::move(*bus));
}

Status Service::adopt_bus(bus::BusPtr bus) {
  bus_ = std::move(bus);
  int r = sd_bus_attach_event(bus_.get(), event_.get(), SD_EVENT_PRIORITY_NORMAL);
  if (r < 0) return errno_error("attach bus to event loop", -r);
  return {};
}

Status Service::own_name(const std::string& name) {
  int r = sd_bus_request_name(bus_.get(), name.c_str(), 0);
  if (r < 0) return errno_error("own bus name " + name, -r);
  return {};
}

uint64_t Service::watchdog_usec() {
  uint64_t usec = 0;
  return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}

Status Service::set_liveness(Liveness problem) {
  uint64_t period = watchdog_usec();
  if (period == 0) return {};  // nobody is watching
  watch_ = std::make_unique<Watch>();
  watch_->problem = std::move(problem);
  watch_->period_usec = period;
  int r = sd_event_set_watchdog(event_.get(), 0);
  if (r < 0) return errno_error("sd_event_set_watchdog", -r);
  sd_event_source* src = nullptr;
  r = sd_event_add_time_relative(event_.get(), &src, CLOCK_MONOTONIC, period / 2, period / 20, on_watchdog,
                                 watch_.get());
  if (r < 0) return errno_error("add the watchdog timer", -r);
  watchdog_timer_.reset(src);
  sd_event_source_set_enabled(src, SD_EVENT_ON);
  sd_notify(0, "WATCHDOG=1");
  return {};
}

int Service::on_watchdog(sd_event_source* source, uint64_t, void* userdata) {
  auto* w = static_cast<Watch*>(userdata);
  try {
    std::string problem = w->problem();
    if (problem.empty()) {
      sd_notify(0, "WATCHDOG=1");
      if (!w->last_problem.empty()) log_notice("serving again; petting the watchdog");
    } else {
      // Logged when it starts; the status line follows every tick.
      if (w->last_problem.empty())
        log_error("not petting the watchdog: " + problem, {{"WATCHDOG_USEC", std::to_string(w->period_usec)}});
      sd_notifyf(0, "STATUS=Not serving: %s", problem.c_str());
    }
    w->last_problem = std::move(problem);
  } catch (...) {  // an sd-event callback: nothing may escape; no ping either
  }
  sd_event_source_set_time_relative(source, w->period_usec / 2);
  return 0;
}

void Service::notify_ready(const std::string& status) {
  sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str());
}

void Service::notify_status(const std::string& status) { sd_notifyf(0, "STATUS=%s", status.c_str()); }

Result<int> Service::run() {
  int r = sd_event_loop(event_.get());
  sd_notify(0, "STOPPING=1\nSTATUS=Shutting down");
  if (r < 0) return errno_error("event loop", -r);
  return r;
}

void Service::exit(int code) { sd_event_exit(event_.get(), code); }

}  // namespace bb::daemon
