#include "notify/outbox.h"

#include "util/clock.h"
#include "util/json_text.h"

namespace bb::notify {

namespace {

// The notification is kept as notification.h's record (to_json without
// the box's name, which is the box's when it is sent).
const std::vector<store::Migration>& migrations() {
  static const std::vector<store::Migration> m = {
      {"items", R"(
CREATE TABLE items (
  key TEXT PRIMARY KEY,
  repository TEXT NOT NULL,
  destination TEXT NOT NULL,
  event TEXT NOT NULL,
  notification TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dropped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt INTEGER NOT NULL,
  first_queued INTEGER NOT NULL,
  last_error TEXT NOT NULL DEFAULT '',
  maybe_sent INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL
);
CREATE INDEX items_due ON items (state, next_attempt);
)"}};
  return m;
}

constexpr const char* kNow = "CAST(strftime('%s', 'now') AS INTEGER)";

Status set_state(store::Database& db, const std::string& key, const std::string& set) {
  auto st = db.prepare("UPDATE items SET " + set + ", updated = " + kNow + " WHERE key = ?1 AND state = 'pending'");
  if (!st) return st.error();
  st->bind(1, key);
  return st->run();
}

}  // namespace

std::string item_key(const std::string& repository, const std::string& destination, const std::string& id) {
  return repository + "/" + destination + "/" + id;
}

Result<Outbox> Outbox::open(const std::string& path) {
  auto db = store::Database::open(path);
  if (!db) return db.error();
  BB_TRY(db->migrate("notify-outbox", migrations()));
  return Outbox(std::move(*db));
}

Result<bool> Outbox::put(const std::string& repository, const std::string& destination, const Notification& n,
                         int64_t now) {
  BB_TRY(validate(n));
  auto st = db_.prepare(R"(
INSERT INTO items (key, repository, destination, event, notification, state, next_attempt, first_queued, updated)
VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6, ?6)
ON CONFLICT (key) DO NOTHING)");
  if (!st) return st.error();
  st->bind(1, item_key(repository, destination, n.id)).bind(2, repository).bind(3, destination).bind(4, n.event);
  st->bind(5, dump_json(to_json(n, ""))).bind(6, now);
  BB_TRY(st->run());
  return db_.changes() > 0;
}

Result<std::optional<OutboxItem>> Outbox::next_due(int64_t now) {
  for (;;) {
    auto st = db_.prepare(
        "SELECT key, repository, destination, notification, attempts, next_attempt, first_queued, last_error, "
        "maybe_sent FROM items WHERE state = 'pending' AND next_attempt <= ? "
        "ORDER BY next_attempt, first_queued, key LIMIT 1");
    if (!st) return st.error();
    st->bind(1, now);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<OutboxItem>();
    OutboxItem item;
    item.key = st->column_text(0);
    auto n = notification_from_json(nlohmann::json::parse(st->column_text(3), nullptr, false));
    if (!n) {
      st->reset();  // the read is over before the row is written
      BB_TRY(drop(item.key, "the stored notification cannot be read: " + n.error().message));
      continue;
    }
    item.repository = st->column_text(1);
    item.destination = st->column_text(2);
    item.notification = std::move(*n);
    item.attempts = st->column_int64(4);
    item.next_attempt = st->column_int64(5);
    item.first_queued = st->column_int64(6);
    item.last_error = st->column_text(7);
    item.maybe_sent = st->column_int64(8) != 0;
    return std::optional<OutboxItem>(std::move(item));
  }
}

Result<std::optional<int64_t>> Outbox::next_wakeup() {
  auto st = db_.prepare("SELECT min(next_attempt) FROM items WHERE state = 'pending'");
  if (!st) return st.error();
  auto row = st->step();
  if (!row) return row.error();
  if (!*row || st->column_is_null(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(st->column_int64(0));
}

Status Outbox::delivered(const std::string& key) {
  return set_state(db_, key, "state = 'delivered', last_error = ''");
}

Status Outbox::retry(const std::string& key, int64_t at, const std::string& error, bool maybe_sent) {
  // An earlier attempt's doubt stays until the item is delivered.
  auto st = db_.prepare(std::string(
      "UPDATE items SET attempts = attempts + 1, next_attempt = ?2, last_error = ?3, "
      "maybe_sent = (maybe_sent OR ?4), updated = ") + kNow + " WHERE key = ?1 AND state = 'pending'");
  if (!st) return st.error();
  st->bind(1, key).bind(2, at).bind(3, error).bind(4, int64_t{maybe_sent ? 1 : 0});
  return st->run();
}

Status Outbox::drop(const std::string& key, const std::string& error) {
  auto st = db_.prepare(std::string("UPDATE items SET state = 'dropped', last_error = ?2, updated = ") + kNow +
                        " WHERE key = ?1 AND state = 'pending'");
  if (!st) return st.error();
  st->bind(1, key).bind(2, error);
  return st->run();
}

Result<std::string> Outbox::state(const std::string& key) {
  auto st = db_.prepare("SELECT state FROM items WHERE key = ?");
  if (!st) return st.error();
  st->bind(1, key);
  auto row = st->step();
  if (!row) return row.error();
  return *row ? st->column_text(0) : std::string();
}

Result<OutboxCounts> Outbox::counts() {
  auto st = db_.prepare("SELECT state, count(*) FROM items GROUP BY state");
  if (!st) return st.error();
  OutboxCounts c;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return c;
    const std::string state = st->column_text(0);
    (state == "pending" ? c.pending : state == "delivered" ? c.delivered : c.dropped) = st->column_int64(1);
  }
}

Recorded judge(const OutboxItem& item, const Delivery& d, int64_t now, const github_api::RetryPolicy& policy) {
  Recorded r;
  r.kind = d.kind;
  r.error = d.error;
  if (d.kind != Delivery::Kind::retry) return r;
  if (now - item.first_queued > policy.give_up_seconds) {
    r.kind = Delivery::Kind::drop;
    r.error = "gave up after " + std::to_string(now - item.first_queued) + " s (first queued " +
              format_utc(item.first_queued) + "): " + d.error;
    return r;
  }
  r.retry_at = now + github_api::backoff_seconds(item.attempts, policy);
  r.maybe_sent = d.maybe_sent;
  return r;
}

Status record(Outbox& outbox, const OutboxItem& item, const Recorded& r) {
  switch (r.kind) {
    case Delivery::Kind::done: return outbox.delivered(item.key);
    case Delivery::Kind::retry: return outbox.retry(item.key, r.retry_at, r.error, r.maybe_sent);
    case Delivery::Kind::drop: return outbox.drop(item.key, r.error);
  }
  return {};
}

}  // namespace bb::notify
