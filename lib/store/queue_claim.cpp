// Claim: the lease check, then the first queued job taken. On SQLite
// these are statements of their own; on PostgreSQL, where each is a round
// trip, one statement checks the leases and claims (claim_at_once).
#include "store/queue_schema.h"
#include "store/queue_store.h"

namespace bb::store {

using model::Job;

namespace {

// Every box claims from the same table: a row another box is taking is
// skipped, not waited for (`skip_locked`, PostgreSQL's SKIP LOCKED).
std::string pick_sql(const char* skip_locked) {
  return std::string("SELECT id FROM jobs WHERE state = 'queued' ORDER BY priority DESC, id ASC LIMIT 1") +
         skip_locked;
}

}  // namespace

Result<ClaimResult> QueueStore::claim(const std::string& runner, unsigned lease_seconds) {
  if (runner.empty()) return make_error(Errc::invalid_argument, "Claim needs a runner name");
  const unsigned lease = lease_seconds ? lease_seconds : options_.default_lease_seconds;
  if (db_.backend() == Backend::postgresql) {
    auto at_once = claim_at_once(runner, lease);
    if (!at_once) return at_once.error();
    if (*at_once) return std::move(**at_once);
    // A lease had run out: ended first, below, as on SQLite.
  }
  ClaimResult result;
  // The lease check and the new lease: one time.
  auto check = lease_check();
  if (!check) return check.error();
  schema::NowPin pin(pinned_now_, check->now);
  if (check->any_expired) {
    auto expired = expire_stale(check->now);
    if (!expired) return expired.error();
    result.expired = std::move(*expired);
  }

  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  // The pick and the claim one statement, and the claimed row itself
  // returned (a SELECT and then the UPDATE were two).
  const int64_t now = this->now();
  auto up = db_.prepare(
      "UPDATE jobs SET state = 'running', runner = ?, lease_seconds = ?, lease_expires = ?, started = ?"
      " WHERE id = (" + pick_sql(db_.skip_locked()) + ") RETURNING " + schema::kJobColumns);
  if (!up) return up.error();
  up->bind(1, runner).bind(2, int64_t{lease}).bind(3, now + lease).bind(4, now);
  auto updated = up->step();
  if (!updated) return updated.error();
  if (!*updated) return result;  // nothing queued
  Job job = schema::job_from_row(*up);
  BB_TRY(up->run());
  BB_TRY(notify_changed(job.id));
  BB_TRY(tx->commit());
  result.job = std::move(job);
  return result;
}

// PostgreSQL: the time, whether a running job's lease ran out by then, and
// the claim when none did, in one statement sent with BEGIN; then COMMIT
// and NOTIFY. Two round trips (three with the lease check alone first).
// nullopt when a lease had run out: nothing was claimed, and the caller
// ends the leases first.
Result<std::optional<ClaimResult>> QueueStore::claim_at_once(const std::string& runner, unsigned lease) {
  const bool server_clock = options_.database_clock;
  const std::string now_sql = schema::now_select(server_clock);
  auto tx = Transaction::begin(db_);
  if (!tx) return tx.error();
  auto st = db_.prepare(
      "WITH n AS (" + now_sql + " AS t),"
      " x AS (SELECT CASE WHEN EXISTS (SELECT 1 FROM jobs"
      " WHERE state = 'running' AND lease_expires < (SELECT t FROM n)) THEN 1 ELSE 0 END AS expired),"
      " c AS (UPDATE jobs SET state = 'running', runner = ?, lease_seconds = ?, lease_expires = (SELECT t FROM n) + ?,"
      " started = (SELECT t FROM n) WHERE (SELECT expired FROM x) = 0 AND id = (" + pick_sql(db_.skip_locked()) +
      ") RETURNING " + schema::kJobColumns + ")"
      " SELECT c.*, n.t, x.expired FROM n CROSS JOIN x LEFT JOIN c ON true");
  if (!st) return st.error();
  int n = 0;
  if (!server_clock) st->bind(++n, clock_->now_unix());
  st->bind(++n, runner);
  st->bind(++n, int64_t{lease});
  st->bind(++n, int64_t{lease});
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return make_error(Errc::internal, "a Claim's statement returned no row");
  if (st->column_int64(schema::kJobColumnCount + 1) != 0) return std::optional<ClaimResult>();
  ClaimResult result;
  if (st->column_is_null(0)) return std::optional<ClaimResult>(std::move(result));  // nothing queued
  Job job = schema::job_from_row(*st);
  BB_TRY(st->run());
  BB_TRY(notify_changed(job.id));
  BB_TRY(tx->commit());
  result.job = std::move(job);
  return std::optional<ClaimResult>(std::move(result));
}

}  // namespace bb::store
