#include "util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>  // renameat2, RENAME_EXCHANGE

#include "util/fd.h"
#include "util/remover.h"

namespace bb {

Result<std::string> read_file(const std::string& path, size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return errno_error("open " + path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) < 0) return errno_error("stat " + path, errno);
  if (!S_ISREG(st.st_mode))
    return make_error(Errc::invalid_argument, path + ": not a regular file");
  if (static_cast<size_t>(st.st_size) > max_bytes)
    return make_error(Errc::invalid_argument, path + ": file is " + std::to_string(st.st_size) +
                                                  " bytes, more than the limit of " +
                                                  std::to_string(max_bytes));
  return read_to_end(fd.get(), max_bytes, path, size_t(st.st_size));
}

Result<std::string> read_to_end(int fd, size_t max_bytes, const std::string& what, size_t expected) {
  std::string out;
  if (expected > 0) out.reserve(expected + kReadSlack);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("read " + what, errno);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes)
      return make_error(Errc::invalid_argument, what + ": more than the limit of " + std::to_string(max_bytes) +
                                                    " bytes");
  }
  return out;
}

static std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

namespace {

// `tmp` renamed to `path`; where it cannot be, `tmp` goes and the error
// names it.
Status rename_into_place(const std::string& tmp, const std::string& path) {
  if (::rename(tmp.c_str(), path.c_str()) == 0) return {};
  const int err = errno;
  ::unlink(tmp.c_str());
  return errno_error("rename " + tmp, err);
}

// The new file takes the old one's name in one step (renameat2's
// RENAME_EXCHANGE), and the old one, now under the temporary name, goes:
// a reader finds the old file or the new one, never none and never half
// of one. A plain rename over the old file would make ext4 (auto_da_alloc)
// flush the new one first, which costs what the skipped fsync would; an
// exchange does not. The old file goes at once, or on `old_files`'s thread
// where one is given. Where there is no old file, or the exchange is
// refused, the new one is renamed into place (the old one unlinked first,
// for the flush's sake: then a reader may find none for a moment).
Status swap_into_place(const std::string& tmp, const std::string& path, BackgroundRemover* old_files) {
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    // The old file is under `tmp` now, unless `path` was a directory.
    if (old_files) {
      struct stat st {};
      if (::lstat(tmp.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        old_files->remove(tmp);  // under a name no later write takes
        return {};
      }
    } else if (::unlink(tmp.c_str()) == 0 || errno != EISDIR) {
      return {};
    }
    // `path` was a directory: it goes back, and the write fails as a
    // rename over a directory would.
    ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE);
    ::unlink(tmp.c_str());
    return errno_error("rename " + tmp, EISDIR);
  }
  // Any refusal (no old file; a filesystem, kernel or syscall filter that
  // cannot exchange) falls back to the rename, which says its own error.
  if (errno != ENOENT) ::unlink(path.c_str());
  return rename_into_place(tmp, path);
}

// A temporary name beside `path` that no other write takes, in this
// process or another: a file handed to a BackgroundRemover keeps it until
// the remover's thread gets to it.
std::string temporary_name(const std::string& path) {
  static std::atomic<uint64_t> next{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(next++);
}

Status write_replacing(const std::string& path, const std::string& content, int mode, bool durable,
                       BackgroundRemover* old_files) {
  std::string tmp = temporary_name(path);
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid()) return errno_error("create " + tmp, errno);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::unlink(tmp.c_str());
      return errno_error("write " + tmp, err);  // ENOSPC lands here on a full disk
    }
    off += static_cast<size_t>(n);
  }
  if (durable && ::fsync(fd.get()) < 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return errno_error("fsync " + tmp, err);
  }
  fd.reset();
  if (!durable) return swap_into_place(tmp, path, old_files);
  if (auto st = rename_into_place(tmp, path); !st) return st;
  UniqueFd dir(::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) ::fsync(dir.get());
  return {};
}

}  // namespace

Status write_file_atomic(const std::string& path, const std::string& content, int mode) {
  return write_replacing(path, content, mode, true, nullptr);
}

Status write_file_replace(const std::string& path, const std::string& content, int mode,
                          BackgroundRemover* old_files) {
  return write_replacing(path, content, mode, false, old_files);
}

bool is_write_leftover(std::string_view name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string_view::npos || at == 0) return false;
  std::string_view rest = name.substr(at + 5);  // "<pid>" or "<pid>.<n>"
  const size_t dot = rest.find('.');
  const std::string_view pid = rest.substr(0, dot), n = dot == std::string_view::npos ? "" : rest.substr(dot + 1);
  auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(pid) || (dot != std::string_view::npos && !digits(n))) return false;
  return pid != std::to_string(::getpid());  // this process's own may be in flight
}

Status make_dirs(const std::string& path, int mode) {
  if (path.empty()) return make_error(Errc::invalid_argument, "empty directory path");
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), static_cast<mode_t>(mode)) < 0 && errno != EEXIST)
      return errno_error("mkdir " + cur, errno);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) < 0 || !S_ISDIR(st.st_mode))
    return make_error(Errc::io, path + ": not a directory");
  return {};
}

std::string path_join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  bool a_slash = a.back() == '/';
  bool b_slash = b.front() == '/';
  if (a_slash && b_slash) return a + b.substr(1);
  if (a_slash || b_slash) return a + b;
  return a + "/" + b;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace bb
