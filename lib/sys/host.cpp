#include "sys/host.h"

#include <cstdlib>

#include "util/cpu_list.h"
#include "util/text.h"

namespace bb::sys {

Result<HostInfo> read_host_info(const SysFs& fs) {
  HostInfo info;
  auto kernel = read_value(fs, "/proc/sys/kernel/osrelease");
  if (!kernel) return kernel.error().with_context("kernel release under " + fs.describe());
  info.kernel = *kernel;
  if (auto cpuinfo = fs.read("/proc/cpuinfo"); cpuinfo) {
    for (const auto& line : split(*cpuinfo, '\n')) {
      if (line.empty()) break;  // the first CPU's block ends at a blank line
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = trim(line.substr(0, colon));
      std::string value = trim(line.substr(colon + 1));
      if (key == "model name") info.cpu_model = value;
      if (key == "microcode") info.microcode = value;
    }
  }
  if (auto cpus = online_cpus(fs)) info.cpus = static_cast<int>(cpus->size());
  if (auto meminfo = fs.read("/proc/meminfo")) {
    for (const auto& line : split(*meminfo, '\n')) {
      if (line.rfind("MemTotal:", 0) != 0) continue;
      // "MemTotal:       16303412 kB"
      info.memory_bytes = std::strtoull(line.c_str() + 9, nullptr, 10) * 1024;
      break;
    }
  }
  return info;
}

Result<std::vector<int>> online_cpus(const SysFs& fs) {
  auto text = read_value(fs, "/sys/devices/system/cpu/online");
  if (!text) return text.error();
  auto cpus = parse_cpu_list(*text);
  if (!cpus) return cpus.error().with_context("/sys/devices/system/cpu/online");
  if (cpus->empty()) return make_error(Errc::parse, "/sys/devices/system/cpu/online lists no CPU");
  return cpus;
}

CmdlineArg cmdline_arg(const std::string& cmdline, const std::string& key) {
  CmdlineArg out;
  for (const auto& word : split(trim(cmdline), ' ')) {
    if (word == "--") break;  // the rest belongs to init
    if (word == key) {
      out = {true, ""};
    } else if (word.size() > key.size() && word.compare(0, key.size(), key) == 0 && word[key.size()] == '=') {
      out = {true, word.substr(key.size() + 1)};  // the last one wins, as in the kernel
    }
  }
  return out;
}

}  // namespace bb::sys
