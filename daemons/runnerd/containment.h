// Whose rights a job's build and benchmark get (docs/systemd.md,
// "Containment"): decided once per job, before anything of the repository
// runs, and recorded in every result set of the job.
#pragma once

#include <optional>
#include <string>

#include "exec/command_runner.h"
#include "util/result.h"

namespace bb::runnerd {

struct JobContainment {
  std::optional<exec::Identity> identity;  // empty: runnerd's own user
  exec::Command::Network network = exec::Command::Network::full;
  std::string description;                 // the result set's `containment`
};

// Where runnerd may (as root), the job's own uid, which is given `job_dir`
// (the exported trees, plus home/ and tmp/ made here), and the repository's
// network (`network`: none, loopback, full). Elsewhere neither, said so in
// the description. An error when the job's uid could not be given its
// directory: the job must not run then.
Result<JobContainment> contain_job(int64_t job_id, const std::string& job_dir, const std::string& network);

}  // namespace bb::runnerd
