#include "github_api/outbox.h"

#include "util/json_text.h"

namespace bb::github_api {

namespace {

// `version` counts put()s; `sent_version` is the last one GitHub showed.
// `last_put` is when the newest Want arrived: a Want put while an older one
// was being sent starts its own give-up clock then. Objects and notes
// outlive their item's state (done, dropped, pending again).
const std::vector<store::Migration>& migrations() {
  static const std::vector<store::Migration> m = {
      {"items, objects, notes", R"(
CREATE TABLE items (
  target TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  want TEXT NOT NULL,
  version INTEGER NOT NULL,
  sent_version INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'dropped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt INTEGER NOT NULL,
  first_queued INTEGER NOT NULL,
  last_put INTEGER NOT NULL,
  last_error TEXT NOT NULL DEFAULT '',
  outcome_unknown INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL
);
CREATE INDEX items_due ON items (state, next_attempt);
CREATE TABLE objects (
  target TEXT PRIMARY KEY,
  id INTEGER NOT NULL,
  html_url TEXT NOT NULL DEFAULT '',
  updated INTEGER NOT NULL
);
CREATE TABLE notes (
  target TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (target, key)
);
)"}};
  return m;
}

constexpr const char* kNow = "CAST(strftime('%s', 'now') AS INTEGER)";

}  // namespace

Result<Outbox> Outbox::open(const std::string& path) {
  auto db = store::Database::open(path);
  if (!db) return db.error();
  BB_TRY(db->migrate("outbox", migrations()));
  return Outbox(std::move(*db));
}

Status Outbox::put(const Want& want, int64_t now) {
  // SET expressions read the row as it was: a pending item keeps its
  // attempts and give-up clock, one done or dropped starts afresh.
  auto st = db_.prepare(std::string(R"(
INSERT INTO items (target, kind, want, version, state, attempts, next_attempt, first_queued, last_put, updated)
VALUES (?1, ?2, ?3, 1, 'pending', 0, ?4, ?4, ?4, ?4)
ON CONFLICT (target) DO UPDATE SET
  kind = excluded.kind,
  want = excluded.want,
  version = items.version + 1,
  attempts = CASE WHEN items.state = 'pending' THEN items.attempts ELSE 0 END,
  first_queued = CASE WHEN items.state = 'pending' THEN items.first_queued ELSE excluded.first_queued END,
  outcome_unknown = CASE WHEN items.state = 'done' THEN 0 ELSE items.outcome_unknown END,
  state = 'pending',
  next_attempt = excluded.next_attempt,
  last_put = excluded.last_put,
  updated = excluded.updated)"));
  if (!st) return st.error();
  st->bind(1, want.target).bind(2, std::string(kind_of(want))).bind(3, dump_json(to_json(want))).bind(4, now);
  return st->run();
}

Result<std::optional<OutboxItem>> Outbox::next_due(int64_t now) {
  for (;;) {
    auto st = db_.prepare(
        "SELECT target, want, version, attempts, next_attempt, first_queued, last_error, outcome_unknown "
        "FROM items WHERE state = 'pending' AND next_attempt <= ? "
        "ORDER BY next_attempt, first_queued, target LIMIT 1");
    if (!st) return st.error();
    st->bind(1, now);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<OutboxItem>();
    const std::string target = st->column_text(0);
    auto want = want_from_json(nlohmann::json::parse(st->column_text(1), nullptr, false));
    if (!want) {
      st->reset();  // the read is over before the row is written
      BB_TRY(drop(target, "the stored want cannot be read: " + want.error().message));
      continue;
    }
    OutboxItem item;
    item.want = std::move(*want);
    item.want.target = target;
    item.version = st->column_int64(2);
    item.attempts = st->column_int64(3);
    item.next_attempt = st->column_int64(4);
    item.first_queued = st->column_int64(5);
    item.last_error = st->column_text(6);
    item.outcome_unknown = st->column_int64(7) != 0;
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

Status Outbox::sent(const std::string& target, int64_t version, const PostedObject& object) {
  auto tx = store::Transaction::begin(db_);
  if (!tx) return tx.error();
  // id 0: nothing was posted (a comment that need not exist): nothing to remember.
  if (object.id != 0) BB_TRY(remember(target, object));
  auto st = db_.prepare(std::string(R"(
UPDATE items SET
  sent_version = ?2, attempts = 0, outcome_unknown = 0, last_error = '',
  state = CASE WHEN version <= ?2 THEN 'done' ELSE 'pending' END,
  first_queued = CASE WHEN version <= ?2 THEN first_queued ELSE last_put END,
  updated = )") + kNow + " WHERE target = ?1");
  if (!st) return st.error();
  st->bind(1, target).bind(2, version);
  BB_TRY(st->run());
  return tx->commit();
}

Status Outbox::doubt(const std::string& target) {
  auto st = db_.prepare(std::string("UPDATE items SET outcome_unknown = 1, updated = ") + kNow +
                        " WHERE target = ?1 AND state = 'pending'");
  if (!st) return st.error();
  st->bind(1, target);
  return st->run();
}

Status Outbox::retry(const std::string& target, int64_t at, const std::string& error, bool outcome_unknown) {
  // An earlier attempt's doubt stays until the target is sent.
  auto st = db_.prepare(std::string(
      "UPDATE items SET attempts = attempts + 1, next_attempt = ?2, last_error = ?3, "
      "outcome_unknown = (outcome_unknown OR ?4), updated = ") + kNow + " WHERE target = ?1 AND state = 'pending'");
  if (!st) return st.error();
  st->bind(1, target).bind(2, at).bind(3, error).bind(4, int64_t{outcome_unknown ? 1 : 0});
  return st->run();
}

Status Outbox::drop(const std::string& target, const std::string& error, int64_t version) {
  auto st = db_.prepare(std::string(R"(
UPDATE items SET
  state = CASE WHEN ?3 = 0 OR version <= ?3 THEN 'dropped' ELSE 'pending' END,
  attempts = CASE WHEN ?3 = 0 OR version <= ?3 THEN attempts ELSE 0 END,
  last_error = ?2,
  updated = )") + kNow + " WHERE target = ?1");
  if (!st) return st.error();
  st->bind(1, target).bind(2, error).bind(3, version);
  return st->run();
}

Result<std::optional<Want>> Outbox::wanted(const std::string& target) {
  auto st = db_.prepare("SELECT want FROM items WHERE target = ?");
  if (!st) return st.error();
  st->bind(1, target);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<Want>();
  auto w = want_from_json(nlohmann::json::parse(st->column_text(0), nullptr, false));
  if (!w) return std::optional<Want>();
  return std::optional<Want>(std::move(*w));
}

Result<std::optional<PostedObject>> Outbox::posted(const std::string& target) {
  auto st = db_.prepare("SELECT id, html_url FROM objects WHERE target = ?");
  if (!st) return st.error();
  st->bind(1, target);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<PostedObject>();
  return std::optional<PostedObject>(PostedObject{st->column_int64(0), st->column_text(1)});
}

Status Outbox::remember(const std::string& target, const PostedObject& object) {
  // A URL GitHub did not repeat (a PATCH reply without it) keeps the known one.
  auto st = db_.prepare(std::string(
      "INSERT INTO objects (target, id, html_url, updated) VALUES (?1, ?2, ?3, ") + kNow + ") "
      "ON CONFLICT (target) DO UPDATE SET id = excluded.id, updated = excluded.updated, "
      "html_url = CASE WHEN excluded.html_url != '' OR objects.id != excluded.id "
      "THEN excluded.html_url ELSE objects.html_url END");
  if (!st) return st.error();
  st->bind(1, target).bind(2, object.id).bind(3, object.html_url);
  return st->run();
}

Status Outbox::forget(const std::string& target) {
  auto st = db_.prepare("DELETE FROM objects WHERE target = ?");
  if (!st) return st.error();
  st->bind(1, target);
  return st->run();
}

Result<std::string> Outbox::note(const std::string& target, const std::string& key) {
  auto st = db_.prepare("SELECT value FROM notes WHERE target = ? AND key = ?");
  if (!st) return st.error();
  st->bind(1, target).bind(2, key);
  auto row = st->step();
  if (!row) return row.error();
  return *row ? st->column_text(0) : std::string();
}

Status Outbox::set_note(const std::string& target, const std::string& key, const std::string& value) {
  auto st = value.empty() ? db_.prepare("DELETE FROM notes WHERE target = ?1 AND key = ?2")
                          : db_.prepare("INSERT INTO notes (target, key, value) VALUES (?1, ?2, ?3) "
                                        "ON CONFLICT (target, key) DO UPDATE SET value = excluded.value");
  if (!st) return st.error();
  st->bind(1, target).bind(2, key);
  if (!value.empty()) st->bind(3, value);
  return st->run();
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
    (state == "pending" ? c.pending : state == "done" ? c.done : c.dropped) = st->column_int64(1);
  }
}

}  // namespace bb::github_api
