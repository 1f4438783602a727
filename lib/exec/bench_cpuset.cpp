#include "exec/bench_cpuset.h"

#include "util/cpu_list.h"
#include "util/file.h"

namespace bb::exec {

bool BenchAdmission::applies(const std::vector<int>& cpus) const {
  return !cpus.empty() && admit && path_exists(cpuset_tasks);
}

std::string BenchAdmission::describe() const {
  return admit ? "; under v1 shielding the benchmark cpuset, admitted by tunerd" : "";
}

std::string cpu_isolation(const std::vector<int>& cpus, bool admitted, bool allowed_cpus) {
  if (cpus.empty()) return "";
  const char* how = admitted ? ";cpuset:benchbox-bench+affinity:" : allowed_cpus ? ";allowed-cpus+affinity:" : ";affinity:";
  return how + format_cpu_list(cpus);
}

}  // namespace bb::exec
