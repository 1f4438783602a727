#include "store/queue_store.h"

#include "store/queue_schema.h"

namespace bb::store {

using model::Job;
using model::JobState;

uint32_t QueueCounts::of(JobState s) const {
  switch (s) {
    case JobState::queued: return queued;
    case JobState::running: return running;
    case JobState::done: return done;
    case JobState::failed: return failed;
    case JobState::cancelled: return cancelled;
  }
  return 0;
}

namespace {

std::string job_name(int64_t id) { return "job " + std::to_string(id); }

Error not_found(int64_t id) { return make_error(Errc::not_found, "no " + job_name(id)); }

}  // namespace

Result<QueueStore> QueueStore::open(const Location& where, const Clock& clock, QueueOptions options) {
  auto db = Database::open(where);
  if (!db) return db.error();
  BB_TRY(db->use_namespace("benchbox_queue"));
  BB_TRY(db->migrate("queue", schema::queue_migrations()));
  return QueueStore(std::move(*db), clock, options);
}

int64_t QueueStore::now() {
  if (pinned_now_) return *pinned_now_;
  if (!options_.database_clock || db_.backend() != Backend::postgresql) return clock_->now_unix();
  auto st = db_.prepare(schema::kServerNow);
  if (!st) return clock_->now_unix();
  auto row = st->step();
  if (!row || !*row) return clock_->now_unix();
  return st->column_int64(0);
}

Result<QueueStore> QueueStore::open(const std::string& path, const Clock& clock, QueueOptions options) {
  return open(Location::sqlite(path), clock, options);
}

Status QueueStore::notify_changed(int64_t id) {
  return db_.notify(kJobsChannel, options_.origin + " " + std::to_string(id));
}

Result<std::optional<Job>> QueueStore::find(int64_t id, bool lock) {
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns + " FROM jobs WHERE id = ?" +
                        (lock ? db_.for_update() : ""));
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Job>();
  return std::optional<Job>(schema::job_from_row(*st));
}

Result<Job> QueueStore::get(int64_t id) {
  auto job = find(id);
  if (!job) return job.error();
  if (!*job) return not_found(id);
  return std::move(**job);
}

Result<QueueStore::LeaseCheck> QueueStore::lease_check() {
  LeaseCheck check;
  if (!pinned_now_ && options_.database_clock && db_.backend() == Backend::postgresql) {
    // The server's clock and the question in one statement.
    auto st = db_.prepare(
        "SELECT n.t, CASE WHEN EXISTS (SELECT 1 FROM jobs WHERE state = 'running' AND lease_expires < n.t)"
        " THEN 1 ELSE 0 END"
        " FROM (" + std::string(schema::kServerNow) + " AS t) AS n");
    if (!st) return st.error();
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return make_error(Errc::internal, "the lease check returned no row");
    check.now = st->column_int64(0);
    check.any_expired = st->column_int64(1) != 0;
    return check;
  }
  check.now = now();
  auto any = db_.prepare("SELECT 1 FROM jobs WHERE state = 'running' AND lease_expires < ? LIMIT 1");
  if (!any) return any.error();
  any->bind(1, check.now);
  auto found = any->step();
  if (!found) return found.error();
  check.any_expired = *found;
  return check;
}

Result<std::vector<Job>> QueueStore::expire_leases() {
  // The daemon asks every second: look before taking the write lock, so
  // the common case (nothing stale) writes nothing.
  auto check = lease_check();
  if (!check) return check.error();
  if (!check->any_expired) return std::vector<Job>{};
  return expire_stale(check->now);
}

Result<std::vector<Job>> QueueStore::expire_stale(int64_t now) {
  std::vector<Job> changed;
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  // A lease is valid through its lease_expires second. Re-read inside the
  // transaction: the answer above may be stale by now.
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns +
                        " FROM jobs WHERE state = 'running' AND lease_expires < ? ORDER BY id" +
                        db_.skip_locked());
  if (!st) return st.error();
  st->bind(1, now);
  std::vector<Job> stale;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) break;
    stale.push_back(schema::job_from_row(*st));
  }
  unsigned max_attempts = options_.max_attempts == 0 ? 1 : options_.max_attempts;
  for (Job& job : stale) {
    job.attempts += 1;
    bool give_up = job.attempts >= static_cast<int64_t>(max_attempts);
    std::string error;
    if (give_up) {
      error = "lease expired " + std::to_string(job.attempts) + " time(s), the last held by runner '" +
              job.runner + "'; giving up after queue.max_attempts=" + std::to_string(max_attempts);
    } else {
      error = "lease of runner '" + job.runner + "' expired; requeued (attempt " +
              std::to_string(job.attempts) + " of " + std::to_string(max_attempts) + ")";
    }
    auto up = db_.prepare(
        "UPDATE jobs SET state = ?, attempts = ?, runner = '', lease_expires = 0, error = ?,"
        " finished = ? WHERE id = ?");
    if (!up) return up.error();
    up->bind(1, std::string(give_up ? "failed" : "queued")).bind(2, job.attempts).bind(3, error);
    up->bind(4, give_up ? now : int64_t{0}).bind(5, job.id);
    BB_TRY(up->run());
    BB_TRY(notify_changed(job.id));
  }
  BB_TRY(tx->commit());
  for (const Job& job : stale) {
    auto fresh = get(job.id);
    if (!fresh) return fresh.error();
    changed.push_back(std::move(*fresh));
  }
  return changed;
}

Result<Job> QueueStore::load_held(int64_t id, const std::string& runner, const char* action) {
  auto job = find(id, true);
  if (!job) return job.error();
  if (!*job) return not_found(id);
  const Job& j = **job;
  if (j.state == JobState::cancelled)
    return make_error(Errc::cancelled, job_name(id) + " was cancelled" +
                                           (j.error.empty() ? "" : ": " + j.error));
  if (j.state != JobState::running)
    return make_error(Errc::conflict, std::string("cannot ") + action + " " + job_name(id) +
                                          ": it is " + model::to_string(j.state) + ", not running");
  if (j.runner != runner)
    return make_error(Errc::conflict, std::string("cannot ") + action + " " + job_name(id) +
                                          ": its lease is held by runner '" + j.runner +
                                          "', not '" + runner + "'");
  return std::move(**job);
}

Result<int64_t> QueueStore::heartbeat(int64_t id, const std::string& runner) {
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  auto job = load_held(id, runner, "heartbeat");
  if (!job) return job.error();
  auto up = db_.prepare("UPDATE jobs SET lease_expires = ? + lease_seconds WHERE id = ?");
  if (!up) return up.error();
  up->bind(1, now()).bind(2, id);
  BB_TRY(up->run());
  BB_TRY(tx->commit());
  auto fresh = get(id);
  if (!fresh) return fresh.error();
  return fresh->lease_expires;
}

Result<Job> QueueStore::finish(int64_t id, const std::string& runner, JobState to,
                               const std::string& result_path, const std::string& error, const std::string& result) {
  if (result.size() > model::kMaxResultBytes)
    return make_error(Errc::invalid_argument, "the result of " + job_name(id) + " is " +
                                                  std::to_string(result.size() >> 20) + " MiB; at most " +
                                                  std::to_string(model::kMaxResultBytes >> 20) + " MiB travel with the queue");
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  auto job = load_held(id, runner, to == JobState::done ? "complete" : "fail");
  if (!job) return job.error();
  auto up = db_.prepare(
      "UPDATE jobs SET state = ?, result_path = ?, error = ?, finished = ?, lease_expires = 0"
      " WHERE id = ?");
  if (!up) return up.error();
  up->bind(1, std::string(model::to_string(to))).bind(2, result_path).bind(3, error);
  up->bind(4, now()).bind(5, id);
  BB_TRY(up->run());
  if (!result.empty()) {
    auto keep = db_.prepare(
        "INSERT INTO job_results (job_id, body) VALUES (?, ?) ON CONFLICT (job_id) DO UPDATE SET body = excluded.body");
    if (!keep) return keep.error();
    keep->bind(1, id).bind(2, result);
    BB_TRY(keep->run());
  }
  BB_TRY(notify_changed(id));
  BB_TRY(tx->commit());
  return get(id);
}

Result<std::string> QueueStore::result(int64_t id) {
  auto st = db_.prepare("SELECT body FROM job_results WHERE job_id = ?");
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return make_error(Errc::not_found, job_name(id) + " has no result in the queue");
  return st->column_text(0);
}

Result<Job> QueueStore::complete(int64_t id, const std::string& runner, const std::string& result_path,
                                 const std::string& result) {
  return finish(id, runner, JobState::done, result_path, "", result);
}

Result<Job> QueueStore::fail(int64_t id, const std::string& runner, const std::string& reason) {
  return finish(id, runner, JobState::failed, "", reason.empty() ? "failed (no reason given)" : reason, "");
}

Result<Job> QueueStore::cancel(int64_t id, const std::string& reason) {
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  auto job = find(id, true);
  if (!job) return job.error();
  if (!*job) return not_found(id);
  if (model::is_terminal((*job)->state))
    return make_error(Errc::conflict, "cannot cancel " + job_name(id) + ": it is already " +
                                          model::to_string((*job)->state));
  // The runner keeps its name on the job so it gets Cancelled (not
  // Conflict) at its next heartbeat.
  auto up = db_.prepare(
      "UPDATE jobs SET state = 'cancelled', error = ?, finished = ?, lease_expires = 0 WHERE id = ?");
  if (!up) return up.error();
  up->bind(1, reason.empty() ? std::string("cancelled") : reason).bind(2, now()).bind(3, id);
  BB_TRY(up->run());
  BB_TRY(notify_changed(id));
  BB_TRY(tx->commit());
  return get(id);
}

Result<std::vector<Job>> QueueStore::list(std::optional<JobState> state, uint32_t limit) {
  std::string sql = std::string("SELECT ") + schema::kJobColumns + " FROM jobs";
  if (state) sql += " WHERE state = ?";
  sql += " ORDER BY id DESC";
  if (limit) sql += " LIMIT ?";
  auto st = db_.prepare(sql);
  if (!st) return st.error();
  int index = 1;
  if (state) st->bind(index++, std::string(model::to_string(*state)));
  if (limit) st->bind(index, int64_t{limit});
  return schema::read_jobs(*st);
}

Result<std::vector<Job>> QueueStore::list_after(int64_t after_id, uint32_t limit) {
  if (limit == 0 || limit > 1000)
    return make_error(Errc::invalid_argument, "limit must be 1 to 1000, got " + std::to_string(limit));
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns + " FROM jobs WHERE id > ? ORDER BY id LIMIT ?");
  if (!st) return st.error();
  st->bind(1, after_id).bind(2, int64_t{limit});
  return schema::read_jobs(*st);
}

Result<std::vector<Job>> QueueStore::changed_since(int64_t since) {
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns +
                        " FROM jobs WHERE created >= ? OR started >= ? OR finished >= ? ORDER BY id LIMIT 10000");
  if (!st) return st.error();
  st->bind(1, since).bind(2, since).bind(3, since);
  return schema::read_jobs(*st);
}

Result<std::vector<int64_t>> QueueStore::ids() {
  auto st = db_.prepare("SELECT id FROM jobs ORDER BY id");
  if (!st) return st.error();
  std::vector<int64_t> out;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(st->column_int64(0));
  }
}

Result<QueueCounts> QueueStore::counts() {
  auto st = db_.prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state");
  if (!st) return st.error();
  QueueCounts c;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return c;
    auto n = static_cast<uint32_t>(st->column_int64(1));
    switch (model::job_state_from_string(st->column_text(0)).value_or(JobState::failed)) {
      case JobState::queued: c.queued += n; break;
      case JobState::running: c.running += n; break;
      case JobState::done: c.done += n; break;
      case JobState::failed: c.failed += n; break;
      case JobState::cancelled: c.cancelled += n; break;
    }
  }
}

Result<RecordResult> QueueStore::record_pull_request(const model::PullRequest& pr) {
  BB_TRY(model::validate(pr));
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  BB_TRY(db_.lock_writers(kEnqueueLock));
  auto replay = find_replay(pr.replay_key);
  if (!replay) return replay.error();
  if (*replay) {
    // An old event replayed must not move the record back to an older head.
    auto current = get_pull_request(pr.repository, pr.number);
    if (!current) return current.error();
    return RecordResult{std::move(*current), false};
  }
  auto st = db_.prepare(
      "INSERT INTO pull_requests (repository, number, head_sha, head_ref, base_ref, base_sha,"
      " state, clone_url, updated, title, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
      " ON CONFLICT (repository, number) DO UPDATE SET head_sha = excluded.head_sha,"
      " head_ref = excluded.head_ref, base_ref = excluded.base_ref, base_sha = excluded.base_sha,"
      " state = excluded.state, clone_url = excluded.clone_url, updated = excluded.updated,"
      // An event without a title (an older sender) keeps the one recorded.
      " title = CASE WHEN excluded.title = '' THEN pull_requests.title ELSE excluded.title END,"
      " author = CASE WHEN excluded.author = '' THEN pull_requests.author ELSE excluded.author END");
  if (!st) return st.error();
  st->bind(1, pr.repository).bind(2, pr.number).bind(3, pr.head_sha).bind(4, pr.head_ref);
  st->bind(5, pr.base_ref).bind(6, pr.base_sha).bind(7, pr.state).bind(8, pr.clone_url);
  st->bind(9, now()).bind(10, pr.title).bind(11, pr.author);
  BB_TRY(st->run());
  BB_TRY(remember_replay(pr.replay_key, 0));
  BB_TRY(tx->commit());
  auto saved = get_pull_request(pr.repository, pr.number);
  if (!saved) return saved.error();
  return RecordResult{std::move(*saved), true};
}

Result<model::PullRequest> QueueStore::get_pull_request(const std::string& repository, int64_t number) {
  auto st = db_.prepare(std::string("SELECT ") + schema::kPullRequestColumns +
                        " FROM pull_requests WHERE repository = ? AND number = ?");
  if (!st) return st.error();
  st->bind(1, repository).bind(2, number);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row)
    return make_error(Errc::not_found,
                      "no pull request " + repository + "#" + std::to_string(number) + " recorded");
  return schema::pull_request_from_row(*st);
}

}  // namespace bb::store
