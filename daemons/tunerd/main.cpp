// benchbox-tunerd: applies, verifies and restores the host tuning profile
// and serves org.benchbox.Tuner1. Thin: flags, config, wiring, the loop.
#include <cstdio>
#include <cstring>
#include <string>

#include "bus/names.h"
#include "conf.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "manager.h"

using namespace bb;

namespace {

void usage(FILE* out) {
  std::fprintf(out,
               "usage: benchbox-tunerd [--config PATH]\n\n"
               "  --config PATH   appliance config (default %s; missing = defaults)\n"
               "  --version       print the version\n",
               config::kDefaultConfigPath);
}

int run(const std::string& config_path) {
  auto conf = tunerd::load_conf(config_path);
  if (!conf) {
    daemon::log_error("configuration: " + conf.error().message);
    return 1;
  }
  daemon::log_info(std::string("config ") + (conf->config_found ? conf->config_path : "(defaults)") + ", profile " +
                   (conf->profile_found ? conf->profile_path : "(defaults)") + ", sysfs root " +
                   conf->sysfs_root() + ", save " + conf->save_path);

  tunerd::Manager* live = nullptr;
  auto service = daemon::Service::create([&live, config_path] {
    auto fresh = tunerd::load_conf(config_path);
    if (!fresh) {
      daemon::log_error("reload: keeping the old configuration: " + fresh.error().message);
      return;
    }
    if (auto st = live->reload(std::move(*fresh)); !st)
      daemon::log_error("reload: keeping the old configuration: " + st.error().message);
    else
      daemon::log_notice("configuration and profile reloaded");
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
  std::string config_path = config::kDefaultConfigPath;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      config_path = a.substr(9);
    } else if (a == "--version") {
      std::printf("benchbox-tunerd %s\n", BENCHBOX_VERSION);
      return 0;
    } else if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "benchbox-tunerd: unknown argument '%s'\n\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  try {
    return run(config_path);
  } catch (const std::exception& e) {
    daemon::log_error(std::string("fatal: ") + e.what());
    return 1;
  }
}
