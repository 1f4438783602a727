// benchbox-reporterd: turns finished jobs into reports, history and a site.
#include <cstdio>

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
  daemon::log_init("benchbox-reporterd");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-reporterd", {}, &exit_code);
  if (!args) return exit_code;
  auto loaded = config::load_appliance_config(args->config);
  if (!loaded) return fail(loaded.error().message);
  const config::ApplianceConfig cfg = std::move(*loaded);
  for (const auto& dir : {cfg.state_dir, cfg.reports_dir(), cfg.site_dir()})
    if (auto st = make_dirs(dir, 0755); !st) return fail(st.error().message);
  store::Location where = store::Location::sqlite(cfg.history_database());
  if (cfg.reporter.backend == "postgresql") {
    auto conninfo = daemon::read_postgres_credential("reporter.backend", "benchbox-reporterd.service");
    if (!conninfo) return fail(conninfo.error().message);
    where = store::Location::postgresql(*conninfo);
  }
  // Opening applies history's migrations first, and on a large history one
  // can take minutes (an index over every point rebuilt).
  auto history = [&] {
    daemon::StartupExtender extend("Opening history (migrating it if this benchbox is newer)");
    return report::HistoryStore::open(where);
  }();
  if (!history) return fail("cannot open history: " + history.error().message);
  const std::string history_name = history->database().name();

  std::unique_ptr<reporterd::Manager> manager;
  auto service = daemon::Service::create([&]() -> Status {
    auto fresh = config::load_appliance_config(args->config);
    if (!fresh) return fresh.error();
    manager->set_config(std::move(*fresh));
    return {};
  });
  if (!service) return fail(service.error().message);
  if (auto st = service->connect_bus(); !st) return fail(st.error().message);
  auto poster = reporterd::GitHubPoster::create(cfg);
  if (!poster) return fail(poster.error().message);
  if (!*poster) daemon::log_info("GitHub posting is off (reporter.github_auth): reports stay local");
  auto notifier = reporterd::NotifyPoster::create(cfg);
  if (!notifier) return fail(notifier.error().message);
  manager = std::make_unique<reporterd::Manager>(cfg, std::move(*history), service->bus(), service->event(),
                                                std::move(*poster), std::move(*notifier));
  auto object = reporterd::register_reporter_object(service->bus(), manager.get());
  if (!object) return fail(object.error().message);
  if (auto st = service->own_name(bus::kReporterName); !st) return fail(st.error().message);
  if (auto st = manager->start(); !st) return fail(st.error().message);
  service->notify_ready("Waiting for finished jobs");
  daemon::log_info("ready", {{"HISTORY", history_name}, {"REPORTS", cfg.reports_dir()}});
  auto rc = service->run();
  if (!rc) return fail(rc.error().message);
  return 0;
}
