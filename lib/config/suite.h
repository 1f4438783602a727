// `.benchbox.yml`: the benchmark suites a repository declares, read by
// runnerd straight from the commit being measured. Documented with an
// example in docs/benchbox-yml.md. Unknown keys are errors, and every error
// names file:line:column and the key, because a broken file fails the job
// with exactly that message.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::config {

inline constexpr const char* kSuiteFileName = ".benchbox.yml";
// `format: command` means runnerd times the run command itself.
inline constexpr const char* kCommandFormat = "command";
// A bound on `sequential.max_repetitions`, so a typo (60000 for 60) cannot
// hold the runner for days.
inline constexpr uint64_t kMaxSequentialRepetitions = 10000;

// `sequential:` (pull requests only): after `repetitions` rounds runnerd asks
// the comparison engine after each round whether every benchmark of the
// suite is decided, and stops early when it is, or at the budget.
struct SequentialSampling {
  uint64_t max_repetitions = 0;  // the budget of measured rounds, >= repetitions
  uint64_t max_seconds = 0;      // wall-clock budget for the suite's rounds; 0 = none
};

struct Suite {
  std::string name;                 // [A-Za-z0-9._-]+, unique in the file
  std::string build;                // "" = nothing to build
  std::string run;                  // required
  std::string format = kCommandFormat;
  std::string format_location;      // "file:line:col" of `format`, for errors found later
  std::string output;               // relative to the work tree; "" = the run command's stdout
  uint64_t repetitions = 5;         // measured rounds, >= 1
  uint64_t warmup = 1;              // rounds run first and discarded
  uint64_t timeout_seconds = 600;   // per command (build or one run), >= 1
  bool allow_empty = false;         // a harness result with no benchmarks is not an error
  std::map<std::string, std::string> env;
  std::map<std::string, double> thresholds;  // metric -> relative threshold for the engine
  std::optional<SequentialSampling> sequential;  // unset: always exactly `repetitions` rounds
  // What the suite declares, to tell a removed benchmark from a lost one:
  // `list`, a command printing the harness's own listing (one name a line,
  // or the harness's list format: docs/benchbox-yml.md), or `benchmarks`,
  // the names written out. At most one of the two.
  std::string list;
  std::vector<std::string> benchmarks;
  // The metrics reports judge and show. Empty: wall_time and cpu_time for
  // `format: command` (runnerd also records user_time, system_time,
  // peak_memory and context switches), every metric a harness reports.
  std::vector<std::string> metrics;
  // Part of the environment key (docs/benchbox-yml.md): what these commands
  // print (`cc --version`, `python3 -VV`), run in the work tree, and the
  // contents of these files (`poetry.lock`, `Cargo.lock`), relative to it.
  std::vector<std::string> toolchain;
  std::vector<std::string> lock_files;
  // Event counters over the command and its children (`format: command`
  // only), perf's names: instructions, cycles, branch-misses, ... Each
  // becomes a metric (counter_metric); runnerd checks the names.
  std::vector<std::string> counters;
  // `measure: callgrind` (format command only): the run command runs under
  // valgrind --tool=callgrind with a fixed cache model and ASLR off, and its
  // metrics are callgrind's deterministic event counts. Default: time.
  bool callgrind = false;
  // What the suite measures, as paths relative to the repository's root: a
  // pull request that changes none of them does not run the suite; its
  // benchmarks are reported "skipped (not affected)" beside their last
  // value on the base branch. A pattern is a shell pattern (`*` also
  // crosses `/`), and one that names a directory covers everything under
  // it. Empty: every change is measured.
  std::vector<std::string> paths;
  // Sharding (config/shard.h): the suite's benchmarks are spread over
  // `shards` jobs, each measuring base and head on whichever box claims it.
  // shard_by[i] lists shell patterns of benchmarks that go to shard i (the
  // first match wins); the rest go by a stable hash of their name. More
  // than one shard needs a harness format and the benchmarks declared
  // (`benchmarks:` or `list:`).
  uint64_t shards = 1;
  std::vector<std::vector<std::string>> shard_by;
  // What a push to a branch is compared with. interleaved (the default):
  // the branch's previous head (the push's `before`) is measured again in
  // the same job, its rounds interleaved with the pushed commit's on the
  // same cores, as a pull request's base is; only then does a verdict read
  // the code, not what changed on the host between two jobs. previous-run:
  // the results of the branch's previous run, from an earlier job, for a
  // suite too long to run twice; the report says it compares across jobs.
  enum class PushBaseline { interleaved, previous_run };
  PushBaseline push_baseline = PushBaseline::interleaved;
};

// Whether `path` (relative to the repository's root) falls under `pattern`.
bool path_matches(const std::string& pattern, const std::string& path);
// Whether a change to `changed` (paths) concerns the suite: always, when it
// declares no `paths`.
bool suite_affected(const Suite& suite, const std::vector<std::string>& changed);

// The metric a counter is recorded as: "branch-misses" -> "branch_misses",
// "task-clock" -> "task_clock" (in seconds).
std::string counter_metric(const std::string& counter);

// The metrics a suite's reports judge: `metrics:`, else the default above
// (empty = every metric the harness reports).
std::vector<std::string> shown_metrics(const Suite& suite);

struct SuiteConfig {
  int version = 1;
  std::vector<Suite> suites;

  const Suite* find(const std::string& name) const;
};

// The suites named, in the order given; every suite when `names` is
// empty. A name the file lacks is an error that lists the names it has
// (a job's suite, `benchboxctl run --suite`).
Result<std::vector<Suite>> select_suites(const SuiteConfig& cfg, const std::vector<std::string>& names);

// `source` names the file in errors (".benchbox.yml@<sha>" or a path).
Result<SuiteConfig> parse_suite_config(const std::string& text, const std::string& source);

}  // namespace bb::config
