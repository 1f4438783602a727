// benchbox-reporterd: turns finished jobs into reports, history and a site.
#include <cstdio>

#include "bus.h"
#include "bus/names.h"
#include "conf.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "manager.h"
#include "util/file.h"

using namespace bb;

static int fail(const std::string& what) {
  daemon::log_error(what);
  return 1;
}

int main(int argc, char** argv) {
  daemon::log_init("benchbox-reporterd");
  auto conf = reporterd::load_conf(argc, argv);
  if (!conf) return fail(conf.error().message);
  const auto& cfg = conf->appliance;
  for (const auto& dir : {cfg.state_dir, cfg.reports_dir(), cfg.site_dir()})
    if (auto st = make_dirs(dir, 0755); !st) return fail(st.error().message);
  auto history = report::HistoryStore::open(cfg.history_database());
  if (!history) return fail("cannot open history: " + history.error().message);

  std::unique_ptr<reporterd::Manager> manager;
  auto service = daemon::Service::create([&] {
    auto fresh = reporterd::reload_appliance(*conf);
    if (!fresh) {
      daemon::log_error("reload: keeping the old configuration: " + fresh.error().message);
      return;
    }
    manager->set_config(std::move(*fresh));
    daemon::log_info("configuration reloaded");
  });
  if (!service) return fail(service.error().message);
  if (auto st = service->connect_bus(); !st) return fail(st.error().message);
  auto poster = reporterd::GitHubPoster::create(cfg);
  if (!poster) return fail(poster.error().message);
  if (!*poster) daemon::log_info("GitHub posting is off (reporter.github_app_id is 0): reports stay local");
  manager = std::make_unique<reporterd::Manager>(cfg, std::move(*history), service->bus(), std::move(*poster));
  auto object = reporterd::register_reporter_object(service->bus(), manager.get());
  if (!object) return fail(object.error().message);
  if (auto st = service->own_name(bus::kReporterName); !st) return fail(st.error().message);
  if (auto st = manager->start(); !st) return fail(st.error().message);
  service->notify_ready("Waiting for finished jobs");
  daemon::log_info("ready", {{"HISTORY", cfg.history_database()}, {"REPORTS", cfg.reports_dir()}});
  auto rc = service->run();
  if (!rc) return fail(rc.error().message);
  return 0;
}
