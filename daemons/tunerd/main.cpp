// benchbox-tunerd: applies, verifies and restores the host tuning profile
// and serves org.benchbox.Tuner1. Thin: flags, config, wiring, the loop.
#include <cstdio>
#include <cstring>
#include <string>

#include "bus/names.h"
#include "conf.h"
#include "daemon/args.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "manager.h"

using namespace bb;

namespace {

int run(const config::ConfigSource& source) {
  auto conf = tunerd::load_conf(source);
  if (!conf) {
    daemon::log_error("configuration: " + conf.error().message);
    return 1;
  }
  daemon::log_info(std::string("config ") + (conf->config_found ? conf->source.path : "(defaults)") + ", profile " +
                   (conf->profile_found ? conf->profile_path : "(defaults)") + ", sysfs root " +
                   conf->sysfs_root() + ", save " + conf->save_path);

  tunerd::Manager* live = nullptr;
  auto service = daemon::Service::create([&live, source]() -> Status {
    auto fresh = tunerd::load_conf(source);
    if (!fresh) return fresh.error();
    return live->reload(std::move(*fresh));
  });
  if (!service) {
    daemon::log_error(service.error().message);
    return 1;
  }
  auto manager = tunerd::Manager::create(*service, *conf);
  if (!manager) {
    daemon::log_error("tuner: " + manager.error().message);
    return 1;
  }
  live = manager->get();
  if (auto st = service->connect_bus(); !st) {
    daemon::log_error(st.error().message);
    return 1;
  }
  if (auto st = tunerd::register_bus(**manager); !st) {
    daemon::log_error(st.error().message);
    return 1;
  }
  // Crash-restore (and apply_on_start) happen before the name is taken, so
  // nobody sees a half-restored host through the bus.
  if (auto st = (*manager)->start(); !st) {
    daemon::log_error(st.error().message);
    return 1;
  }
  if (auto st = service->own_name(bus::kTunerName); !st) {
    daemon::log_error(st.error().message);
    return 1;
  }
  service->notify_ready(std::string("State: ") + (*manager)->state() + ", benchmark CPUs " +
                        (*manager)->benchmark_cpus());
  daemon::log_notice(std::string("ready on ") + bus::kTunerName + ", state " + (*manager)->state());
  auto code = service->run();
  (*manager)->stop();
  if (!code) {
    daemon::log_error(code.error().message);
    return 1;
  }
  return *code;
}

}  // namespace

int main(int argc, char** argv) {
  daemon::log_init("benchbox-tunerd");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-tunerd", {}, &exit_code);
  if (!args) return exit_code;
  try {
    return run(args->config);
  } catch (const std::exception& e) {
    daemon::log_error(std::string("fatal: ") + e.what());
    return 1;
  }
}
