#include "exec/meter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "exec/cgroup_memory.h"
#include "util/fd.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::exec {

namespace {

// "key value" lines of a cgroup file, as "<file> key value" lines.
void add_keyed(std::string& out, const std::string& dir, const char* file) {
  auto text = read_file(path_join(dir, file), 64 * 1024);
  if (!text) return;
  for (const auto& line : split(*text, '\n'))
    if (!trim(line).empty()) out += std::string(file) + " " + std::string(trim(line)) + "\n";
}

}  // namespace

Result<std::string> meter_report(const std::string& root, const std::string& cgroup,
                                 const std::map<std::string, std::string>& v1) {
  // A pure cgroup-v2 host, or the v2 hierarchy of a hybrid one.
  const std::string base = root.empty() ? std::string("/sys/fs/cgroup") : path_join(root, "sys/fs/cgroup");
  std::string dir, out;
  for (const char* mount : {"", "/unified"}) {
    dir = base + mount + cgroup;
    add_keyed(out, dir, "cpu.stat");
    if (!out.empty()) break;
  }
  if (out.empty()) return make_error(Errc::not_found, "no cpu.stat for cgroup " + cgroup + " under " + base);
  std::string memory, pids;
  if (auto peak = read_file(path_join(dir, "memory.peak"), 64)) memory += "memory.peak " + trim(*peak) + "\n";
  add_keyed(memory, dir, "memory.events");
  add_keyed(pids, dir, "pids.events");
  // v1: the peak is memory.max_usage_in_bytes, OOM kills are counted in
  // memory.oom_control (Linux >= 4.13), pids.events is the same file.
  if (auto it = v1.find("memory"); memory.empty() && it != v1.end()) {
    const std::string d = base + "/memory" + it->second;
    if (auto peak = read_file(path_join(d, "memory.max_usage_in_bytes"), 64)) memory += "memory.peak " + trim(*peak) + "\n";
    if (auto oom = read_file(path_join(d, "memory.oom_control"), 4096))
      for (const auto& line : split(*oom, '\n'))
        if (line.rfind("oom_kill ", 0) == 0) memory += "memory.events " + trim(line) + "\n";
  }
  if (auto it = v1.find("pids"); pids.empty() && it != v1.end()) add_keyed(pids, base + "/pids" + it->second, "pids.events");
  return out + memory + pids;
}

Result<MeterReading> parse_meter_report(const std::string& text) {
  MeterReading m;
  bool cpu = false;
  for (const auto& line : split(text, '\n')) {
    std::istringstream in{std::string(line)};
    std::string file, key, value;
    in >> file >> key;
    if (file == "memory.peak") value = key, key.clear();
    else in >> value;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') continue;  // "max" and the like
    if (file == "cpu.stat" && key == "user_usec") m.user_usec = v, cpu = true;
    else if (file == "cpu.stat" && key == "system_usec") m.system_usec = v, cpu = true;
    else if (file == "memory.peak") m.memory_peak = v;
    else if (file == "memory.events" && key == "oom_kill") m.oom_kills = v;
    else if (file == "pids.events" && key == "max") m.tasks_max_hits = v;
  }
  if (!cpu) return make_error(Errc::invalid_argument, "the meter's report has no cpu.stat figures");
  return m;
}

Result<std::string> own_meter_report() {
  auto cgroup = cgroup2_path_of("", ::getpid());
  if (!cgroup) return make_error(Errc::not_found, "this process is in no cgroup-v2 group");
  // "4:memory:/system.slice/x.service" lines: the v1 hierarchies of a hybrid host.
  std::map<std::string, std::string> v1;
  if (auto text = read_file("/proc/self/cgroup", 64 << 10))
    for (const auto& line : split(*text, '\n')) {
      const auto first = line.find(':'), second = line.find(':', first + 1);
      if (first == std::string::npos || second == std::string::npos) continue;
      const std::string controller = line.substr(first + 1, second - first - 1);
      if (controller == "memory" || controller == "pids") v1[controller] = line.substr(second + 1);
    }
  return meter_report("", *cgroup, v1);
}

Status write_meter_report(const std::string& out) {
  auto report = own_meter_report();
  if (!report) return report.error();
  const std::string tmp = out + ".tmp";
  ::unlink(tmp.c_str());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) return errno_error("create " + tmp, errno);
  // Root's file in runnerd's directory: runnerd (not root) must read it.
  if (::fchmod(fd.get(), 0644) < 0) return errno_error("chmod " + tmp, errno);
  // No fsync: the file lives for one command, and a crash loses the command anyway.
  for (size_t off = 0; off < report->size();) {
    ssize_t n = ::write(fd.get(), report->data() + off, report->size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("write " + tmp, errno);
    off += static_cast<size_t>(n);
  }
  fd.reset();
  if (::rename(tmp.c_str(), out.c_str()) < 0) return errno_error("rename " + tmp, errno);
  return {};
}

}  // namespace bb::exec
