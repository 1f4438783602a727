// Whose rights a job's build and benchmark get (docs/systemd.md,
// "Containment"): decided once per job, before anything of the repository
// runs, and recorded in every result set of the job.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "exec/command_runner.h"
#include "exec/identity_lease.h"
#include "util/result.h"

namespace bb::runnerd {

struct JobContainment {
  std::optional<exec::Identity> identity;  // the pinned child as root: the job's own uid
  // Holds that uid for this job alone on the host while the containment
  // lives (exec/identity_lease.h): another runnerd's job with the same id
  // gets another uid, so neither's clean-up kills the other's processes.
  std::shared_ptr<exec::IdentityLease> lease;
  std::optional<gid_t> job_group;          // the transient service: the job user's group shares the job's directory
  exec::Command::Network network = exec::Command::Network::full;
  exec::Command::Limits limits;
  std::string description;                 // the result set's `containment`
};

struct ContainRules {
  bool service = false;        // runnerd's runner is the transient service (service_runner.h)
  std::string job_user;        // its User= (runner.job_user)
  exec::Command::Limits limits;
  std::string network;         // the repository's: none, loopback, full
};

// What this box can give a job's code, decided once when runnerd starts:
// contained (the transient service as runner.job_user, or, with runnerd
// root, a uid of its own per job) or runnerd's own user, and why.
struct BoxContainment {
  bool contained = false;
  std::string description;  // Runner1.Containment
};
BoxContainment box_containment(bool service, const std::string& job_user, const std::string& runner_why);

// Why no job may be claimed: "" unless `policy` (runner.containment) is
// "required" and the box cannot contain one.
std::string containment_refusal(const BoxContainment& box, const std::string& policy);

// Under the transient service: the job user's group is given `job_dir`
// (exported trees, plus home/ and tmp/ made here), and the unit enforces
// network and bounds. Else, where runnerd may (as root), the job's own uid
// owns `job_dir`, and network and the rlimit bounds apply to the pinned
// child. Elsewhere neither, said so in the description. An error when the
// job could not be given its directory: the job must not run then.
Result<JobContainment> contain_job(int64_t job_id, const std::string& job_dir, const ContainRules& rules);

// After a command: an error naming the bound when the job's directory
// holds more than `max_bytes` (0 = no bound).
Status check_work_tree(const std::string& job_dir, uint64_t max_bytes);

}  // namespace bb::runnerd
