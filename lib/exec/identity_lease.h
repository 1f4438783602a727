// A job identity held for the length of one job, host-wide. job_identity()
// alone maps a job id to a uid; two runners on one host (a second runnerd,
// an integration test's, another box's in a container sharing the kernel)
// with the same job id would get the same uid, and the clean-up that kills
// every process of a job's uid (kill_all_of) would kill the other's job.
// A lease locks the uid: an flock on <lock_dir>/<uid>.lock, taken without
// waiting; a uid already held is passed over for the next one. The kernel
// drops an flock with the process that held it, so a killed runner leaves
// no lease behind.
#pragma once

#include <string>

#include "exec/identity.h"
#include "util/result.h"

namespace bb::exec {

// Where the locks live: under /run, shared by every runner on the host
// that runs as root (only root hands out job identities).
inline constexpr const char* kIdentityLockDir = "/run/benchbox-identities";

class IdentityLease {
 public:
  IdentityLease() = default;
  IdentityLease(IdentityLease&& other) noexcept;
  IdentityLease& operator=(IdentityLease&& other) noexcept;
  IdentityLease(const IdentityLease&) = delete;
  IdentityLease& operator=(const IdentityLease&) = delete;
  ~IdentityLease();

  const Identity& identity() const { return identity_; }

 private:
  friend Result<IdentityLease> lease_job_identity(int64_t job_id, const std::string& lock_dir);
  Identity identity_;
  int fd_ = -1;
};

// The job's identity (job_identity's uid, or the next free one in the
// range) locked for as long as the lease lives. Errors when the lock
// directory cannot be made or every uid of the range is held.
Result<IdentityLease> lease_job_identity(int64_t job_id, const std::string& lock_dir = kIdentityLockDir);

}  // namespace bb::exec
