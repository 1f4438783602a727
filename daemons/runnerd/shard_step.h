// Sharded suites (`shards:`, config/shard.h) in runnerd. A job that is not
// a shard measures no sharded suite itself: it plans the suite's shards
// from the benchmarks the suite declares, and the manager queues them as
// one group before it completes the job. A shard job measures its suite
// cut down to its own benchmarks: the harness's filter on the run command,
// then anything else the harness ran is dropped from the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "model/job.h"
#include "model/job_group.h"
#include "model/result_set.h"

namespace bb::runnerd {

struct ShardPlan {
  std::string suite;
  std::vector<std::vector<std::string>> shards;  // each shard's names; none empty
};

// The plan for a sharded suite from the names it declares on the job's
// commits (a pull request's base and head together). Empty shards (fewer
// benchmarks than shards) are left out; fewer than two left: no plan, the
// suite runs whole in this job.
std::optional<ShardPlan> plan_shards(const config::Suite& suite, const std::vector<std::string>& declared);

// The group and the shard jobs that carry out `plan` for `parent`: the same
// commits, refs and priority, one suite, one shard each.
model::GroupSpec shard_group(const model::Job& parent, const ShardPlan& plan);
std::vector<model::JobSpec> shard_specs(const model::JobSpec& parent, const ShardPlan& plan);

// The suite as shard job `spec` runs it: the harness's filter on the run
// command (config::shard_run_command), the shard's variables in its
// environment (config/shard.h), and the shard's names as what it declares.
config::Suite shard_suite(const config::Suite& suite, const model::JobSpec& spec);

// Drops from `rs` the suite's benchmarks that are not the shard's (a
// harness without a filter runs them all) and records the shard's names as
// what the suite declares on this commit.
void keep_shard_benchmarks(model::ResultSet& rs, const model::JobSpec& spec);

// "sharded: measured by 4 shard jobs (job group 12)".
std::string sharded_reason(size_t shards, int64_t group_id);

}  // namespace bb::runnerd
