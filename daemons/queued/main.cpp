// benchbox-queued: the durable job queue (org.benchbox.Queue1).
#include <systemd/sd-id128.h>

#include <memory>

#include "bus.h"
#include "bus/names.h"
#include "config/appliance.h"
#include "daemon/args.h"
#include "daemon/credential.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "daemon/startup.h"
#include "manager.h"
#include "util/file.h"

using namespace bb;

static int fail(const std::string& what) {
  daemon::log_error(what);
  return 1;
}

int main(int argc, char** argv) {
  daemon::log_init("benchbox-queued");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-queued", {}, &exit_code);
  if (!args) return exit_code;
  auto loaded = config::load_appliance_config(args->config);
  if (!loaded) return fail(loaded.error().message);
  const config::ApplianceConfig cfg = std::move(*loaded);
  store::Location where = store::Location::sqlite(cfg.queue_database());
  if (cfg.queue.backend == "postgresql") {
    auto conninfo = daemon::read_postgres_credential("queue.backend", "benchbox-queued.service");
    if (!conninfo) return fail(conninfo.error().message);
    where = store::Location::postgresql(*conninfo);
  } else {
    const std::string& database = where.target;
    auto slash = database.rfind('/');
    if (slash != std::string::npos && slash > 0)
      if (auto st = make_dirs(database.substr(0, slash), 0755); !st) return fail(st.error().message);
  }

  // The store keeps a pointer to the clock: it lives as long as main.
  static SystemClock clock;
  store::QueueOptions options = queued::queue_options(cfg);
  // Names this process in the shared queue's notifications, so it does not
  // announce its own changes twice.
  sd_id128_t origin;
  if (int r = sd_id128_randomize(&origin); r < 0) return fail(errno_error("random origin", -r).message);
  char origin_text[SD_ID128_STRING_MAX];
  options.origin = sd_id128_to_string(origin, origin_text);
  // Leases are judged by the server's clock: a box whose clock drifts
  // cannot expire the others' leases early, nor keep its own too long.
  options.database_clock = true;
  // Opening applies the queue's migrations, and waits for another box's
  // on a shared database.
  auto store = [&] {
    daemon::StartupExtender extend("Opening the queue (migrating it if this benchbox is newer)");
    return store::QueueStore::open(where, clock, options);
  }();
  if (!store) return fail("cannot open the queue: " + store.error().message);
  const std::string database = store->database().name();

  std::unique_ptr<queued::Manager> manager;
  auto service = daemon::Service::create([&]() -> Status {
    auto fresh = config::load_appliance_config(args->config);
    if (!fresh) return fresh.error();
    manager->set_config(std::move(*fresh));
    return {};
  });
  if (!service) return fail(service.error().message);
  if (auto st = service->connect_bus(); !st) return fail(st.error().message);
  manager = std::make_unique<queued::Manager>(cfg, std::move(*store), service->bus(), service->event());
  auto objects = queued::register_queue_objects(service->bus(), manager.get());
  if (!objects) return fail(objects.error().message);
  if (auto st = manager->start(); !st) return fail(st.error().message);
  if (where.backend == store::Backend::postgresql)
    if (auto st = manager->listen(where.target); !st) return fail(st.error().message);
  if (auto st = service->own_name(bus::kQueueName); !st) return fail(st.error().message);
  const auto& c = manager->counts();
  service->notify_ready(std::to_string(c.queued) + " queued, " + std::to_string(c.running) + " running");
  daemon::log_info("ready", {{"DATABASE", database}});
  auto rc = service->run();
  if (!rc) return fail(rc.error().message);
  return 0;
}
