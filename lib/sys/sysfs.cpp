#include "sys/sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/fd.h"
#include "util/file.h"
#include "util/text.h"

namespace bb::sys {

namespace {

// Kernel files are small; a generous cap still protects against a fake tree
// that points somewhere silly.
constexpr size_t kMaxRead = 4u << 20;

Error write_error(const std::string& path, int err) {
  Errc code = err == ENOENT ? Errc::not_found : err == EINVAL ? Errc::invalid_argument : Errc::io;
  return make_error(code, "write " + path + ": " + std::strerror(err));
}

class RootFs final : public SysFs {
 public:
  explicit RootFs(std::string root) : root_(std::move(root)) {}

  Result<std::string> read(const std::string& path) const override {
    std::string real = at(path);
    UniqueFd fd(::open(real.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return errno_error("read " + path, errno);
    return read_to_end(fd.get(), kMaxRead, path);
  }

  Status write(const std::string& path, const std::string& value) override {
    std::string real = at(path);
    // O_TRUNC matters for the fake trees (plain files); the kernel ignores it.
    UniqueFd fd(::open(real.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (!fd.valid()) return write_error(path, errno);
    std::string data = value + "\n";
    for (;;) {
      ssize_t n = ::write(fd.get(), data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return write_error(path, errno);
      if (static_cast<size_t>(n) != data.size())
        return make_error(Errc::io, "write " + path + ": short write");
      return {};
    }
  }

  bool exists(const std::string& path) const override { return path_exists(at(path)); }

  bool is_dir(const std::string& path) const override {
    struct stat st {};
    return ::stat(at(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  Result<std::vector<std::string>> list(const std::string& path) const override {
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(at(path).c_str()), ::closedir);
    if (!dir) return errno_error("list " + path, errno);
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(dir.get())) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      names.emplace_back(e->d_name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  Status make_dir(const std::string& path) override {
    if (::mkdir(at(path).c_str(), 0755) < 0) return errno_error("mkdir " + path, errno);
    // 0755 whatever the umask (tunerd's is 0077): others must reach a
    // cgroup, e.g. runnerd sees from its tasks file that v1 shielding is on.
    if (::chmod(at(path).c_str(), 0755) < 0) return errno_error("chmod 0755 " + path, errno);
    return {};
  }

  Status remove_dir(const std::string& path) override {
    if (::rmdir(at(path).c_str()) < 0) return errno_error("rmdir " + path, errno);
    return {};
  }

  std::string describe() const override { return root_; }

 private:
  std::string at(const std::string& path) const {
    return root_ == "/" || root_.empty() ? path : path_join(root_, path);
  }
  std::string root_;
};

}  // namespace

std::unique_ptr<SysFs> open_root(const std::string& root) { return std::make_unique<RootFs>(root); }

Result<std::string> read_value(const SysFs& fs, const std::string& path) {
  auto r = fs.read(path);
  if (!r) return r.error();
  return trim(*r);
}

}  // namespace bb::sys
