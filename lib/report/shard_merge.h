// The shards of one sharded suite (a job group of kind shards, config/shard.h)
// as one report, however many of them have finished: what the done shards
// measured merged into one job result, the benchmarks of a shard that
// never finished (its attempts exhausted, or cancelled) missing with why,
// and where the rest stand ("3 of 8 shards done; pending: …"). The group's
// jobs are its manifest: each shard job's spec names what it was to measure.
// Pure: reporterd reads the group's jobs and results from the queue.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compare/compare.h"
#include "model/job.h"
#include "model/result_set.h"
#include "report/job_report.h"
#include "util/result.h"

namespace bb::report {

// One job of the group as the reporter sees it.
struct ShardJob {
  model::Job job;
  std::optional<model::JobResult> result;  // a done shard's, when it could be read
  std::string unreadable;                  // why a done shard's result could not be read
};

struct ShardProgress {
  int64_t group_id = 0;
  std::string suite;
  size_t shards = 0;                 // how many the group holds
  size_t done = 0;                   // finished with results
  std::vector<std::string> lost;     // "shard 2 (job 15) failed: …"
  std::vector<std::string> pending;  // "shard 3 (job 16, running on `runner-1`)"
  bool finished() const { return pending.empty(); }
  // "3 of 8 shards done; pending: shard 4 (job 17, queued), …; lost: …"
  std::string text() const;
  nlohmann::json to_json() const;
};

struct MergedShards {
  ShardProgress progress;
  // The suite as one job: the first shard's, not a shard, in no group
  // (report/github_wants.h posts it as the group's check run).
  model::Job job;
  // The done shards' results as one (a PR: base and head, each shard's
  // pair measured interleaved on its own box); none before any is done.
  std::optional<model::JobResult> result;
  std::vector<compare::Options::Lost> lost;
};

// `jobs`: every job of group `group_id`, in any order. An error when they
// are not the shards of one suite.
Result<MergedShards> merge_shards(int64_t group_id, std::vector<ShardJob> jobs);

// Result sets of one suite's shards as one: the first's description, every
// benchmark, and the suite declaring what all of them declare.
model::ResultSet merge_result_sets(const std::vector<const model::ResultSet*>& parts);

// The group's report: build_report of the merged result (a push: against
// `previous`, the runs before each shard merged), the lost shards'
// benchmarks missing with why, headed by the progress.
JobReport shards_report(const MergedShards& merged, const std::optional<model::ResultSet>& previous,
                        compare::Options options);

}  // namespace bb::report
