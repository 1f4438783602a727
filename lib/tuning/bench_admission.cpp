#include "tuning/bench_admission.h"

#include "tuning/shielding.h"
#include "util/text.h"

namespace bb::tuning {

namespace {

// The systemd hierarchy's path in /proc/PID/cgroup: the "name=systemd"
// line on a legacy host (systemd tracks units there), else "0::".
std::string systemd_cgroup(const std::string& text) {
  std::string unified, named;
  for (const auto& line : split(text, '\n')) {
    const auto first = line.find(':'), second = line.find(':', first == std::string::npos ? 0 : first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string id = line.substr(0, first), controllers = line.substr(first + 1, second - first - 1);
    if (id == "0" && controllers.empty()) unified = line.substr(second + 1);
    else if (controllers == "name=systemd") named = line.substr(second + 1);
  }
  return named.empty() ? unified : named;
}

}  // namespace

Result<std::string> bench_service_of(const sys::SysFs& fs, pid_t pid) {
  if (pid <= 1) return make_error(Errc::invalid_argument, "PID " + std::to_string(pid) + " is not a command's");
  const std::string file = "/proc/" + std::to_string(pid) + "/cgroup";
  auto text = fs.read(file);
  if (!text) return make_error(Errc::not_found, "no process " + std::to_string(pid) + " (" + text.error().message + ")");
  const std::string cgroup = trim(systemd_cgroup(*text));
  // ".../benchbox-bench.slice/<unit>.service" (a contained command) or
  // ".scope" (the uncontained fallback): the last two components.
  const auto cut = cgroup.rfind('/');
  const std::string unit = cut == std::string::npos ? "" : cgroup.substr(cut + 1);
  const std::string parent = cut == std::string::npos ? "" : cgroup.substr(0, cut);
  const auto parent_cut = parent.rfind('/');
  const std::string slice = parent_cut == std::string::npos ? "" : parent.substr(parent_cut + 1);
  const bool unit_kind = (unit.ends_with(".service") && unit.size() > 8) || (unit.ends_with(".scope") && unit.size() > 6);
  if (slice != kBenchSlice || !unit_kind)
    return make_error(Errc::permission_denied, "process " + std::to_string(pid) + " is in cgroup '" + cgroup +
                                                   "', not a unit of " + kBenchSlice);
  return unit;
}

Result<std::string> admit_to_bench(sys::SysFs& fs, pid_t pid) {
  const std::string tasks = std::string(kCpusetBench) + "/tasks";
  if (!fs.exists(tasks))
    return make_error(Errc::not_found, std::string("no benchmark cpuset (") + kCpusetBench +
                                           "): shielding with cgroup-v1 cpusets is not applied");
  auto unit = bench_service_of(fs, pid);
  if (!unit) return unit.error();
  if (auto st = fs.write(tasks, std::to_string(pid)); !st)
    return st.error().with_context("move " + *unit + "'s process " + std::to_string(pid) + " to " + tasks);
  return unit;
}

}  // namespace bb::tuning
