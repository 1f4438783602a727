// A benchmark job as the queue stores it and the daemons pass it around.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace bb::model {

// The largest result set that travels with the queue (Queue1.CompleteWithResult):
// it must fit one D-Bus message (dbus-daemon's default limit is 32 MiB).
inline constexpr size_t kMaxResultBytes = size_t(24) << 20;
// The most shards a suite may be split into (config/shard.h).
inline constexpr int64_t kMaxShards = 64;
// All of one shard's benchmark names together.
inline constexpr size_t kMaxShardBenchmarkBytes = size_t(1) << 20;

enum class JobState { queued, running, done, failed, cancelled };
// push: a commit on an allowed branch; tag: a tag push; pull_request: a
// blessed PR (head against merge-base); manual: benchboxctl enqueue;
// compare: head_sha against base_sha exactly, interleaved (a regression's
// confirmation or a bisection step: two commits of one branch).
enum class JobKind { push, tag, pull_request, manual, compare };

const char* to_string(JobState s);
const char* to_string(JobKind k);
std::optional<JobState> job_state_from_string(const std::string& s);
std::optional<JobKind> job_kind_from_string(const std::string& s);
bool is_terminal(JobState s);

// What a caller asks for. The queue fills in id, state and timestamps.
struct JobSpec {
  std::string delivery_id;   // X-GitHub-Delivery, or "" for manual jobs
  JobKind kind = JobKind::manual;
  std::string repository;    // "owner/name"
  std::string clone_url;     // where runnerd fetches from
  std::string ref;           // "refs/heads/main", "refs/tags/v1", "refs/pull/7/head"
  std::string head_sha;      // the commit to measure ("" = resolve ref at run time)
  std::string base_ref;      // PR: the base branch ("refs/heads/main")
  std::string base_sha;      // PR: base branch tip at bless time (merge-base computed by runner);
                             // push: the branch's previous head (the push's `before`), "" for a new branch
  int64_t pr_number = 0;
  std::string suite;         // "" = every suite in .benchbox.yml
  int64_t priority = 0;      // higher runs first
  std::string requested_by;  // GitHub login or local user
  // compare: the relative threshold every metric is decided at (a
  // bisection step asks "is the confirmed change here?", docs/bisect.md);
  // 0: the suite's own.
  double threshold = 0;
  // The job group it belongs to (model/job_group.h), or 0. Set by
  // Queue1.EnqueueGroup; Enqueue accepts only a group that exists.
  int64_t group_id = 0;
  // One shard of a sharded suite (config/shard.h): shard `shard` of
  // `shards` (1-based), measuring `suite`'s `benchmarks` only. It is queued
  // only in a group of kind shards, with the suite's other shards; what a
  // shard that never finishes was to measure is what its job says here.
  // 0 and empty: not a shard.
  int64_t shard = 0;
  int64_t shards = 0;
  std::vector<std::string> benchmarks;
  // The delivery body's HMAC (64 hex digits), or "": the queue answers a
  // body it already accepted within queue.replay_window_seconds with that
  // first job, whatever delivery id it carries now. Input only: not stored
  // on the job, so a Job read back has it empty.
  std::string replay_key;
};

// A commit id: 40 (SHA-1) or 64 (SHA-256) hex digits.
bool is_commit_id(const std::string& s);

struct Job {
  int64_t id = 0;
  JobSpec spec;
  JobState state = JobState::queued;
  int64_t attempts = 0;
  std::string runner;        // who holds the lease
  int64_t lease_expires = 0; // unix seconds
  int64_t created = 0;
  int64_t started = 0;
  int64_t finished = 0;
  std::string result_path;   // result set (JSON) written by runnerd
  std::string error;         // why it failed or was cancelled
};

nlohmann::json to_json(const JobSpec& spec);
nlohmann::json to_json(const Job& job);
Result<JobSpec> job_spec_from_json(const nlohmann::json& j);
Result<Job> job_from_json(const nlohmann::json& j);

// A spec is acceptable to the queue: repository, clone_url and either
// head_sha or ref are set; a pull_request has a pr_number; shas are hex.
Status validate(const JobSpec& spec);

}  // namespace bb::model
