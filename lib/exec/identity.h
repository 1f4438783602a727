// The identity a job's build and benchmark processes run as, when the
// runner may give them one (runnerd as root, the pinned-child fallback where
// systemd is not PID 1). Each job gets its own uid and gid from a range no
// Debian, systemd or nspawn allocation uses, no supplementary groups and no
// new privileges: it owns its work tree and nothing else, cannot signal or
// ptrace another job's processes, and is no user the bus policy names.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::exec {

struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
};

// 0x7E000000 + job id mod 65536: above nspawn's container ranges
// (0x00080000-0x6FFFFFFF) and systemd's dynamic users (61184-65519), below
// the 2^31 uids that trip signedness bugs. One runner runs one job at a
// time, and a job's files and processes are gone before its uid comes round.
inline constexpr uid_t kJobIdentityBase = 0x7E000000;
inline constexpr uint32_t kJobIdentityCount = 65536;
Identity job_identity(int64_t job_id);

// True when this process may hand a job an identity of its own: it runs as
// root (with CAP_SETUID, CAP_SETGID and CAP_CHOWN), as runnerd does in the
// demo. Under systemd runnerd is benchbox-runner and cannot.
bool can_change_identity();

// "uid 2113929217, gid 2113929217 (the job's own), no supplementary groups, no new privileges".
std::string describe(const Identity& id);

// Gives `path` and everything under it to `id` (lchown: symlinks are not
// followed), and makes `path` itself 0700 so no other job can look in.
Status hand_over(const std::string& path, const Identity& id);

// For the transient service's job user (service_runner.h): what this
// process owns under `path` joins group `gid`, group read-write (and
// executable where the owner may execute), so the job
// may change its copy and runnerd may read and remove what the job wrote
// (runnerd is in that group). Symlinks are not followed.
Status share_with_group(const std::string& path, gid_t gid);

// Like reachable_by_others, for a user in group `gid`: every directory
// above `path` is o+x, or of that group and g+x.
Status reachable_by_group(const std::string& path, gid_t gid);

// Every directory above `path` may be passed through by other users (o+x),
// so a job's identity can reach its work tree; else an error naming the
// first that may not ("/tmp/x is mode 0700").
Status reachable_by_others(const std::string& path);

// Gives `tree`'s subdirectory `sub` (a relative path runnerd created, e.g.
// the harness output's directory) and each directory between them to `id`.
Status hand_over_dirs(const std::string& tree, const std::string& sub, const Identity& id);

// Live processes (zombies aside) whose /proc entry belongs to `uid`.
std::vector<pid_t> live_processes_of(uid_t uid);

// Kills every process running as `id` (a child that becomes `id` and calls
// kill(-1, SIGKILL), while any is left), so nothing a job started outlives
// it, even one that left its process group with setsid().
Status kill_all_of(const Identity& id);

// Before a round: the directories of the harness output `relative` made
// under `tree` and a file left there by the last round removed. With `id`,
// done by a child that has become it, with the job's rights and no more;
// else by this process.
// Without `id`, done by this process, and every directory it resolves on
// the way must stay inside `tree` (nothing of the job runs meanwhile, so
// that stays true); directories it makes join `group` (the job's, under
// the transient service), mode 0770.
Status prepare_output(const std::string& tree, const std::string& relative, const std::optional<Identity>& id,
                      std::optional<gid_t> group = std::nullopt);

// `path` resolved, when it stays inside `root` (also resolved); else an
// error naming both. runnerd reads and removes files in a job's tree only
// through this, so a symlink the job planted cannot point it elsewhere.
Result<std::string> inside(const std::string& root, const std::string& path);

}  // namespace bb::exec
