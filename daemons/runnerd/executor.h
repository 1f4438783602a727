// One job, start to finish, on the worker thread: fetch, read
// .benchbox.yml from the commit, export and build each commit, measure the
// suites (measure.h), write results_dir/<id>/result.json. No bus here: the
// manager (main thread) claims, heartbeats and reports; this only returns
// what happened.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/command_runner.h"
#include "model/environment.h"
#include "model/job.h"
#include "model/job_group.h"

namespace bb::runnerd {

class FetchTokens;

struct ExecContext {
  std::string runner_id;
  std::vector<int> cpus;             // benchmark CPUs
  std::string isolation;             // CommandRunner::describe()
  std::string git_cache_dir;
  std::string build_cache_dir;
  uint64_t build_cache_bytes = 0;    // 0: every job builds
  std::string work_dir;
  std::string results_dir;
  std::string network = "loopback";  // the repository's network: none, loopback, full
  std::string machine_fingerprint;   // from Tuner1.Check, or "unavailable"
  // This box's class (CPU model, CPUs, memory, kernel, tuning): in the
  // environment key instead of the runner's name, so trends are per class.
  std::optional<model::HardwareClass> hardware;
  bool host_drifted = false;
  std::string tuning;  // tunerd's State when the job began ("" when it did not answer)
  exec::CommandRunner* runner = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  // Containment (containment.h): the runner is the transient service as
  // job_user; the per-job bounds.
  // Private repositories (fetch_token.h): null when there is no GitHub App.
  FetchTokens* tokens = nullptr;
  bool contained_service = false;
  std::string job_user;
  exec::Command::Limits limits;
  uint64_t work_tree_max_bytes = 0;
  // Queues a sharded suite's shard jobs as one group (shard_step.h), from
  // the worker thread; the group's id. Null: sharded suites run whole.
  std::function<Result<int64_t>(const model::GroupSpec&, const std::vector<model::JobSpec>&)> queue_shards;
};

struct ExecOutcome {
  enum class State { done, failed, cancelled };
  State state = State::failed;
  std::string result_path;  // done
  std::string reason;       // failed: what Queue1.Fail gets
};

ExecOutcome execute_job(const model::Job& job, const ExecContext& ctx);

// Removes a job's directory. What the job's user made unwritable there
// (chmod 0500 on its own directory) runnerd cannot remove: with `runner`
// (the transient service), the job's user first makes its files writable
// again, as a command of that job.
void remove_job_dir(const std::string& path, int64_t job_id, exec::CommandRunner* runner);

// Removes work trees a killed runner left behind (work_dir/<job id>).
void clean_work_dir(const std::string& work_dir, exec::CommandRunner* runner = nullptr);

}  // namespace bb::runnerd
