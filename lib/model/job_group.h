// A job group: jobs the box made for one purpose and that an operator
// follows and cancels together, such as a backfill of historical commits
// (benchboxctl backfill). Travels on the bus as an a{sv} with exactly the
// keys of to_json (Queue1.EnqueueGroup, GetGroup, ListGroups).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace bb::model {

// shards: one suite of one job split across boxes (config/shard.h); each
// job is a shard, and the jobs' specs are the manifest of what to expect.
enum class GroupKind { backfill, bisect, shards };

const char* to_string(GroupKind k);
std::optional<GroupKind> group_kind_from_string(const std::string& s);

struct GroupSpec {
  GroupKind kind = GroupKind::backfill;
  std::string repository;    // "owner/name": every job of the group measures it
  std::string description;   // what made it, for people: "backfill --tags 'v*'"
  std::string requested_by;
  // A commit whose same work (repository, kind, ref, commits, suite) is
  // already done is not measured again: re-running a backfill fills gaps.
  bool skip_measured = true;
};

struct JobGroup {
  int64_t id = 0;
  GroupSpec spec;
  int64_t created = 0;
  // Where the group is, in words ("step 3 of ~6: 17 commits left"); set by
  // whoever drives it, "" for a backfill, whose counts say it all.
  std::string step;
  uint32_t queued = 0, running = 0, done = 0, failed = 0, cancelled = 0;
  uint32_t total() const { return queued + running + done + failed + cancelled; }
  bool finished() const { return queued == 0 && running == 0; }
};

nlohmann::json to_json(const GroupSpec& spec);
nlohmann::json to_json(const JobGroup& group);
Result<GroupSpec> group_spec_from_json(const nlohmann::json& j);
Result<JobGroup> job_group_from_json(const nlohmann::json& j);
// A repository is named; the description fits on a line (at most 200 bytes).
Status validate(const GroupSpec& spec);

}  // namespace bb::model
