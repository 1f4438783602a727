// Measuring one suite on one or two commits (base and head of a PR):
// warmup + repetitions rounds, each round running every target once in a
// seeded random order, so base and head samples with the same round ran
// next to each other on the same CPUs and can be paired.
#pragma once

#include <atomic>
#include <map>
#include <random>
#include <optional>
#include <string>
#include <vector>

#include "command_log.h"
#include "config/suite.h"
#include "exec/command_runner.h"
#include "model/environment.h"
#include "model/result_set.h"

namespace bb::runnerd {

// A commit being measured: its exported work tree and the result set its
// samples go into.
struct Target {
  std::string role;      // "" (a plain run), "base", "head"
  std::string commit;
  std::string tree_dir;  // the exported work tree
  model::ResultSet result;
};

struct MeasureContext {
  int64_t job_id = 0;
  std::vector<int> cpus;
  exec::CommandRunner* runner = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  std::string profiles_dir;  // callgrind profiles kept with the result: <results>/<job>/profiles
  // The job's own identity (exec/identity.h) when runnerd may give one:
  // every command runs as it, with HOME and TMPDIR in the job's directory,
  // and runnerd touches the job's trees only in ways a planted symlink
  // cannot redirect. Empty: commands run as runnerd's user.
  std::optional<exec::Identity> identity;
  std::string job_dir;       // <work_dir>/<job>: home/ and tmp/ live here
  // The repository's network where runnerd can enforce it, else full.
  exec::Command::Network network = exec::Command::Network::full;
  // Under the transient service (service_runner.h): the job user's group,
  // which shares the job's directory with runnerd; what runnerd makes in
  // a tree joins it. Empty otherwise.
  std::optional<gid_t> job_group;
  exec::Command::Limits limits;      // per-job bounds the runner enforces
  uint64_t work_tree_max_bytes = 0;  // the job's directory, checked after each command; 0 = none
  // Where the commands' output lines go (command_log.h); null: nowhere but
  // each command's journal entry.
  OutputLog* output_log = nullptr;
};

// Runs `suite` for every target. A command that fails (exit status, signal,
// timeout) or output that does not parse marks that target's benchmarks of
// this suite failed with the reason and stops measuring it; the other
// target goes on. With `suite.sequential` and a base and a head, it runs
// between `repetitions` and `max_repetitions` rounds, stopping once every
// benchmark is decided (sequential_rounds.h). Returns false only when the
// job was cancelled.
bool measure_suite(const config::Suite& suite, std::vector<Target>& targets, std::mt19937_64& rng,
                   const MeasureContext& ctx);

// Runs the suite's build command in the target's tree (unpinned). Returns a
// reason ("build of suite 'x' failed at abc123: exit status 2: <last lines>")
// or "" on success; `cancelled` is set when the job was cancelled.
std::string build_suite(const config::Suite& suite, const Target& target, const MeasureContext& ctx,
                        bool& cancelled);

// `measure: callgrind`: the run command under valgrind --tool=callgrind
// with a fixed cache model, every child traced, one file per process in
// `out_dir`; and the event totals summed over those files.
std::string callgrind_command(const std::string& run, const std::string& out_dir);
Result<std::map<std::string, double>> callgrind_totals(const std::string& out_dir);
// Copies the profiles in `out_dir` to `keep_dir` (emptied first); their paths.
Result<std::vector<std::string>> keep_profiles(const std::string& out_dir, const std::string& keep_dir);

// What the suite declares on the target's commit: its `benchmarks:`, or
// the names its `list:` command prints (run in the target's tree, unpinned,
// after the build). A listing that fails is recorded in list_error and does
// not stop the suite: a benchmark that then vanishes is reported missing,
// not removed. `cancelled` is set when the job was cancelled.
model::SuiteOutcome declare_suite(const config::Suite& suite, const Target& target, const MeasureContext& ctx,
                                  bool& cancelled);

// The inputs of the result sets' environment key (model/environment.h):
// the benchmark CPUs, the isolation kind, the runner id and, per suite, its
// name, build, run, format and env, what its `toolchain:` commands print
// (run in `head`'s tree, unpinned; a failing one records how it failed) and
// the sha256 of its `lock_files:` there. Documented in docs/benchbox-yml.md.
model::Environment describe_environment(const std::string& isolation, const std::string& runner_id,
                                        const std::vector<config::Suite>& suites, const Target& head,
                                        const MeasureContext& ctx, bool& cancelled);

}  // namespace bb::runnerd
