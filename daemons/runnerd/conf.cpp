#include "conf.h"

#include <unistd.h>

#include <algorithm>
#include <climits>

#include "util/cpu_list.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::runnerd {

Result<std::vector<int>> online_cpus() {
  auto text = read_file("/sys/devices/system/cpu/online", 4096);
  if (!text) return text.error();
  auto cpus = parse_cpu_list(trim(*text));
  if (!cpus) return cpus.error().with_context("/sys/devices/system/cpu/online");
  return cpus;
}

namespace {

Status derive(Conf& conf) {
  const auto& cfg = conf.appliance;
  conf.runner_id = cfg.runner.runner_id;
  if (conf.runner_id.empty()) {
    char host[HOST_NAME_MAX + 1] = {};
    if (::gethostname(host, sizeof host - 1) < 0) return errno_error("gethostname", errno);
    conf.runner_id = host;
  }
  auto online = online_cpus();
  if (!online) return online.error();
  if (online->empty()) return make_error(Errc::io, "no CPU is online");
  if (cfg.runner.benchmark_cpus.empty()) {
    // The last CPU is the one least likely to take housekeeping work
    // (IRQs and kernel threads favour CPU 0).
    conf.benchmark_cpus = {online->back()};
  } else {
    auto cpus = parse_cpu_list(cfg.runner.benchmark_cpus);
    if (!cpus) return cpus.error().with_context("runner.benchmark_cpus");
    for (int cpu : *cpus)
      if (!std::binary_search(online->begin(), online->end(), cpu))
        return make_error(Errc::invalid_argument, "runner.benchmark_cpus: CPU " + std::to_string(cpu) +
                                                      " is not online (online: " + format_cpu_list(*online) + ")");
    conf.benchmark_cpus = *cpus;
  }
  if (conf.benchmark_cpus.empty())
    return make_error(Errc::invalid_argument, "runner.benchmark_cpus: the list is empty");
  conf.git_cache_dir = path_join(cfg.cache_dir, "git");
  conf.build_cache_dir = path_join(cfg.cache_dir, "builds");
  conf.meter_dir = path_join(cfg.cache_dir, "meter");
  conf.build_cache_bytes = cfg.runner.build_cache_bytes;
  conf.work_dir = cfg.work_dir();
  conf.results_dir = cfg.results_dir();
  conf.lease_seconds = cfg.queue.lease_seconds;
  if (cfg.runner.heartbeat_seconds == 0)
    return make_error(Errc::invalid_argument, "runner.heartbeat_seconds must be > 0");
  if (cfg.runner.heartbeat_seconds >= conf.lease_seconds)
    return make_error(Errc::invalid_argument,
                      "runner.heartbeat_seconds (" + std::to_string(cfg.runner.heartbeat_seconds) +
                          ") must be shorter than queue.lease_seconds (" + std::to_string(conf.lease_seconds) +
                          "), or every job would lose its lease while it runs");
  return {};
}

}  // namespace

Result<Conf> load_conf(const config::ConfigSource& source) {
  Conf conf;
  auto appliance = config::load_appliance_config(source);
  if (!appliance) return appliance.error();
  conf.appliance = std::move(*appliance);
  if (auto st = derive(conf); !st) return st.error();
  return conf;
}

}  // namespace bb::runnerd
