// An in-memory SysFs for unit tests: starts from a fixture tree on disk (or
// empty) and can make single files read-only or refuse values, which a root
// test process cannot get from a plain directory (root writes any file).
#pragma once

#include <map>
#include <set>
#include <string>

#include "sys/sysfs.h"

namespace bb::sys {

class MemoryFs final : public SysFs {
 public:
  MemoryFs() = default;
  // Copies every file below `dir` (a fixture tree) into memory.
  static Result<MemoryFs> load_tree(const std::string& dir);

  // Test controls.
  void put(const std::string& path, const std::string& content);
  void remove(const std::string& path);  // a file or a whole directory
  void set_read_only(const std::string& path) { read_only_.insert(path); }
  // Writes to `path` fail with this errno (EINVAL: value refused, EIO: IRQ
  // the kernel manages itself).
  void fail_writes(const std::string& path, int err) { failing_[path] = err; }
  // Every value written so far, in order, for assertions.
  const std::vector<std::pair<std::string, std::string>>& writes() const { return writes_; }

  Result<std::string> read(const std::string& path) const override;
  Status write(const std::string& path, const std::string& value) override;
  bool exists(const std::string& path) const override;
  bool is_dir(const std::string& path) const override;
  Result<std::vector<std::string>> list(const std::string& path) const override;
  Status make_dir(const std::string& path) override;
  Status remove_dir(const std::string& path) override;
  std::string describe() const override { return "memory"; }

 private:
  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_{"/"};
  std::set<std::string> read_only_;
  std::map<std::string, int> failing_;
  std::vector<std::pair<std::string, std::string>> writes_;
};

}  // namespace bb::sys
