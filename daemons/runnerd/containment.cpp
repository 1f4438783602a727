#include "containment.h"

#include "util/file.h"

namespace bb::runnerd {

Result<JobContainment> contain_job(int64_t job_id, const std::string& job_dir, const std::string& network) {
  JobContainment c;
  if (!exec::can_change_identity()) {
    c.description =
        "runner's own user: runnerd is not root and cannot give the job an identity of its own; "
        "network: not restricted (needs root)";
    return c;
  }
  const exec::Identity id = exec::job_identity(job_id);
  Status given = exec::reachable_by_others(job_dir);
  if (given) given = make_dirs(path_join(job_dir, "home"));
  if (given) given = make_dirs(path_join(job_dir, "tmp"));
  if (given) given = exec::hand_over(job_dir, id);
  if (!given)
    return given.error().with_context(
        "could not give the job its work tree (make every directory above it o+x, or set runner.work_dir and "
        "cache_dir below directories that are)");
  c.identity = id;
  // The repository's network, by a namespace of each command's own.
  std::string note = "network: full (the repository's setting)";
  if (network == "none") {
    c.network = exec::Command::Network::none;
    note = "network: none (a network namespace of its own)";
  } else if (network == "loopback") {
    c.network = exec::Command::Network::loopback;
    note = "network: loopback only (a network namespace of its own)";
  }
  c.description = "job-identity: " + exec::describe(id) + "; " + note;
  return c;
}

}  // namespace bb::runnerd
