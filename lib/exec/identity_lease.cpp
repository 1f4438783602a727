#include "exec/identity_lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/file.h"

namespace bb::exec {

IdentityLease::IdentityLease(IdentityLease&& other) noexcept : identity_(other.identity_), fd_(other.fd_) {
  other.fd_ = -1;
}

IdentityLease& IdentityLease::operator=(IdentityLease&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    identity_ = other.identity_;
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

IdentityLease::~IdentityLease() {
  if (fd_ >= 0) ::close(fd_);  // closing the file drops the flock
}

Result<IdentityLease> lease_job_identity(int64_t job_id, const std::string& lock_dir) {
  if (::mkdir(lock_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error(Errc::io, "cannot make " + lock_dir + " for job identities: " + std::strerror(errno));
  const Identity first = job_identity(job_id);
  for (uint32_t step = 0; step < kJobIdentityCount; ++step) {
    const uid_t uid = kJobIdentityBase + (first.uid - kJobIdentityBase + step) % kJobIdentityCount;
    const std::string path = lock_dir + "/" + std::to_string(uid) + ".lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return make_error(Errc::io, "cannot open " + path + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      IdentityLease lease;
      lease.identity_ = Identity{uid, static_cast<gid_t>(uid)};
      lease.fd_ = fd;
      return lease;
    }
    const int err = errno;
    ::close(fd);
    if (err != EWOULDBLOCK) return make_error(Errc::io, "cannot lock " + path + ": " + std::strerror(err));
  }
  return make_error(Errc::unavailable, "every job identity of the range is held by a running job");
}

}  // namespace bb::exec
