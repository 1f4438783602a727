// benchbox-webhookd: GitHub webhooks in, durable Queue1 jobs out.
// HTTP on a socket-activated fd (or --listen for development), the secret
// from a systemd credential, a bus client of org.benchbox.Queue1.
#include <memory>

#include "conf.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "liveness.h"
#include "manager.h"

using namespace bb;

static int fail(const std::string& what) {
  daemon::log_error(what);
  return 1;
}

int main(int argc, char** argv) {
  daemon::log_init("benchbox-webhookd");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-webhookd", webhookd::kOptions, &exit_code);
  if (!args) return exit_code;
  auto conf = webhookd::load_conf(*args);
  if (!conf) return fail(conf.error().message);
  auto secret = webhookd::read_secret();
  if (!secret) return fail(secret.error().message);
  auto fd = webhookd::listening_socket(*conf);
  if (!fd) return fail(fd.error().message);

  std::unique_ptr<webhookd::Manager> manager;
  auto service = daemon::Service::create([&manager]() -> Status {
    if (!manager) return {};
    return manager->reload();
  });
  if (!service) return fail(service.error().message);
  if (auto st = service->connect_bus(); !st) return fail(st.error().message);

  manager = std::make_unique<webhookd::Manager>(service->event(), service->bus(), std::move(*conf),
                                                std::move(*secret));
  if (auto st = manager->start(*fd); !st) return fail(st.error().message);
  // With WatchdogSec=, the watchdog is petted only while webhookd answers
  // its own probe through the listening socket.
  std::unique_ptr<webhookd::LivenessProbe> probe;
  if (uint64_t watchdog = daemon::Service::watchdog_usec(); watchdog > 0) {
    probe = std::make_unique<webhookd::LivenessProbe>(service->event(), [&manager] { return manager->listen_fd(); },
                                                      std::chrono::microseconds(watchdog / 4));
    if (auto st = probe->start(); !st) return fail(st.error().message);
    if (auto st = service->set_liveness([&probe] { return probe->problem(); }); !st)
      return fail(st.error().message);
  }
  // webhookd owns no bus name (it is a client); it is ready once it serves.
  service->notify_ready(manager->status_line());
  daemon::log_info("serving webhooks");

  auto r = service->run();  // drains from its exit handler
  probe.reset();
  manager.reset();
  if (!r) return fail(r.error().message);
  return 0;
}
