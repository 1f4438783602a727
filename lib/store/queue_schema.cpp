#include "store/queue_schema.h"

#include "util/json_read.h"

namespace bb::store::schema {

const std::vector<Migration>& queue_migrations() {
  static const std::vector<Migration> migrations = {
      {"jobs",
       // AUTOINCREMENT: an id is never reused, even after the newest job is
       // deleted, so a job id in a log or a report names one job forever.
       "CREATE TABLE jobs ("
       "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
       "  delivery_id TEXT NOT NULL DEFAULT '',"
       "  kind TEXT NOT NULL,"
       "  repository TEXT NOT NULL,"
       "  clone_url TEXT NOT NULL DEFAULT '',"
       "  ref TEXT NOT NULL DEFAULT '',"
       "  head_sha TEXT NOT NULL DEFAULT '',"
       "  base_ref TEXT NOT NULL DEFAULT '',"
       "  base_sha TEXT NOT NULL DEFAULT '',"
       "  pr_number INTEGER NOT NULL DEFAULT 0,"
       "  suite TEXT NOT NULL DEFAULT '',"
       "  priority INTEGER NOT NULL DEFAULT 0,"
       "  requested_by TEXT NOT NULL DEFAULT '',"
       "  state TEXT NOT NULL,"
       "  attempts INTEGER NOT NULL DEFAULT 0,"
       "  runner TEXT NOT NULL DEFAULT '',"
       "  lease_seconds INTEGER NOT NULL DEFAULT 0,"
       "  lease_expires INTEGER NOT NULL DEFAULT 0,"
       "  created INTEGER NOT NULL,"
       "  started INTEGER NOT NULL DEFAULT 0,"
       "  finished INTEGER NOT NULL DEFAULT 0,"
       "  result_path TEXT NOT NULL DEFAULT '',"
       "  error TEXT NOT NULL DEFAULT '');"
       // One job per GitHub delivery, whatever its state.
       "CREATE UNIQUE INDEX jobs_by_delivery ON jobs(delivery_id) WHERE delivery_id != '';"
       // Claim order: highest priority, then oldest.
       "CREATE INDEX jobs_claim_order ON jobs(state, priority DESC, id);"
       "CREATE INDEX jobs_by_work ON jobs(repository, head_sha, state);",
       // PostgreSQL: a sequence never hands an id out twice either.
       "CREATE TABLE jobs ("
       "  id BIGSERIAL PRIMARY KEY,"
       "  delivery_id TEXT NOT NULL DEFAULT '',"
       "  kind TEXT NOT NULL,"
       "  repository TEXT NOT NULL,"
       "  clone_url TEXT NOT NULL DEFAULT '',"
       "  ref TEXT NOT NULL DEFAULT '',"
       "  head_sha TEXT NOT NULL DEFAULT '',"
       "  base_ref TEXT NOT NULL DEFAULT '',"
       "  base_sha TEXT NOT NULL DEFAULT '',"
       "  pr_number BIGINT NOT NULL DEFAULT 0,"
       "  suite TEXT NOT NULL DEFAULT '',"
       "  priority BIGINT NOT NULL DEFAULT 0,"
       "  requested_by TEXT NOT NULL DEFAULT '',"
       "  state TEXT NOT NULL,"
       "  attempts BIGINT NOT NULL DEFAULT 0,"
       "  runner TEXT NOT NULL DEFAULT '',"
       "  lease_seconds BIGINT NOT NULL DEFAULT 0,"
       "  lease_expires BIGINT NOT NULL DEFAULT 0,"
       "  created BIGINT NOT NULL,"
       "  started BIGINT NOT NULL DEFAULT 0,"
       "  finished BIGINT NOT NULL DEFAULT 0,"
       "  result_path TEXT NOT NULL DEFAULT '',"
       "  error TEXT NOT NULL DEFAULT '');"
       "CREATE UNIQUE INDEX jobs_by_delivery ON jobs(delivery_id) WHERE delivery_id <> '';"
       "CREATE INDEX jobs_claim_order ON jobs(state, priority DESC, id);"
       "CREATE INDEX jobs_by_work ON jobs(repository, head_sha, state);"},
      {"pull_requests",
       "CREATE TABLE pull_requests ("
       "  repository TEXT NOT NULL,"
       "  number INTEGER NOT NULL,"
       "  head_sha TEXT NOT NULL,"
       "  head_ref TEXT NOT NULL DEFAULT '',"
       "  base_ref TEXT NOT NULL DEFAULT '',"
       "  base_sha TEXT NOT NULL DEFAULT '',"
       "  state TEXT NOT NULL,"
       "  clone_url TEXT NOT NULL DEFAULT '',"
       "  updated INTEGER NOT NULL,"
       "  PRIMARY KEY (repository, number));",
       "CREATE TABLE pull_requests ("
       "  repository TEXT NOT NULL,"
       "  number BIGINT NOT NULL,"
       "  head_sha TEXT NOT NULL,"
       "  head_ref TEXT NOT NULL DEFAULT '',"
       "  base_ref TEXT NOT NULL DEFAULT '',"
       "  base_sha TEXT NOT NULL DEFAULT '',"
       "  state TEXT NOT NULL,"
       "  clone_url TEXT NOT NULL DEFAULT '',"
       "  updated BIGINT NOT NULL,"
       "  PRIMARY KEY (repository, number));"},
      {"accepted_bodies",
       // Replay protection: GitHub signs only the body, so a captured
       // delivery re-posted under a new delivery id still verifies. The
       // body's HMAC names it; job_id is 0 for a body that only recorded a
       // pull request.
       "CREATE TABLE accepted_bodies ("
       "  replay_key TEXT PRIMARY KEY,"
       "  job_id INTEGER NOT NULL DEFAULT 0,"
       "  accepted INTEGER NOT NULL);"
       "CREATE INDEX accepted_bodies_by_age ON accepted_bodies(accepted);",
       "CREATE TABLE accepted_bodies ("
       "  replay_key TEXT PRIMARY KEY,"
       "  job_id BIGINT NOT NULL DEFAULT 0,"
       "  accepted BIGINT NOT NULL);"
       "CREATE INDEX accepted_bodies_by_age ON accepted_bodies(accepted);"},
      {"job_groups",
       // Jobs the box made for one purpose (a backfill, a bisection),
       // followed and cancelled together. Counts per state are not stored:
       // they are read from the jobs, so they can never disagree.
       "CREATE TABLE job_groups ("
       "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
       "  kind TEXT NOT NULL,"
       "  repository TEXT NOT NULL,"
       "  description TEXT NOT NULL DEFAULT '',"
       "  requested_by TEXT NOT NULL DEFAULT '',"
       "  skip_measured INTEGER NOT NULL DEFAULT 1,"
       "  created INTEGER NOT NULL,"
       "  step TEXT NOT NULL DEFAULT '');"
       "ALTER TABLE jobs ADD COLUMN group_id INTEGER NOT NULL DEFAULT 0;"
       "CREATE INDEX jobs_by_group ON jobs(group_id, state) WHERE group_id != 0;",
       "CREATE TABLE job_groups ("
       "  id BIGSERIAL PRIMARY KEY,"
       "  kind TEXT NOT NULL,"
       "  repository TEXT NOT NULL,"
       "  description TEXT NOT NULL DEFAULT '',"
       "  requested_by TEXT NOT NULL DEFAULT '',"
       "  skip_measured BIGINT NOT NULL DEFAULT 1,"
       "  created BIGINT NOT NULL,"
       "  step TEXT NOT NULL DEFAULT '');"
       "ALTER TABLE jobs ADD COLUMN group_id BIGINT NOT NULL DEFAULT 0;"
       "CREATE INDEX jobs_by_group ON jobs(group_id, state) WHERE group_id <> 0;"},
      {"compare_threshold",
       // A compare job's decision threshold (model::JobSpec::threshold).
       "ALTER TABLE jobs ADD COLUMN threshold REAL NOT NULL DEFAULT 0;",
       "ALTER TABLE jobs ADD COLUMN threshold DOUBLE PRECISION NOT NULL DEFAULT 0;"},
      {"job_results",
       // A done job's result set (model::JobResult as JSON), so it travels
       // with the queue from the box that measured it to the box that
       // reports it, rather than as a path on one box.
       "CREATE TABLE job_results (job_id INTEGER PRIMARY KEY, body TEXT NOT NULL);",
       "CREATE TABLE job_results (job_id BIGINT PRIMARY KEY, body TEXT NOT NULL);"},
      {"shards",
       // One shard of a sharded suite (model::JobSpec::shard): its place
       // and its benchmark names as a JSON list ('' when not a shard).
       "ALTER TABLE jobs ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;"
       "ALTER TABLE jobs ADD COLUMN shards INTEGER NOT NULL DEFAULT 0;"
       "ALTER TABLE jobs ADD COLUMN shard_benchmarks TEXT NOT NULL DEFAULT '';",
       "ALTER TABLE jobs ADD COLUMN shard BIGINT NOT NULL DEFAULT 0;"
       "ALTER TABLE jobs ADD COLUMN shards BIGINT NOT NULL DEFAULT 0;"
       "ALTER TABLE jobs ADD COLUMN shard_benchmarks TEXT NOT NULL DEFAULT '';"},
      {"pull_request_title",
       // For people: the dashboard's pull request page names it.
       "ALTER TABLE pull_requests ADD COLUMN title TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE pull_requests ADD COLUMN author TEXT NOT NULL DEFAULT '';",
       "ALTER TABLE pull_requests ADD COLUMN title TEXT NOT NULL DEFAULT '';"
       "ALTER TABLE pull_requests ADD COLUMN author TEXT NOT NULL DEFAULT '';"},
      {"lease_index",
       // Every Claim and every second's lease check ask for a running job
       // whose lease ran out: found by its lease, not by reading every
       // running job (jobs_claim_order's state prefix). Not a partial
       // index: SQLite's planner then prefers jobs_claim_order.
       "CREATE INDEX jobs_leases ON jobs(state, lease_expires);", nullptr},
  };
  return migrations;
}

std::string shard_benchmarks_text(const std::vector<std::string>& names) {
  return names.empty() ? std::string() : nlohmann::json(names).dump();
}

std::vector<std::string> shard_benchmarks_from_text(const std::string& text) {
  if (text.empty()) return {};
  // Written by shard_benchmarks_text only; a row edited by hand into
  // something else reads as no names (and the shard then fails validation
  // where it is used, rather than here in the middle of a listing).
  auto j = nlohmann::json::parse(text, nullptr, false);
  return json_as<std::vector<std::string>>(j).value_or(std::vector<std::string>{});
}

model::Job job_from_row(const Statement& row) {
  model::Job job;
  job.id = row.column_int64(0);
  job.spec.delivery_id = row.column_text(1);
  job.spec.kind = model::job_kind_from_string(row.column_text(2)).value_or(model::JobKind::manual);
  job.spec.repository = row.column_text(3);
  job.spec.clone_url = row.column_text(4);
  job.spec.ref = row.column_text(5);
  job.spec.head_sha = row.column_text(6);
  job.spec.base_ref = row.column_text(7);
  job.spec.base_sha = row.column_text(8);
  job.spec.pr_number = row.column_int64(9);
  job.spec.suite = row.column_text(10);
  job.spec.priority = row.column_int64(11);
  job.spec.requested_by = row.column_text(12);
  job.state = model::job_state_from_string(row.column_text(13)).value_or(model::JobState::failed);
  job.attempts = row.column_int64(14);
  job.runner = row.column_text(15);
  job.lease_expires = row.column_int64(16);
  job.created = row.column_int64(17);
  job.started = row.column_int64(18);
  job.finished = row.column_int64(19);
  job.result_path = row.column_text(20);
  job.error = row.column_text(21);
  job.spec.group_id = row.column_int64(22);
  job.spec.threshold = row.column_real(23);
  job.spec.shard = row.column_int64(24);
  job.spec.shards = row.column_int64(25);
  job.spec.benchmarks = shard_benchmarks_from_text(row.column_text(26));
  return job;
}

Result<std::vector<model::Job>> read_jobs(Statement& st) {
  std::vector<model::Job> jobs;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) return jobs;
    jobs.push_back(job_from_row(st));
  }
}

model::PullRequest pull_request_from_row(const Statement& row) {
  model::PullRequest pr;
  pr.repository = row.column_text(0);
  pr.number = row.column_int64(1);
  pr.head_sha = row.column_text(2);
  pr.head_ref = row.column_text(3);
  pr.base_ref = row.column_text(4);
  pr.base_sha = row.column_text(5);
  pr.state = row.column_text(6);
  pr.clone_url = row.column_text(7);
  pr.updated = row.column_int64(8);
  pr.title = row.column_text(9);
  pr.author = row.column_text(10);
  return pr;
}

}  // namespace bb::store::schema
