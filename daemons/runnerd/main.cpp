// benchbox-runnerd: claims benchmark jobs and runs them on the benchmark
// CPUs (org.benchbox.Runner1).
#include <memory>

#include "bus.h"
#include "bus/names.h"
#include "conf.h"
#include "daemon/args.h"
#include "daemon/log.h"
#include "daemon/service.h"
#include "manager.h"
#include "util/cpu_list.h"

using namespace bb;

static int fail(const std::string& what) {
  daemon::log_error(what);
  return 1;
}

int main(int argc, char** argv) {
  daemon::log_init("benchbox-runnerd");
  int exit_code = 0;
  const auto args = daemon::parse_args(argc, argv, "benchbox-runnerd", {}, &exit_code);
  if (!args) return exit_code;
  auto conf = runnerd::load_conf(args->config);
  if (!conf) return fail(conf.error().message);

  // The runner's settings (CPUs, paths, lease) shape a running job, so a
  // SIGHUP never swaps them under it: they apply from the next job on.
  runnerd::Manager* live = nullptr;
  auto service = daemon::Service::create([&live, source = args->config]() -> Status {
    if (!live) return {};
    auto fresh = runnerd::load_conf(source);
    if (!fresh) return fresh.error();
    live->reload(std::move(*fresh));
    return {};
  });
  if (!service) return fail(service.error().message);
  if (auto st = service->connect_bus(); !st) return fail(st.error().message);
  const std::string cpus = format_cpu_list(conf->benchmark_cpus), runner_id = conf->runner_id;
  auto manager = std::make_unique<runnerd::Manager>(std::move(*conf), service->bus(), service->event());
  live = manager.get();
  auto object = runnerd::register_runner_object(service->bus(), manager.get());
  if (!object) return fail(object.error().message);
  if (auto st = service->own_name(bus::kRunnerName); !st) return fail(st.error().message);
  if (auto st = manager->start(); !st) return fail(st.error().message);
  service->notify_ready("Runner " + runner_id + " on CPUs " + cpus + ", " + manager->isolation());
  daemon::log_info("ready; commands run as " + manager->runner_choice(), {{"RUNNER", runner_id}, {"CPUS", cpus}});
  auto rc = service->run();
  manager->shutdown();
  if (!rc) return fail(rc.error().message);
  return 0;
}
