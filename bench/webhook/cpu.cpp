#include "cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace bb::bench {

namespace {

struct Stat {
  std::string comm;
  long ppid = 0;
  double seconds = 0;  // utime + stime
};

bool read_stat(const std::string& pid, Stat& out) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  // comm is in parentheses and may hold spaces: the fields after it start
  // past the last ')'.
  const size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.comm = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  long utime = 0, stime = 0;
  // Field 3 (state) is the first after comm; ppid is 4, utime 14, stime 15.
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 4) out.ppid = std::atol(field.c_str());
    if (i == 14) utime = std::atol(field.c_str());
    if (i == 15) stime = std::atol(field.c_str());
  }
  out.seconds = double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
  return true;
}

double machine_idle_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  long user, nice, system, idle, iowait;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait)) return 0;
  return double(idle + iowait) / double(::sysconf(_SC_CLK_TCK));
}

}  // namespace

CpuSnapshot CpuSnapshot::take() {
  CpuSnapshot s;
  Stat self;
  if (read_stat("self", self)) s.seconds["bench"] = self.seconds;
  const long me = ::getpid();
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      Stat st;
      if (read_stat(e->d_name, st) && st.ppid == me) s.seconds[st.comm] += st.seconds;
    }
    ::closedir(d);
  }
  s.idle = machine_idle_seconds();
  return s;
}

std::string cpu_per_delivery(const CpuSnapshot& before, const CpuSnapshot& after, size_t deliveries, double wall) {
  std::string out;
  char buf[128];
  double total = 0;
  for (const auto& [name, t] : after.seconds) {
    auto was = before.seconds.find(name);
    const double used = t - (was == before.seconds.end() ? 0 : was->second);
    if (used <= 0) continue;
    total += used;
    std::snprintf(buf, sizeof buf, "%s%s %.0f", out.empty() ? "" : ", ", name.c_str(),
                  1e6 * used / double(deliveries ? deliveries : 1));
    out += buf;
  }
  const double cpus = double(std::thread::hardware_concurrency());
  std::snprintf(buf, sizeof buf, "; all %.0f us a delivery; machine idle %.0f %%", 1e6 * total / double(deliveries ? deliveries : 1),
                wall > 0 && cpus > 0 ? 100.0 * (after.idle - before.idle) / (wall * cpus) : 0.0);
  return "CPU us a delivery: " + out + buf;
}

}  // namespace bb::bench
