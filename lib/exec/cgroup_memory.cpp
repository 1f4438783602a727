#include "exec/cgroup_memory.h"

#include <cstdlib>

#include "util/file.h"

namespace bb::exec {

std::optional<std::string> cgroup2_path_of(const std::string& root, pid_t pid) {
  auto text = read_file(root + "/proc/" + std::to_string(pid) + "/cgroup", 64 << 10);
  if (!text) return std::nullopt;
  size_t at = 0;
  while (at < text->size()) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string line = text->substr(at, end - at);
    if (line.rfind("0::", 0) == 0 && line.size() > 3) return line.substr(3);
    at = end + 1;
  }
  return std::nullopt;
}

namespace {

bool plain_path(const std::string& path) {
  return !path.empty() && path[0] == '/' && path.find("/../") == std::string::npos;
}

}  // namespace

std::optional<int64_t> cgroup2_oom_kills(const std::string& root, const std::string& path) {
  if (!plain_path(path)) return std::nullopt;
  for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    auto text = read_file(root + mount + path + "/memory.events", 4096);
    if (!text) continue;
    const size_t at = text->rfind("oom_kill ");
    if (at == std::string::npos || (at > 0 && (*text)[at - 1] != '\n')) continue;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str() + at + 9, &end, 10);
    if (end == text->c_str() + at + 9 || v < 0) continue;
    return int64_t(v);
  }
  return std::nullopt;
}

std::optional<int64_t> cgroup2_memory_peak(const std::string& root, const std::string& path) {
  if (!plain_path(path)) return std::nullopt;
  for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    auto text = read_file(root + mount + path + "/memory.peak", 64);
    if (!text) continue;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (end == text->c_str() || v < 0 || (*end != '\n' && *end != '\0')) continue;
    return int64_t(v);
  }
  return std::nullopt;
}

}  // namespace bb::exec
