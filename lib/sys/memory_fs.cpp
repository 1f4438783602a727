#include "sys/memory_fs.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/file.h"
#include "util/text.h"

namespace bb::sys {

namespace {

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

bool is_below(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         (dir == "/" || path[dir.size()] == '/');
}

}  // namespace

Result<MemoryFs> MemoryFs::load_tree(const std::string& dir) {
  namespace fs = std::filesystem;
  MemoryFs m;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) return make_error(Errc::not_found, "fixture tree " + dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error(Errc::io, "walk " + dir + ": " + ec.message());
    std::string rel = "/" + fs::relative(it->path(), dir).string();
    if (it->is_directory()) {
      m.dirs_.insert(rel);
    } else if (it->is_regular_file()) {
      auto content = read_file(it->path().string());
      if (!content) return content.error();
      m.put(rel, *content);
    }
  }
  return m;
}

void MemoryFs::put(const std::string& path, const std::string& content) {
  files_[path] = content;
  for (std::string p = parent_of(path); dirs_.insert(p).second && p != "/"; p = parent_of(p)) {
  }
}

void MemoryFs::remove(const std::string& path) {
  files_.erase(path);
  dirs_.erase(path);
  for (auto it = files_.begin(); it != files_.end();)
    it = is_below(it->first, path) ? files_.erase(it) : std::next(it);
  for (auto it = dirs_.begin(); it != dirs_.end();)
    it = is_below(*it, path) ? dirs_.erase(it) : std::next(it);
}

Result<std::string> MemoryFs::read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return errno_error("read " + path, ENOENT);
  return it->second;
}

Status MemoryFs::write(const std::string& path, const std::string& value) {
  auto it = files_.find(path);
  if (it == files_.end()) return make_error(Errc::not_found, "write " + path + ": " + std::strerror(ENOENT));
  if (read_only_.count(path)) return make_error(Errc::io, "write " + path + ": " + std::strerror(EROFS));
  if (auto f = failing_.find(path); f != failing_.end())
    return make_error(f->second == EINVAL ? Errc::invalid_argument : Errc::io,
                      "write " + path + ": " + std::strerror(f->second));
  writes_.emplace_back(path, value);
  if (path.size() > 6 && path.compare(path.size() - 6, 6, "/tasks") == 0) {
    // cgroupfs: writing a pid to a "tasks" file moves that task there.
    std::string line = value + "\n";
    for (auto& [p, content] : files_) {
      if (p.size() <= 6 || p.compare(p.size() - 6, 6, "/tasks") != 0) continue;
      std::string kept;
      for (const auto& pid : split(content, '\n'))
        if (!pid.empty() && pid != value) kept += pid + "\n";
      content = kept;
    }
    it->second += line;
    return {};
  }
  it->second = value + "\n";
  return {};
}

bool MemoryFs::exists(const std::string& path) const { return files_.count(path) || dirs_.count(path); }

bool MemoryFs::is_dir(const std::string& path) const { return dirs_.count(path) > 0; }

Result<std::vector<std::string>> MemoryFs::list(const std::string& path) const {
  if (!dirs_.count(path)) return errno_error("list " + path, ENOENT);
  std::set<std::string> names;
  auto add = [&](const std::string& p) {
    if (parent_of(p) == path && p != "/") names.insert(p.substr(p.rfind('/') + 1));
  };
  for (const auto& [p, _] : files_) add(p);
  for (const auto& d : dirs_) add(d);
  return std::vector<std::string>(names.begin(), names.end());
}

// cgroupfs emulation: a directory made inside a cpuset cgroup comes with
// empty control files, and can be removed while it has no tasks.
static const char* const kCpusetFiles[] = {"cpuset.cpus", "cpuset.mems", "tasks"};

Status MemoryFs::make_dir(const std::string& path) {
  std::string parent = parent_of(path);
  if (exists(path)) return errno_error("mkdir " + path, EEXIST);
  if (!dirs_.count(parent)) return errno_error("mkdir " + path, ENOENT);
  if (read_only_.count(parent)) return errno_error("mkdir " + path, EROFS);
  dirs_.insert(path);
  if (files_.count(parent + "/cpuset.cpus"))
    for (const char* f : kCpusetFiles) files_[path + "/" + f] = "";
  return {};
}

Status MemoryFs::remove_dir(const std::string& path) {
  if (!dirs_.count(path)) return errno_error("rmdir " + path, ENOENT);
  for (const auto& [p, content] : files_) {
    if (!is_below(p, path)) continue;
    bool control = false;
    for (const char* f : kCpusetFiles) control = control || p == path + "/" + f;
    if (!control || (p == path + "/tasks" && !content.empty()))
      return errno_error("rmdir " + path, EBUSY);
  }
  remove(path);
  return {};
}

}  // namespace bb::sys
