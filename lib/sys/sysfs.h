// sysfs, procfs and cgroupfs are an OS edge: the tuner reads and writes them
// through SysFs, so the same code runs against the real host ("/"), a fake
// tree on disk (tests/fixtures/sysfs/*, copied to a temp dir) or an
// in-memory tree that can simulate read-only and failing files (memory_fs.h).
// Paths are always the host's absolute paths ("/proc/sys/vm/swappiness");
// the implementation decides where they really live.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::sys {

class SysFs {
 public:
  virtual ~SysFs() = default;

  // The whole content of a file (kernel files end in '\n'; callers trim).
  // A missing file is Errc::not_found.
  virtual Result<std::string> read(const std::string& path) const = 0;
  // Replaces the content of an existing file, as `echo value > path` does: a
  // kernel file takes one write. Never creates files: a missing file is
  // Errc::not_found (the knob does not exist on this host). EINVAL from the
  // kernel (value refused) is Errc::invalid_argument; EACCES/EPERM/EROFS/EIO
  // are Errc::io with the OS's words.
  virtual Status write(const std::string& path, const std::string& value) = 0;
  virtual bool exists(const std::string& path) const = 0;
  virtual bool is_dir(const std::string& path) const = 0;
  // Entry names (not paths) in a directory, sorted, without "." and "..".
  virtual Result<std::vector<std::string>> list(const std::string& path) const = 0;
  // cgroupfs: creating a directory creates a cgroup; removing it removes one.
  virtual Status make_dir(const std::string& path) = 0;
  virtual Status remove_dir(const std::string& path) = 0;
  // Where this tree is, for messages ("/", "/tmp/t/intel", "memory").
  virtual std::string describe() const = 0;
};

// The real filesystem under `root` ("/" on a real host).
std::unique_ptr<SysFs> open_root(const std::string& root);

// read() and trim() in one, for single-value kernel files.
Result<std::string> read_value(const SysFs& fs, const std::string& path);

}  // namespace bb::sys
