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
