#include "containment.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>

#include "cache/build_cache.h"
#include "model/result_set.h"
#include "util/file.h"

namespace bb::runnerd {

namespace {

exec::Command::Network network_of(const std::string& network) {
  if (network == "none") return exec::Command::Network::none;
  if (network == "loopback") return exec::Command::Network::loopback;
  return exec::Command::Network::full;
}

std::string bounds_text(const exec::Command::Limits& l, bool memory) {
  auto one = [](const char* name, uint64_t v) { return std::string(name) + (v ? std::to_string(v) : "none"); };
  return (memory ? one("MemoryMax=", l.memory_max_bytes) + ", " : std::string()) + one("TasksMax=", l.tasks_max) +
         ", " + one("LimitFSIZE=", l.file_size_max_bytes);
}

Result<JobContainment> contain_in_service(const std::string& job_dir, const ContainRules& rules) {
  JobContainment c;
  struct passwd* pw = ::getpwnam(rules.job_user.c_str());
  if (!pw) return make_error(Errc::not_found, "no user '" + rules.job_user + "' (runner.job_user) to run the job as");
  c.job_group = pw->pw_gid;
  Status given = exec::reachable_by_group(job_dir, pw->pw_gid);
  if (given) given = make_dirs(path_join(job_dir, "home"));
  if (given) given = make_dirs(path_join(job_dir, "tmp"));
  if (given) given = exec::share_with_group(job_dir, pw->pw_gid);
  // The job may change its trees but not replace them: a tree swapped for
  // a symlink could send runnerd out of the job's directory.
  if (given && ::chmod(job_dir.c_str(), 0750) < 0) given = errno_error("chmod " + job_dir, errno);
  if (!given)
    return given.error().with_context("could not give the job its work tree (set runner.work_dir below a directory "
                                      "its user may pass through, as the package's /var/cache/benchbox-jobs)");
  c.network = network_of(rules.network);
  c.limits = rules.limits;
  const char* net = c.network == exec::Command::Network::none       ? "network: none (PrivateNetwork=, AF_UNIX only)"
                    : c.network == exec::Command::Network::loopback ? "network: loopback only (PrivateNetwork=)"
                                                                    : "network: full (the repository's setting)";
  c.description = "transient service as " + rules.job_user +
                  " (owns nothing; only the job's directory writable; no capabilities, no new privileges); " + net +
                  "; bounds: " + bounds_text(c.limits, true);
  return c;
}

}  // namespace

BoxContainment box_containment(bool service, const std::string& job_user, const std::string& runner_why) {
  if (service) return {true, "transient service as " + job_user};
  if (exec::can_change_identity()) return {true, "a uid of its own per job (runnerd is root)"};
  return {false, "runnerd's own user: no transient services as " + job_user + " (" + runner_why +
                     ") and runnerd is not root to give each job a uid of its own"};
}

std::string containment_refusal(const BoxContainment& box, const std::string& policy) {
  if (box.contained || policy != "required") return "";
  return "runner.containment is required, and this box cannot contain a job's code: it would run as " +
         box.description + "; install the package's benchbox-job user and benchbox-meter, or set "
         "runner.containment: allow-uncontained";
}

Result<JobContainment> contain_job(int64_t job_id, const std::string& job_dir, const ContainRules& rules) {
  if (rules.service) return contain_in_service(job_dir, rules);
  JobContainment c;
  if (!exec::can_change_identity()) {
    c.description =
        std::string(model::kUncontainedPrefix) + ": runnerd is not root and cannot give the job an identity of its own; "
        "network: not restricted (needs root); bounds: LimitFSIZE=" +
        (rules.limits.file_size_max_bytes ? std::to_string(rules.limits.file_size_max_bytes) : "none");
    c.limits.file_size_max_bytes = rules.limits.file_size_max_bytes;
    return c;
  }
  auto lease = exec::lease_job_identity(job_id);
  if (!lease) return lease.error().with_context("no identity for the job");
  const exec::Identity id = lease->identity();
  c.lease = std::make_shared<exec::IdentityLease>(std::move(*lease));
  Status given = exec::reachable_by_others(job_dir);
  if (given) given = make_dirs(path_join(job_dir, "home"));
  if (given) given = make_dirs(path_join(job_dir, "tmp"));
  if (given) given = exec::hand_over(job_dir, id);
  if (!given)
    return given.error().with_context(
        "could not give the job its work tree (make every directory above it o+x, or set runner.work_dir and "
        "cache_dir below directories that are)");
  c.identity = id;
  c.network = network_of(rules.network);
  // The pinned child bounds what an rlimit can: not memory.
  c.limits.tasks_max = rules.limits.tasks_max;
  c.limits.file_size_max_bytes = rules.limits.file_size_max_bytes;
  const char* net = c.network == exec::Command::Network::none       ? "network: none (a network namespace of its own)"
                    : c.network == exec::Command::Network::loopback ? "network: loopback only (a network namespace of its own)"
                                                                    : "network: full (the repository's setting)";
  c.description = "job-identity: " + exec::describe(id) + "; " + net + "; bounds: " + bounds_text(c.limits, false) +
                  " (rlimits; memory not bounded without systemd)";
  return c;
}

Status check_work_tree(const std::string& job_dir, uint64_t max_bytes) {
  if (max_bytes == 0) return {};
  const uint64_t used = cache::tree_bytes(job_dir);
  if (used <= max_bytes) return {};
  return make_error(Errc::unavailable, "work tree: the job's directory holds " + std::to_string(used) +
                                                  " bytes, above runner.work_tree_max_bytes " +
                                                  std::to_string(max_bytes));
}

}  // namespace bb::runnerd
