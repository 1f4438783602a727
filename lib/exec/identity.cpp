#include "exec/identity.h"

#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include "util/file.h"

namespace bb::exec {

Identity job_identity(int64_t job_id) {
  const uint32_t slot = static_cast<uint32_t>(static_cast<uint64_t>(job_id) % kJobIdentityCount);
  const uid_t id = kJobIdentityBase + slot;
  return Identity{id, static_cast<gid_t>(id)};
}

bool can_change_identity() { return ::geteuid() == 0; }

std::string describe(const Identity& id) {
  return "uid " + std::to_string(id.uid) + ", gid " + std::to_string(id.gid) +
         " (the job's own), no supplementary groups, no new privileges";
}

namespace {

// nftw has no user pointer; the walk runs on one thread at a time per
// process in runnerd (one job), and thread_local keeps tests honest.
thread_local Identity walk_identity;
thread_local int walk_errno;
thread_local std::string walk_path;

thread_local gid_t walk_group;

// What runnerd made joins the job's group, group-writable. What the job
// makes is in that group already (its primary group), and is not runnerd's
// to chown. No setgid on directories: runnerd's unit has
// RestrictSUIDSGID=, and nothing needs it.
int share_one(const char* path, const struct stat* st, int type, struct FTW*) {
  if (type == FTW_SL || st->st_uid != ::geteuid()) return 0;
  if (::lchown(path, static_cast<uid_t>(-1), walk_group) < 0 ||
      ::chmod(path, (st->st_mode & 07777) | (S_ISDIR(st->st_mode) ? S_IRWXG
                                                                   : (S_IRGRP | S_IWGRP | ((st->st_mode & S_IXUSR) ? S_IXGRP : 0)))) < 0) {
    walk_errno = errno;
    walk_path = path;
    return 1;
  }
  return 0;
}

int chown_one(const char* path, const struct stat*, int, struct FTW*) {
  if (::lchown(path, walk_identity.uid, walk_identity.gid) < 0) {
    walk_errno = errno;
    walk_path = path;
    return 1;  // stop the walk
  }
  return 0;
}

}  // namespace

Status hand_over(const std::string& path, const Identity& id) {
  walk_identity = id;
  walk_errno = 0;
  walk_path.clear();
  if (::nftw(path.c_str(), chown_one, 64, FTW_PHYS) != 0)
    return errno_error("give " + (walk_path.empty() ? path : walk_path) + " to uid " + std::to_string(id.uid),
                       walk_errno ? walk_errno : errno);
  if (::chmod(path.c_str(), 0700) < 0) return errno_error("chmod 0700 " + path, errno);
  return {};
}

Status share_with_group(const std::string& path, gid_t gid) {
  walk_group = gid;
  walk_errno = 0;
  walk_path.clear();
  if (::nftw(path.c_str(), share_one, 64, FTW_PHYS) != 0)
    return errno_error("share " + (walk_path.empty() ? path : walk_path) + " with group " + std::to_string(gid),
                       walk_errno ? walk_errno : errno);
  return {};
}

Status reachable_by_group(const std::string& path, gid_t gid) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    struct stat st {};
    if (::stat(dir.c_str(), &st) < 0) return errno_error("stat " + dir, errno);
    if (!(st.st_mode & S_IXOTH) && !(st.st_gid == gid && (st.st_mode & S_IXGRP))) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
      return make_error(Errc::permission_denied, dir + " is mode " + mode + " (group " + std::to_string(st.st_gid) +
                                                     "): the job's user cannot pass through it to its work tree");
    }
  }
  return {};
}

Status reachable_by_others(const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    struct stat st {};
    if (::stat(dir.c_str(), &st) < 0) return errno_error("stat " + dir, errno);
    if (!(st.st_mode & S_IXOTH)) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
      return make_error(Errc::permission_denied, dir + " is mode " + mode +
                                                     ": the job's own uid cannot pass through it to its work tree");
    }
  }
  return {};
}

Status hand_over_dirs(const std::string& tree, const std::string& sub, const Identity& id) {
  std::string path = tree;
  size_t start = 0;
  while (start < sub.size()) {
    size_t slash = sub.find('/', start);
    std::string part = sub.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    start = slash == std::string::npos ? sub.size() : slash + 1;
    if (part.empty() || part == ".") continue;
    path += "/" + part;
    if (::lchown(path.c_str(), id.uid, id.gid) < 0) return errno_error("give " + path + " to the job", errno);
  }
  return {};
}

std::vector<pid_t> live_processes_of(uid_t uid) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (struct dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const std::string dir = std::string("/proc/") + e->d_name;
    struct stat st {};
    if (::stat(dir.c_str(), &st) < 0 || st.st_uid != uid) continue;
    // A zombie is dead (it waits for a parent, or a PID 1 that does not
    // reap): it holds nothing and runs nothing.
    auto text = read_file(dir + "/stat", 4096);
    if (!text) continue;
    const size_t paren = text->rfind(')');
    if (paren != std::string::npos && paren + 2 < text->size() && (*text)[paren + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  ::closedir(proc);
  return found;
}

Status kill_all_of(const Identity& id) {
  // Usually nothing is left and this is one /proc scan. Otherwise a child
  // that becomes the uid sends SIGKILL to every process it may signal
  // (kill(-1) skips the caller): all of the job's, also one that left the
  // process group. Repeated while any is alive (dying, or just forked).
  for (int round = 0; round < 200; ++round) {
    if (live_processes_of(id.uid).empty()) return {};
    pid_t pid = ::fork();
    if (pid < 0) return errno_error("fork", errno);
    if (pid == 0) {
      // Only async-signal-safe calls: the parent may have other threads.
      if (::setgroups(0, nullptr) < 0 || ::setresgid(id.gid, id.gid, id.gid) < 0 ||
          ::setresuid(id.uid, id.uid, id.uid) < 0)
        ::_exit(2);
      ::kill(-1, SIGKILL);
      ::_exit(0);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
      return make_error(Errc::permission_denied, "cannot become uid " + std::to_string(id.uid) + " to stop its processes");
    ::usleep(static_cast<useconds_t>(round < 10 ? 1000 : 10000));
  }
  return make_error(Errc::internal, "processes of uid " + std::to_string(id.uid) + " kept appearing");
}

Status prepare_output(const std::string& tree, const std::string& relative, const std::optional<Identity>& id,
                      std::optional<gid_t> group) {
  const std::string output = tree + "/" + relative;
  std::vector<std::string> dirs;  // each directory from the tree down, made in order
  for (size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1))
    if (slash > 0) dirs.push_back(tree + "/" + relative.substr(0, slash));
  if (!id) {
    // Nothing of the job runs between its commands, so what is resolved
    // here stays true until runnerd is done: each directory's parent is
    // checked to be inside the tree before anything is made in it, so a
    // symlink the job left cannot send runnerd elsewhere.
    std::string parent = tree;
    for (const auto& d : dirs) {
      if (auto real = inside(tree, parent); !real) return real.error();
      if (::mkdir(d.c_str(), 0770) == 0) {
        if (group && (::chown(d.c_str(), static_cast<uid_t>(-1), *group) < 0 || ::chmod(d.c_str(), 0770) < 0))
          return errno_error("share " + d + " with the job", errno);
      } else if (errno != EEXIST) {
        return errno_error("make " + d, errno);
      }
      parent = d;
    }
    if (auto real = inside(tree, parent); !real) return real.error();
    // unlink does not follow a symlink in the last component.
    if (::unlink(output.c_str()) < 0 && errno != ENOENT) return errno_error("remove old " + relative, errno);
    return {};
  }
  std::vector<const char*> dir_ptrs;
  for (const auto& d : dirs) dir_ptrs.push_back(d.c_str());
  const char* out_ptr = output.c_str();
  pid_t pid = ::fork();
  if (pid < 0) return errno_error("fork", errno);
  if (pid == 0) {
    // Async-signal-safe only, on strings built before fork(); the exit
    // status carries the errno.
    if (::setgroups(0, nullptr) < 0 || ::setresgid(id->gid, id->gid, id->gid) < 0 ||
        ::setresuid(id->uid, id->uid, id->uid) < 0)
      ::_exit(errno ? errno : 1);
    if (::unlink(out_ptr) < 0 && errno != ENOENT && errno != ENOTDIR) ::_exit(errno);
    for (const char* d : dir_ptrs)
      if (::mkdir(d, 0755) < 0 && errno != EEXIST) ::_exit(errno);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const int err = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
  return errno_error("prepare the harness output " + relative + " as the job (uid " + std::to_string(id->uid) + ")",
                     err);
}

Result<std::string> inside(const std::string& root, const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(root.c_str(), buf)) return errno_error("resolve " + root, errno);
  const std::string real_root = buf;
  if (!::realpath(path.c_str(), buf)) return errno_error("resolve " + path, errno);
  const std::string real = buf;
  if (real != real_root && real.compare(0, real_root.size() + 1, real_root + "/") != 0)
    return make_error(Errc::permission_denied, path + " leads out of " + root + " (to " + real + ")");
  return real;
}

}  // namespace bb::exec
