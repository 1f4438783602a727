// Enqueue: whether a job already answers a spec (its replay key, its
// delivery, the same work), and the new job's row when none does. On
// SQLite these are statements of their own; on PostgreSQL, where each is a
// round trip, one statement asks and inserts (enqueue_at_once).
#include <functional>

#include "store/queue_schema.h"
#include "store/queue_store.h"

namespace bb::store {

using model::Job;

namespace {

// One question of find_existing: a SELECT of kJobColumns and found_by.
struct Part {
  std::string sql;
  std::function<void(Statement&, int&)> bind;
};

// found_by of a job enqueue_at_once made: after the three questions' 0-2.
constexpr int64_t kMade = 3;

// The questions that apply to `spec`, in the order they answer. The replay
// window's start is `since_sql`, whose one placeholder binds `since`.
std::vector<Part> existing_parts(const model::JobSpec& spec, bool replay, const std::string& since_sql,
                                 int64_t since) {
  const std::string cols = schema::kJobColumns;
  std::vector<Part> parts;
  if (replay && !spec.replay_key.empty()) {
    parts.push_back({"SELECT " + cols + ", 0 AS found_by FROM jobs WHERE id = (SELECT job_id FROM accepted_bodies"
                     " WHERE replay_key = ? AND accepted >= " + since_sql + ")",
                     [&spec, since](Statement& st, int& n) {
                       st.bind(++n, spec.replay_key);
                       st.bind(++n, since);
                     }});
  }
  // jobs_by_delivery is a partial index (delivery_id != ''): the planner
  // uses it for "= ?" only when the query says so too. Without it, this
  // read every job, and each Enqueue grew with the queue (2,900/s with
  // 2,000 jobs held, 755/s with 20,000).
  if (!spec.delivery_id.empty())
    parts.push_back({"SELECT " + cols + ", 1 AS found_by FROM jobs WHERE delivery_id = ? AND delivery_id != ''"
                     " ORDER BY id LIMIT 1",
                     [&spec](Statement& st, int& n) { st.bind(++n, spec.delivery_id); }});
  // The same work already waiting or running: a second run would measure
  // the same commits again. Without a head_sha the ref names the work.
  parts.push_back({"SELECT " + cols + ", 2 AS found_by FROM jobs WHERE repository = ? AND head_sha = ? AND kind = ?"
                   " AND base_sha = ? AND suite = ? AND (head_sha != '' OR ref = ?) AND shard = ? AND shards = ?"
                   " AND state IN ('queued', 'running') ORDER BY id LIMIT 1",
                   [&spec](Statement& st, int& n) {
                     for (const std::string& text : {spec.repository, spec.head_sha,
                                                     std::string(model::to_string(spec.kind)), spec.base_sha,
                                                     spec.suite, spec.ref})
                       st.bind(++n, text);
                     st.bind(++n, spec.shard);
                     st.bind(++n, spec.shards);
                   }});
  return parts;
}

// The parts as one PostgreSQL query whose one row (if any) is the first
// that answers. Each part a subquery: its ORDER BY and LIMIT are its own.
std::string first_of(const std::vector<Part>& parts) {
  std::string sql;
  for (size_t i = 0; i < parts.size(); ++i)
    sql += (i ? " UNION ALL " : "") + std::string("SELECT * FROM (") + parts[i].sql + ") AS p" + std::to_string(i);
  return sql + " ORDER BY found_by LIMIT 1";
}

// The columns an Enqueue writes, in bind_insert's order, with their
// PostgreSQL types: in INSERT ... SELECT the server types a parameter as
// text, not from the column it goes to.
struct InsertColumn {
  const char* name;
  const char* type;
};
constexpr InsertColumn kInsertColumns[] = {
    {"delivery_id", "TEXT"}, {"kind", "TEXT"},       {"repository", "TEXT"},        {"clone_url", "TEXT"},
    {"ref", "TEXT"},         {"head_sha", "TEXT"},   {"base_ref", "TEXT"},          {"base_sha", "TEXT"},
    {"pr_number", "BIGINT"}, {"suite", "TEXT"},      {"priority", "BIGINT"},        {"requested_by", "TEXT"},
    {"created", "BIGINT"},   {"group_id", "BIGINT"}, {"threshold", "DOUBLE PRECISION"}, {"shard", "BIGINT"},
    {"shards", "BIGINT"},    {"shard_benchmarks", "TEXT"}};

// The INSERT of a queued job, returning its row. `at_once`: the form inside
// enqueue_at_once, which inserts only when `found` has no row and takes
// `created` from `n`.
std::string insert_sql(bool at_once) {
  std::string cols, values;
  for (const InsertColumn& c : kInsertColumns) {
    cols += std::string(c.name) + ", ";
    if (!at_once) values += "?, ";
    else if (std::string_view(c.name) == "created") values += "(SELECT t FROM n), ";
    else values += std::string("CAST(? AS ") + c.type + "), ";
  }
  std::string sql = "INSERT INTO jobs (" + cols + "state) ";
  if (at_once) sql += "SELECT " + values + "'queued' WHERE NOT EXISTS (SELECT 1 FROM found)";
  else sql += "VALUES (" + values + "'queued')";
  return sql + " RETURNING " + schema::kJobColumns;
}

// insert_sql's values; `created` none when the statement has it already.
void bind_insert(Statement& st, int& n, const model::JobSpec& spec, std::optional<int64_t> created) {
  for (const std::string& text : {spec.delivery_id, std::string(model::to_string(spec.kind)), spec.repository,
                                  spec.clone_url, spec.ref, spec.head_sha, spec.base_ref, spec.base_sha})
    st.bind(++n, text);
  st.bind(++n, spec.pr_number);
  st.bind(++n, spec.suite);
  st.bind(++n, spec.priority);
  st.bind(++n, spec.requested_by);
  if (created) st.bind(++n, *created);
  st.bind(++n, spec.group_id);
  st.bind_real(++n, spec.threshold);
  st.bind(++n, spec.shard);
  st.bind(++n, spec.shards);
  st.bind(++n, schema::shard_benchmarks_text(spec.benchmarks));
}

}  // namespace

// Three questions, the first that answers is the one: the job this body's
// replay key was accepted for within the window, the job of the same
// delivery, the same work already waiting or running. On PostgreSQL one
// statement asks all three; SQLite has no round trips, and runs the three
// alone faster than their UNION (bench-queue: its Enqueue/s at 0.8 with the
// UNION).
Result<std::optional<QueueStore::Existing>> QueueStore::find_existing(const model::JobSpec& spec) {
  const bool replay = options_.replay_window_seconds != 0;
  const int64_t since = replay && !spec.replay_key.empty() ? replay_since() : 0;
  const std::vector<Part> parts = existing_parts(spec, replay, "?", since);
  auto ask = [&](const std::string& sql, const Part* first, const Part* last) -> Result<std::optional<Existing>> {
    auto st = db_.prepare(sql);
    if (!st) return st.error();
    int n = 0;
    for (const Part* part = first; part != last; ++part) part->bind(*st, n);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<Existing>();
    const bool replayed = st->column_int64(schema::kJobColumnCount) == 0;
    return std::optional<Existing>(Existing{schema::job_from_row(*st), replayed});
  };
  if (db_.backend() == Backend::postgresql) return ask(first_of(parts), parts.data(), parts.data() + parts.size());
  for (const Part& part : parts) {
    auto found = ask(part.sql, &part, &part + 1);
    if (!found || *found) return found;
  }
  return std::optional<Existing>();
}

int64_t QueueStore::replay_since() { return now() - static_cast<int64_t>(options_.replay_window_seconds); }

Result<std::optional<int64_t>> QueueStore::find_replay(const std::string& key) {
  if (key.empty() || options_.replay_window_seconds == 0) return std::optional<int64_t>();
  auto st = db_.prepare(schema::kReplayJob);
  if (!st) return st.error();
  st->bind(1, key).bind(2, replay_since());
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(st->column_int64(0));
}

// Inside the caller's transaction. Keys older than the window are dropped
// here, so the table holds one window's worth of deliveries.
Status QueueStore::remember_replay(const std::string& key, int64_t job_id) {
  if (key.empty() || options_.replay_window_seconds == 0) return {};
  int64_t now = this->now();
  auto prune = db_.prepare("DELETE FROM accepted_bodies WHERE accepted < ?");
  if (!prune) return prune.error();
  prune->bind(1, replay_since());
  BB_TRY(prune->run());
  auto st = db_.prepare(
      "INSERT INTO accepted_bodies (replay_key, job_id, accepted) VALUES (?, ?, ?)"
      // The window runs from the first acceptance; a label's record (job 0)
      // learns the job its enqueue then made.
      " ON CONFLICT (replay_key) DO UPDATE SET job_id = excluded.job_id");
  if (!st) return st.error();
  st->bind(1, key).bind(2, job_id).bind(3, now);
  return st->run();
}

Result<EnqueueResult> QueueStore::enqueue(const model::JobSpec& spec) {
  BB_TRY(check_spec(spec));
  return enqueue_alone(spec);
}

Result<EnqueueResult> QueueStore::enqueue_alone(const model::JobSpec& spec) {
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  // Two boxes enqueueing the same work must not both find it missing.
  BB_TRY(db_.lock_writers(kEnqueueLock));
  auto refused = check_group_of(spec);
  if (!refused) return refused.error();
  if (*refused) return std::move(**refused);
  auto result = enqueue_checked(spec);
  if (!result) return result.error();
  BB_TRY(tx->commit());
  return result;
}

Status QueueStore::check_spec(const model::JobSpec& spec) {
  BB_TRY(model::validate(spec));
  if (spec.shard != 0)
    return make_error(Errc::invalid_argument, "a shard is queued with its suite's other shards (EnqueueGroup)");
  return {};
}

Result<std::optional<Error>> QueueStore::check_group_of(const model::JobSpec& spec) {
  if (spec.group_id == 0) return std::optional<Error>();
  auto group = find_group(spec.group_id);
  if (!group) return group.error();
  const std::string name = "job group " + std::to_string(spec.group_id);
  if (!*group) return std::optional<Error>(make_error(Errc::not_found, "no " + name));
  if ((*group)->spec.repository != spec.repository)
    return std::optional<Error>(make_error(Errc::invalid_argument, name + " measures " + (*group)->spec.repository +
                                                                       ", not " + spec.repository));
  if ((*group)->spec.kind == model::GroupKind::shards)
    return std::optional<Error>(
        make_error(Errc::invalid_argument, name + " holds a suite's shards and takes no other job"));
  return std::optional<Error>();
}

Result<EnqueueResult> QueueStore::enqueue_checked(const model::JobSpec& spec) {
  const bool at_once = db_.backend() == Backend::postgresql;
  // The replay window, created and the replay record: one time (the one
  // statement on PostgreSQL takes it there).
  std::optional<schema::NowPin> pin;
  if (!at_once) pin.emplace(pinned_now_, now());
  return at_once ? enqueue_at_once(spec) : enqueue_in_tx(spec, false);
}

Result<std::optional<Job>> QueueStore::find_measured(const model::JobSpec& spec) {
  auto st = db_.prepare(std::string("SELECT ") + schema::kJobColumns +
                        " FROM jobs WHERE repository = ? AND head_sha = ? AND kind = ? AND ref = ?"
                        " AND base_sha = ? AND suite = ? AND shard = ? AND shards = ? AND state = 'done'"
                        " ORDER BY id DESC LIMIT 1");
  if (!st) return st.error();
  st->bind(1, spec.repository).bind(2, spec.head_sha).bind(3, std::string(model::to_string(spec.kind)));
  st->bind(4, spec.ref).bind(5, spec.base_sha).bind(6, spec.suite).bind(7, spec.shard).bind(8, spec.shards);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Job>();
  return std::optional<Job>(schema::job_from_row(*st));
}

Result<EnqueueResult> QueueStore::enqueue_in_tx(const model::JobSpec& spec, bool skip_measured) {
  auto existing = find_existing(spec);
  if (!existing) return existing.error();
  if (*existing) {
    // A replayed body is answered with its first job; a new body of the
    // same delivery or work is remembered with the job that answers it.
    if (!(*existing)->replayed) BB_TRY(remember_replay(spec.replay_key, (*existing)->job.id));
    return EnqueueResult{std::move((*existing)->job), false};
  }
  if (skip_measured && !spec.head_sha.empty()) {
    auto measured = find_measured(spec);
    if (!measured) return measured.error();
    if (*measured) return EnqueueResult{std::move(**measured), false};
  }

  auto st = db_.prepare(insert_sql(false));
  if (!st) return st.error();
  int n = 0;
  bind_insert(*st, n, spec, now());
  auto inserted = st->step();
  if (!inserted) return inserted.error();
  if (!*inserted) return make_error(Errc::internal, "INSERT INTO jobs returned no row");
  // The new row itself (RETURNING): no second query for it.
  Job job = schema::job_from_row(*st);
  BB_TRY(st->run());
  BB_TRY(remember_replay(spec.replay_key, job.id));
  BB_TRY(notify_changed(job.id));
  return EnqueueResult{std::move(job), true};
}

// PostgreSQL, inside enqueue's transaction: the time, the three questions
// and the INSERT when none answers, in one statement, sent with BEGIN and
// the writers' lock; the replay record and the notification then go with
// the COMMIT. Two round trips, with the server's clock too (it was three,
// and four with the server's clock: the time was asked alone first).
Result<EnqueueResult> QueueStore::enqueue_at_once(const model::JobSpec& spec) {
  auto st = at_once_statement(spec);
  if (!st) return st.error();
  return at_once_answer(*st, spec);
}

Result<Statement> QueueStore::at_once_statement(const model::JobSpec& spec) {
  const bool server_clock = options_.database_clock;
  const bool replay = options_.replay_window_seconds != 0;
  const std::vector<Part> parts =
      existing_parts(spec, replay, "(SELECT t FROM n) - ?", static_cast<int64_t>(options_.replay_window_seconds));
  const std::string now_sql = schema::now_select(server_clock);
  // The made row is not seen by `found` (one snapshot): the writers' lock
  // is what keeps a second box from making the same job meanwhile.
  auto st = db_.prepare("WITH n AS (" + now_sql + " AS t), found AS (" + first_of(parts) + "), made AS (" +
                        insert_sql(true) + ") SELECT *, (SELECT t FROM n) FROM found UNION ALL SELECT *, " +
                        std::to_string(kMade) + ", (SELECT t FROM n) FROM made");
  if (!st) return st.error();
  int n = 0;
  if (!server_clock) st->bind(++n, clock_->now_unix());
  for (const Part& part : parts) part.bind(*st, n);
  bind_insert(*st, n, spec, std::nullopt);
  return st;
}

Result<EnqueueResult> QueueStore::at_once_answer(Statement& st, const model::JobSpec& spec) {
  auto row = st.step();
  if (!row) return row.error();
  if (!*row) return make_error(Errc::internal, "an Enqueue's statement returned no row");
  Job job = schema::job_from_row(st);
  const int64_t found_by = st.column_int64(schema::kJobColumnCount);
  schema::NowPin pin(pinned_now_, st.column_int64(schema::kJobColumnCount + 1));
  BB_TRY(st.run());
  // A replayed body is answered with its first job; a new body of the same
  // delivery or work is remembered with the job that answers it.
  if (found_by != 0) BB_TRY(remember_replay(spec.replay_key, job.id));
  if (found_by == kMade) BB_TRY(notify_changed(job.id));
  return EnqueueResult{std::move(job), found_by == kMade};
}

}  // namespace bb::store
