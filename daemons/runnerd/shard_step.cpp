#include "shard_step.h"

#include <algorithm>

#include "config/shard.h"
#include "util/text.h"

namespace bb::runnerd {

std::optional<ShardPlan> plan_shards(const config::Suite& suite, const std::vector<std::string>& declared) {
  ShardPlan plan;
  plan.suite = suite.name;
  for (auto& shard : config::assign_shards(suite, declared))
    if (!shard.empty()) plan.shards.push_back(std::move(shard));
  if (plan.shards.size() < 2) return std::nullopt;
  return plan;
}

model::GroupSpec shard_group(const model::Job& parent, const ShardPlan& plan) {
  model::GroupSpec g;
  g.kind = model::GroupKind::shards;
  g.repository = parent.spec.repository;
  // A group's description is at most 200 bytes; a suite's name has no limit.
  g.description = utf8_cut("suite " + plan.suite + " of job " + std::to_string(parent.id) + " in " +
                               std::to_string(plan.shards.size()) + " shards",
                           200, "");
  g.requested_by = parent.spec.requested_by;
  g.skip_measured = false;
  return g;
}

std::vector<model::JobSpec> shard_specs(const model::JobSpec& parent, const ShardPlan& plan) {
  std::vector<model::JobSpec> specs;
  for (size_t i = 0; i < plan.shards.size(); ++i) {
    model::JobSpec s = parent;
    // A group's job comes from no delivery (the parent did), and the queue
    // sets the group.
    s.delivery_id.clear();
    s.replay_key.clear();
    s.group_id = 0;
    s.suite = plan.suite;
    s.shard = static_cast<int64_t>(i + 1);
    s.shards = static_cast<int64_t>(plan.shards.size());
    s.benchmarks = plan.shards[i];
    specs.push_back(std::move(s));
  }
  return specs;
}

config::Suite shard_suite(const config::Suite& suite, const model::JobSpec& spec) {
  config::Suite s = suite;
  s.run = config::shard_run_command(suite, spec.benchmarks);
  s.env["BENCHBOX_SHARD"] = std::to_string(spec.shard);
  s.env["BENCHBOX_SHARDS"] = std::to_string(spec.shards);
  s.env["BENCHBOX_SHARD_FILTER"] = config::names_regex(spec.benchmarks);
  std::string names;
  for (const auto& n : spec.benchmarks) names += n + "\n";
  s.env["BENCHBOX_SHARD_BENCHMARKS"] = names;
  s.list.clear();
  s.benchmarks = spec.benchmarks;
  return s;
}

void keep_shard_benchmarks(model::ResultSet& rs, const model::JobSpec& spec) {
  model::SuiteOutcome& outcome = rs.suites[spec.suite];
  outcome.declared = spec.benchmarks;
  outcome.declared_by = "shard " + std::to_string(spec.shard) + " of " + std::to_string(spec.shards);
  outcome.list_error.clear();
  auto& all = rs.benchmarks;
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const model::Benchmark& b) {
                             return b.key.suite == spec.suite && !outcome.declares(b.key);
                           }),
            all.end());
}

std::string sharded_reason(size_t shards, int64_t group_id) {
  return std::string(model::kSharded) + ": measured by " + std::to_string(shards) + " shard jobs (job group " +
         std::to_string(group_id) + ")";
}

}  // namespace bb::runnerd
