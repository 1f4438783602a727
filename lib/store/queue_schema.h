// The queue database's schema (as migrations) and the mapping between a
// jobs row and model::Job. Internal to lib/store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/job.h"
#include "model/pull_request.h"
#include "store/database.h"

namespace bb::store::schema {

// Index i moves user_version from i to i+1. Append only: never edit a
// migration that has shipped.
const std::vector<Migration>& queue_migrations();

// The column list every job SELECT uses, in the order job_from_row reads.
inline constexpr const char* kJobColumns =
    "id, delivery_id, kind, repository, clone_url, ref, head_sha, base_ref, base_sha, "
    "pr_number, suite, priority, requested_by, state, attempts, runner, lease_expires, "
    "created, started, finished, result_path, error, group_id, threshold, shard, shards, shard_benchmarks";

// How many columns kJobColumns names: a column a query adds after them is this one.
inline constexpr int kJobColumnCount = 27;
static_assert([] {
  int n = 1;
  for (const char* c = kJobColumns; *c; ++c) n += *c == ',';
  return n;
}() == kJobColumnCount);
model::Job job_from_row(const Statement& row);
// A shard's benchmark names as the shard_benchmarks column holds them.
std::string shard_benchmarks_text(const std::vector<std::string>& names);
std::vector<std::string> shard_benchmarks_from_text(const std::string& text);
// Every row of a job SELECT (kJobColumns), in order.
Result<std::vector<model::Job>> read_jobs(Statement& st);

inline constexpr const char* kPullRequestColumns =
    "repository, number, head_sha, head_ref, base_ref, base_sha, state, clone_url, updated, title, author";

model::PullRequest pull_request_from_row(const Statement& row);

// The server's time in whole seconds (QueueOptions::database_clock).
inline constexpr const char* kServerNow = "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp())) AS BIGINT)";
// The time a one-statement call (enqueue_at_once, claim_at_once) reads as
// `n.t`: the server's, or the store clock's bound as its first parameter.
inline std::string now_select(bool server_clock) {
  return server_clock ? std::string(kServerNow) : "SELECT CAST(? AS BIGINT)";
}
// The job a replay key was accepted for, given the key and the window's start.
inline constexpr const char* kReplayJob = "SELECT job_id FROM accepted_bodies WHERE replay_key = ? AND accepted >= ?";

// One time for all of a call's uses of QueueStore::now(), each a round trip
// on PostgreSQL with the database's clock; forgotten when the call ends.
class NowPin {
 public:
  NowPin(std::optional<int64_t>& slot, int64_t t) : slot_(slot) { slot_ = t; }
  ~NowPin() { slot_.reset(); }
  NowPin(const NowPin&) = delete;
  NowPin& operator=(const NowPin&) = delete;

 private:
  std::optional<int64_t>& slot_;
};

}  // namespace bb::store::schema
