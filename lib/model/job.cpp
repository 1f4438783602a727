#include "model/job.h"

#include "util/json_read.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>

namespace bb::model {

const char* to_string(JobState s) {
  switch (s) {
    case JobState::queued: return "queued";
    case JobState::running: return "running";
    case JobState::done: return "done";
    case JobState::failed: return "failed";
    case JobState::cancelled: return "cancelled";
  }
  return "queued";
}

const char* to_string(JobKind k) {
  switch (k) {
    case JobKind::push: return "push";
    case JobKind::tag: return "tag";
    case JobKind::pull_request: return "pull_request";
    case JobKind::manual: return "manual";
    case JobKind::compare: return "compare";
  }
  return "manual";
}

std::optional<JobState> job_state_from_string(const std::string& s) {
  for (auto st : {JobState::queued, JobState::running, JobState::done, JobState::failed,
                  JobState::cancelled})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

std::optional<JobKind> job_kind_from_string(const std::string& s) {
  for (auto k : {JobKind::push, JobKind::tag, JobKind::pull_request, JobKind::manual, JobKind::compare})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

bool is_terminal(JobState s) {
  return s == JobState::done || s == JobState::failed || s == JobState::cancelled;
}

nlohmann::json to_json(const JobSpec& s) {
  return {{"delivery_id", s.delivery_id}, {"kind", to_string(s.kind)},
          {"repository", s.repository},   {"clone_url", s.clone_url},
          {"ref", s.ref},                 {"head_sha", s.head_sha},
          {"base_ref", s.base_ref},       {"base_sha", s.base_sha},
          {"pr_number", s.pr_number},     {"suite", s.suite},
          {"priority", s.priority},       {"requested_by", s.requested_by},
          {"group_id", s.group_id},       {"threshold", s.threshold},
          {"replay_key", s.replay_key},   {"shard", s.shard},
          {"shards", s.shards},           {"shard_benchmarks", s.benchmarks}};
}

nlohmann::json to_json(const Job& job) {
  nlohmann::json j = to_json(job.spec);
  j["id"] = job.id;
  j["state"] = to_string(job.state);
  j["attempts"] = job.attempts;
  j["runner"] = job.runner;
  j["lease_expires"] = job.lease_expires;
  j["created"] = job.created;
  j["started"] = job.started;
  j["finished"] = job.finished;
  j["result_path"] = job.result_path;
  j["error"] = job.error;
  return j;
}

namespace {

template <class T>
Status take_job(const nlohmann::json& j, const char* key, T& out) {
  return take_member(j, key, out, "field");
}

}  // namespace

Result<JobSpec> job_spec_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(Errc::invalid_argument, "job spec is not a JSON object");
  JobSpec s;
  std::string kind = "manual";
  for (auto st : {take_job(j, "delivery_id", s.delivery_id), take_job(j, "kind", kind),
                  take_job(j, "repository", s.repository), take_job(j, "clone_url", s.clone_url),
                  take_job(j, "ref", s.ref), take_job(j, "head_sha", s.head_sha),
                  take_job(j, "base_ref", s.base_ref), take_job(j, "base_sha", s.base_sha),
                  take_job(j, "pr_number", s.pr_number), take_job(j, "suite", s.suite),
                  take_job(j, "priority", s.priority), take_job(j, "requested_by", s.requested_by),
                  take_job(j, "group_id", s.group_id), take_job(j, "threshold", s.threshold),
                  take_job(j, "replay_key", s.replay_key), take_job(j, "shard", s.shard), take_job(j, "shards", s.shards),
                  take_job(j, "shard_benchmarks", s.benchmarks)})
    if (!st) return st.error();
  auto k = job_kind_from_string(kind);
  if (!k) return make_error(Errc::invalid_argument, "unknown job kind '" + kind + "'");
  s.kind = *k;
  return s;
}

Result<Job> job_from_json(const nlohmann::json& j) {
  auto spec = job_spec_from_json(j);
  if (!spec) return spec.error();
  Job job;
  job.spec = std::move(*spec);
  std::string state = "queued";
  for (auto st : {take_job(j, "id", job.id), take_job(j, "state", state), take_job(j, "attempts", job.attempts),
                  take_job(j, "runner", job.runner), take_job(j, "lease_expires", job.lease_expires),
                  take_job(j, "created", job.created), take_job(j, "started", job.started),
                  take_job(j, "finished", job.finished), take_job(j, "result_path", job.result_path),
                  take_job(j, "error", job.error)})
    if (!st) return st.error();
  auto s = job_state_from_string(state);
  if (!s) return make_error(Errc::invalid_argument, "unknown job state '" + state + "'");
  job.state = *s;
  return job;
}

bool is_commit_id(const std::string& s) { return is_hex(s, 40) || is_hex(s, 64); }

namespace {

// A shard names its place, its suite and what it measures. (Its group is
// the queue's to set: QueueStore::enqueue_group.)
Status validate_shard(const JobSpec& s) {
  auto bad = [](std::string m) { return Status(make_error(Errc::invalid_argument, std::move(m))); };
  if (s.shard == 0 && s.shards == 0) {
    if (!s.benchmarks.empty()) return bad("only a shard lists its benchmarks");
    return {};
  }
  if (s.shards < 2 || s.shards > kMaxShards)
    return bad("shards must be 2 to " + std::to_string(kMaxShards) + ", not " + std::to_string(s.shards));
  if (s.shard < 1 || s.shard > s.shards)
    return bad("shard " + std::to_string(s.shard) + " is not one of 1 to " + std::to_string(s.shards));
  if (s.suite.empty()) return bad("a shard measures one suite: it needs its suite");
  if (s.benchmarks.empty()) return bad("a shard needs the benchmarks it measures");
  size_t bytes = 0;
  for (const auto& b : s.benchmarks) {
    if (b.empty()) return bad("a shard's benchmark name is empty");
    bytes += b.size();
  }
  // A D-Bus message, a row: a manifest is names, not data.
  if (bytes > kMaxShardBenchmarkBytes) return bad("a shard's benchmark names take more than 1 MiB");
  return {};
}

}  // namespace

Status validate(const JobSpec& s) {
  auto bad = [](std::string m) { return Status(make_error(Errc::invalid_argument, std::move(m))); };
  if (s.repository.empty()) return bad("job needs a repository");
  if (s.clone_url.empty()) return bad("job needs a clone_url");
  if (s.head_sha.empty() && s.ref.empty()) return bad("job needs a head_sha or a ref");
  if (!s.head_sha.empty() && !is_commit_id(s.head_sha))
    return bad("head_sha '" + s.head_sha + "' is not a full hex commit id");
  if (!s.base_sha.empty() && !is_commit_id(s.base_sha))
    return bad("base_sha '" + s.base_sha + "' is not a full hex commit id");
  if (s.kind == JobKind::pull_request && s.pr_number <= 0)
    return bad("a pull_request job needs a pr_number");
  if (!s.replay_key.empty() && !is_hex(s.replay_key, 64)) return bad("replay_key is not 64 hex digits");
  if (s.group_id < 0) return bad("group_id must not be negative");
  if (s.kind == JobKind::compare && (s.head_sha.empty() || s.base_sha.empty()))
    return bad("a compare job needs a head_sha and a base_sha");
  if (!(s.threshold >= 0 && s.threshold < 1)) return bad("threshold must be at least 0 and below 1");
  if (s.threshold > 0 && s.kind != JobKind::compare) return bad("only a compare job takes a threshold");
  return validate_shard(s);
}

}  // namespace bb::model
