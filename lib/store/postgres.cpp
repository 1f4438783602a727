// The PostgreSQL back end of store::Database (libpq), and the LISTEN side of
// its notifications. Statements are sent with PQsendQueryParams (pg_call.h:
// never a wait without a deadline), parameters as
// text and typed by the server from their context, so the stores' SQL with
// `?` placeholders runs unchanged once they are numbered ($1, $2, ...).
//
// Inside a transaction, what nobody waits on (BEGIN, a lock, a
// statement only run()) is held back and sent in one pipeline with the
// next statement whose rows are read, or with COMMIT: each round trip to
// the server is paid once for several statements. An Enqueue was ten
// round trips; it is three (queue_store.cpp asks its lookups in one).
//
// A notification goes after the COMMIT it belongs to, in the same
// pipeline, as a transaction of its own that does not wait for its WAL
// flush. A NOTIFY inside the transaction would take PostgreSQL's
// database-wide notification lock at commit and hold it across the flush
// (async.c: queue entries in commit order), so every box's commits would
// wait in one line, never sharing a flush: three boxes claimed at 0.7 of
// what they claim without NOTIFY.
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "store/database.h"
#include "store/listener.h"
#include "store/pg_call.h"
#include "util/text.h"

namespace bb::store {

// Outside the anonymous namespace: Listener::Impl (a type with linkage) holds
// one, and a unity build would warn that its member's type has none.
struct PgFinish {
  void operator()(PGconn* c) const { PQfinish(c); }
};

namespace {

struct PgClear {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, PgClear>;

std::string trim_newline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// `?` -> `$n`, outside quoted strings and identifiers.
std::string number_placeholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  char quote = 0;
  int n = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$' + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

Errc errc_for(const std::string& state) {
  if (state.empty()) return Errc::unavailable;  // no reply: the connection is gone
  std::string cls = state.substr(0, 2);
  if (cls == "23") return Errc::conflict;
  if (state == "53100" || cls == "58") return Errc::io;
  if (cls == "08" || cls == "40" || cls == "53" || cls == "57" || state == "55P03") return Errc::unavailable;
  if (cls == "28") return Errc::permission_denied;
  return Errc::internal;
}

// libpq's parameter array: each value's text, or null for SQL NULL.
std::vector<const char*> param_values(const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  return values;
}

// The session lost its prepared statements (SQLSTATE 26000: a pooler in
// transaction mode hands each transaction another session).
bool statements_lost(const PGresult* r) {
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  return state && std::string(state) == "26000";
}

// Rows an INSERT/UPDATE/DELETE changed, from its result.
int rows_changed(PGresult* r) {
  const char* n = PQcmdTuples(r);
  return n && *n ? std::atoi(n) : 0;
}

// FNV-1a: a stable 64-bit key for pg_advisory_xact_lock from a name.
int64_t lock_key(const std::string& what) {
  return static_cast<int64_t>(fnv1a64(what));
}

// Defaults first: what the connection string says overrides them.
// A database that goes away must not hold a daemon's event loop past a
// fraction of its watchdog (30 s): connecting gives up after 5 s; the
// server ends a statement after 8 s or a lock wait after 4 s (pg_call.h
// waits 10 s for any answer); TCP keepalives find a half-open idle
// connection (a LISTEN) in about 25 s, and tcp_user_timeout a link that
// stopped acknowledging in 10 s.
Result<std::unique_ptr<PGconn, PgFinish>> open_connection(const std::string& conninfo) {
  const char* keys[] = {"connect_timeout", "keepalives",  "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "tcp_user_timeout", "options", "client_encoding",
                        "fallback_application_name", "dbname", nullptr};
  const char* values[] = {"5", "1", "10", "5", "3", "10000",
                          "-c statement_timeout=8s -c lock_timeout=4s -c idle_in_transaction_session_timeout=60s",
                          "UTF8", "benchbox", conninfo.c_str(), nullptr};
  std::unique_ptr<PGconn, PgFinish> conn(PQconnectdbParams(keys, values, 1));
  if (!conn) return make_error(Errc::internal, "libpq could not allocate a connection");
  // NOTICEs ("relation already exists, skipping") are not errors, and
  // libpq's default prints them on stderr, which is a daemon's journal.
  PQsetNoticeProcessor(conn.get(), [](void*, const char*) {}, nullptr);
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return make_error(Errc::unavailable,
                      "cannot connect to PostgreSQL: " + trim_newline(PQerrorMessage(conn.get())) +
                          " (the connection string comes from the credential 'postgresql'; docs/fleet.md)");
  // Every call waits with poll() and a deadline (pg_call.h).
  if (PQsetnonblocking(conn.get(), 1) != 0) return make_error(Errc::internal, "cannot make the connection non-blocking");
  return conn;
}

class PgConnection;

class PgStatement final : public StatementImpl {
 public:
  PgStatement(PgConnection& conn, std::string sql) : conn_(&conn), sql_(std::move(sql)) {}

  void bind_int(int index, int64_t value) override { set(index, std::to_string(value)); }
  void bind_text(int index, const std::string& value) override { set(index, value); }
  void bind_real(int index, double value) override {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    set(index, ec == std::errc() ? std::string(buf, end) : std::string("0"));
  }
  void bind_null(int index) override { slot(index).reset(); }
  Result<bool> step() override;
  Status run() override;
  // send_together's side: what to send, and its answer for step() to read.
  const std::string& sql() const { return sql_; }
  const std::vector<std::optional<std::string>>& params() const { return params_; }
  PgConnection* connection() const { return conn_; }
  void set_result(PgResult r) {
    result_ = std::move(r);
    row_ = -1;
  }
  void reset() override {
    result_.reset();
    row_ = -1;
    params_.clear();
  }
  int64_t column_int64(int column) const override {
    const char* v = value(column);
    return v ? std::strtoll(v, nullptr, 10) : 0;
  }
  double column_real(int column) const override {
    const char* v = value(column);
    return v ? std::strtod(v, nullptr) : 0.0;
  }
  std::string column_text(int column) const override {
    const char* v = value(column);
    return v ? std::string(v, static_cast<size_t>(PQgetlength(result_.get(), row_, column))) : std::string();
  }
  bool column_is_null(int column) const override {
    return !result_ || PQgetisnull(result_.get(), row_, column);
  }

 private:
  std::optional<std::string>& slot(int index) {
    if (params_.size() < static_cast<size_t>(index)) params_.resize(static_cast<size_t>(index));
    return params_[static_cast<size_t>(index - 1)];
  }
  void set(int index, std::string v) { slot(index) = std::move(v); }
  const char* value(int column) const {
    if (!result_ || row_ < 0 || PQgetisnull(result_.get(), row_, column)) return nullptr;
    return PQgetvalue(result_.get(), row_, column);
  }

  PgConnection* conn_;
  std::string sql_;
  std::vector<std::optional<std::string>> params_;
  PgResult result_;
  int row_ = -1;
};

class PgConnection final : public Connection {
 public:
  explicit PgConnection(std::unique_ptr<PGconn, PgFinish> conn) : conn_(std::move(conn)) {
    name_ = std::string("postgresql database '") + PQdb(conn_.get()) + "' on " + PQhost(conn_.get()) + ":" +
            PQport(conn_.get());
  }

  Backend backend() const override { return Backend::postgresql; }
  const std::string& name() const override { return name_; }

  Result<std::unique_ptr<StatementImpl>> prepare(const std::string& sql) override {
    return std::unique_ptr<StatementImpl>(new PgStatement(*this, number_placeholders(sql)));
  }

  Status exec(const std::string& sql) override {
    BB_TRY(take_deferred_error());
    const bool ends = sql == "COMMIT" || sql == "ROLLBACK";
    if (ends && begin_held()) {
      // Nothing of the transaction reached the server: nothing to end.
      // (A COMMIT of held statements sends them all, BEGIN first.)
      if (sql == "ROLLBACK") return drop_held();
      if (pending_.size() == 1) {
        // Committed, having changed nothing: what it would tell goes alone.
        std::vector<Told> told;
        told.swap(told_);
        BB_TRY(drop_held());
        for (const Told& t : told) BB_TRY(notify(t.channel, t.payload));
        return {};
      }
    }
    if (sql == "ROLLBACK") {  // never to run, never to be told
      pending_.clear();
      told_.clear();
    }
    if (ends && PQstatus(conn_.get()) != CONNECTION_OK) {
      // The server rolled the transaction back when the connection went.
      pending_.clear();
      told_.clear();
      in_tx_ = false;
      return make_error(Errc::unavailable, name_ + ": the connection was lost inside a transaction; "
                                               "nothing of it was committed");
    }
    if (sql == "COMMIT" && (!pending_.empty() || !told_.empty())) {
      // The held statements, the COMMIT and what it tells: one round
      // trip. One that fails leaves the transaction open and failed;
      // Transaction's destructor rolls it back (in_transaction()).
      auto r = send_held(sql, {});
      in_tx_ = false;
      return r ? Status{} : Status(r.error());
    }
    if (!pending_.empty()) BB_TRY(send_held());
    BB_TRY(ensure_connected());
    auto r = pg::call(conn_.get(), sql, nullptr);
    if (ends) in_tx_ = false;
    if (!r) return r.error().with_context(name_);
    PgResult owned(*r);
    return check(owned.get(), "exec '" + sql.substr(0, 60) + "'");
  }

  // BEGIN waits for the transaction's first statement (pipelined with it).
  Status begin() override {
    BB_TRY(take_deferred_error());
    if (!pending_.empty()) BB_TRY(send_held());
    // A lost connection is mended now, while nothing is lost with it.
    BB_TRY(ensure_connected());
    pending_.push_back(Held{"", "BEGIN", {}});
    in_tx_ = true;
    return {};
  }
  bool in_transaction() const override {
    return begin_held() || PQtransactionStatus(conn_.get()) != PQTRANS_IDLE;
  }
  // The count is the last statement's: what is held is sent first. An
  // error then is the next call's (this one returns a count only).
  int changes() override {
    if (!pending_.empty() && !deferred_error_) {
      if (auto sent = send_held(); !sent) {
        deferred_error_ = sent.error();
        return 0;
      }
    }
    return changes_;
  }

  // Inside a transaction, a statement only run() waits for the next one
  // that is sent (its error is then reported there).
  Status run_later(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    BB_TRY(take_deferred_error());
    if (!in_tx_ || pending_.size() >= kMaxHeld) {
      auto r = run(sql, params);
      return r ? Status{} : Status(r.error());
    }
    auto name = prepared(sql, static_cast<int>(params.size()));
    if (!name) return name.error();
    pending_.push_back(Held{*name, sql, params});
    return {};
  }

  Status send_together(const std::vector<StatementImpl*>& statements) override {
    BB_TRY(take_deferred_error());
    if (statements.empty()) return {};
    BB_TRY(ensure_connected());
    std::vector<Held> tail;
    std::vector<PgStatement*> mine;
    for (StatementImpl* impl : statements) {
      auto* st = static_cast<PgStatement*>(impl);
      if (st->connection() != this) return make_error(Errc::internal, "send_together: another connection's statement");
      auto name = prepared(st->sql(), static_cast<int>(st->params().size()));
      if (!name) return name.error();
      tail.push_back(Held{*name, st->sql(), st->params()});
      mine.push_back(st);
    }
    auto results = send_pipeline(std::move(tail), false);
    if (!results) return results.error();
    for (size_t i = 0; i < mine.size(); ++i) mine[i]->set_result(std::move((*results)[i]));
    return {};
  }

  // One table holds every schema's version, so the queue and the history
  // can share a database.
  Result<int64_t> schema_version(const std::string& schema) override {
    BB_TRY(exec("CREATE TABLE IF NOT EXISTS benchbox_schema (name TEXT PRIMARY KEY, version BIGINT NOT NULL)"));
    auto st = prepare("SELECT version FROM benchbox_schema WHERE name = ?");
    (*st)->bind_text(1, schema);
    auto row = (*st)->step();
    if (!row) return row.error();
    return *row ? (*st)->column_int64(0) : 0;
  }
  Status set_schema_version(const std::string& schema, int64_t version) override {
    auto st = prepare(
        "INSERT INTO benchbox_schema (name, version) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET version = excluded.version");
    (*st)->bind_text(1, schema);
    (*st)->bind_int(2, version);
    return Statement(std::move(*st)).run();
  }
  Status lock_writers(const std::string& what) override {
    auto st = prepare("SELECT pg_advisory_xact_lock(?::bigint)");
    (*st)->bind_int(1, lock_key(what));
    return Statement(std::move(*st)).run();
  }
  // Inside a transaction: told after its COMMIT (see the top of this
  // file); outside one, now, without waiting for the flush either.
  Status notify(const std::string& channel, const std::string& payload) override {
    BB_TRY(take_deferred_error());
    if (in_tx_) {
      Told t{channel, payload};
      // NOTIFY's own rule: one of several identical ones in a transaction is delivered.
      if (std::find(told_.begin(), told_.end(), t) == told_.end()) told_.push_back(std::move(t));
      return {};
    }
    auto r = run(kNotifySql, {channel, payload});
    return r ? Status{} : Status(r.error());
  }

  // `name` is ours (a constant of the store), quoted all the same.
  Status use_namespace(const std::string& name) override {
    char* quoted = PQescapeIdentifier(conn_.get(), name.c_str(), name.size());
    if (!quoted) return make_error(Errc::internal, "cannot quote schema name " + name);
    std::string q = quoted;
    PQfreemem(quoted);
    // Two boxes starting at once would race IF NOT EXISTS into a unique
    // violation: one creates while the other waits for the lock.
    BB_TRY(begin());
    Status made = lock_writers("namespace " + name);
    if (made) made = exec("CREATE SCHEMA IF NOT EXISTS " + q);
    if (made) made = exec("COMMIT");
    if (!made) {
      (void)exec("ROLLBACK");
      return made;
    }
    search_path_ = "SET search_path TO " + q;
    return exec(search_path_);
  }

  Result<PgResult> run(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    BB_TRY(take_deferred_error());
    if (!pending_.empty()) return send_held(sql, params);
    BB_TRY(ensure_connected());
    const std::vector<const char*> values = param_values(params);
    auto name = prepared(sql, static_cast<int>(params.size()));
    if (!name) return name.error();
    auto sent = name->empty() ? pg::call(conn_.get(), sql, &values) : pg::call_prepared(conn_.get(), *name, values);
    if (!sent) return sent.error().with_context(name_ + ": '" + sql.substr(0, 60) + "'");
    PgResult r(*sent);
    // The session lost its statements (a pooler in transaction mode hands
    // each transaction another one): forget them; outside a transaction
    // the statement is sent again unnamed.
    if (statements_lost(r.get())) {
      prepared_.clear();
      if (!in_tx_) {
        auto again = pg::call(conn_.get(), sql, &values);
        if (!again) return again.error().with_context(name_ + ": '" + sql.substr(0, 60) + "'");
        r.reset(*again);
      }
    }
    BB_TRY(check(r.get(), "'" + sql.substr(0, 60) + "'"));
    changes_ = rows_changed(r.get());
    return r;
  }

 private:
  // A statement held back until the next one is sent (name "": unnamed).
  struct Held {
    std::string name;
    std::string sql;
    std::vector<std::optional<std::string>> params;
  };

  // BEGIN is held, not yet sent: nothing of the transaction reached the
  // server (begin() sends what was held before it holds BEGIN).
  bool begin_held() const {
    return !pending_.empty() && pending_.front().name.empty() && pending_.front().sql == "BEGIN";
  }

  Status take_deferred_error() {
    if (!deferred_error_) return {};
    Error e = std::move(*deferred_error_);
    deferred_error_.reset();
    return e;
  }

  // Ends a transaction that never reached the server.
  Status drop_held() {
    pending_.clear();
    told_.clear();
    in_tx_ = false;
    return {};
  }

  // A notification told once its transaction committed.
  struct Told {
    std::string channel, payload;
    bool operator==(const Told&) const = default;
  };
  // Its own transaction (implicit: the pipeline's Sync ends it), whose
  // commit does not wait for the WAL flush: the database-wide lock NOTIFY
  // takes at commit is held for microseconds, not a disk write.
  static constexpr const char* kNotifySql = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)";

  // Sends the held statements, then `sql` (when given) in one pipeline,
  // and returns the last one's result. The first that failed is the error.
  Result<PgResult> send_held(const std::optional<std::string>& sql = std::nullopt,
                             const std::vector<std::optional<std::string>>& params = {}) {
    std::vector<Held> tail;
    if (sql) {
      std::string name;
      // COMMIT and ROLLBACK are sent unnamed, as BEGIN is.
      if (*sql != "COMMIT") {
        auto n = prepared(*sql, static_cast<int>(params.size()));
        if (!n) return n.error();
        name = *n;
      }
      tail.push_back(Held{name, *sql, params});
    }
    const bool commit = sql && *sql == "COMMIT";
    if (tail.empty() && pending_.empty()) return make_error(Errc::internal, "nothing held to send");
    if (tail.empty()) {
      // The last held statement is the one whose result is returned.
      tail.push_back(std::move(pending_.back()));
      pending_.pop_back();
    }
    auto results = send_pipeline(std::move(tail), commit);
    if (!results) return results.error();
    return std::move(results->back());
  }

  // Sends the held statements, then `tail`, in one pipeline (with `commit`,
  // the tail's last is the COMMIT, and what the transaction tells follows
  // it), and returns the tail's results. The first that failed is the error.
  Result<std::vector<PgResult>> send_pipeline(std::vector<Held> tail, bool commit) {
    std::vector<Held> held;
    held.swap(pending_);
    std::vector<Told> told;
    if (commit) told.swap(told_);
    // (A connection lost before BEGIN went is mended by the next
    // transaction's begin(), as one lost between transactions is.)
    if (PQstatus(conn_.get()) != CONNECTION_OK)
      return make_error(Errc::unavailable, name_ + ": the connection was lost inside a transaction; "
                                               "nothing of it was committed");
    const size_t first = held.size();
    for (Held& h : tail) held.push_back(std::move(h));
    // After the COMMIT, in the same pipeline: skipped by the server if
    // anything before them failed, as the transaction is then not committed.
    const size_t last = held.size() - 1;
    for (Told& t : told) {
      auto n = prepared(kNotifySql, 2);
      if (!n) return n.error();
      held.push_back(Held{*n, kNotifySql, {std::move(t.channel), std::move(t.payload)}});
    }
    std::vector<pg::Query> queries;
    queries.reserve(held.size());
    for (const Held& h : held) queries.push_back(pg::Query{h.name, h.sql, param_values(h.params)});
    auto sent = pg::pipeline(conn_.get(), queries);
    if (!sent) return sent.error().with_context(name_ + ": '" + held[last].sql.substr(0, 60) + "'");
    std::vector<PgResult> results;
    for (PGresult* r : *sent) results.emplace_back(r);
    for (size_t i = 0; i < results.size(); ++i) {
      PGresult* r = results[i].get();
      if (PQresultStatus(r) == PGRES_PIPELINE_ABORTED) continue;  // after the failed one
      if (statements_lost(r)) prepared_.clear();  // made again as they are next used
      // A notification that fails once its transaction committed is lost,
      // as every notification is when the server restarts (they are not
      // durable); the change itself stands.
      if (i > last) continue;
      BB_TRY(check(r, "'" + held[i].sql.substr(0, 60) + "'"));
    }
    changes_ = rows_changed(results[last].get());
    results.resize(last + 1);
    return std::vector<PgResult>(std::make_move_iterator(results.begin() + static_cast<std::ptrdiff_t>(first)),
                                 std::make_move_iterator(results.end()));
  }

  // The server-side name `sql` is prepared under on this connection, made
  // now if it is new: the server then parses and plans each statement
  // once per connection, not once per call (five to eight per Enqueue).
  // "" past kMaxPrepared statements: sent unnamed, as before.
  Result<std::string> prepared(const std::string& sql, int params) {
    if (auto it = prepared_.find(sql); it != prepared_.end()) return it->second;
    if (prepared_.size() >= kMaxPrepared) return std::string();
    std::string name = "bb_" + std::to_string(prepared_.size() + 1);
    auto made = pg::prepare(conn_.get(), name, sql, params);
    if (!made) return made.error().with_context(name_ + ": prepare '" + sql.substr(0, 60) + "'");
    PgResult r(*made);
    BB_TRY(check(r.get(), "prepare '" + sql.substr(0, 60) + "'"));
    prepared_.emplace(sql, name);
    return name;
  }

  // A server restart or a dropped connection is mended between
  // transactions; inside one, the transaction is lost and says so.
  Status ensure_connected() {
    if (PQstatus(conn_.get()) == CONNECTION_OK) return {};
    // Reconnecting inside a transaction would run its remaining statements
    // outside it, committed one by one.
    if (in_tx_)
      return make_error(Errc::unavailable, name_ + ": the connection was lost inside a transaction; "
                                               "nothing of it was committed");
    PQreset(conn_.get());
    prepared_.clear();  // a new session has none
    if (PQstatus(conn_.get()) != CONNECTION_OK)
      return make_error(Errc::unavailable, name_ + ": connection lost and not re-established: " +
                                               trim_newline(PQerrorMessage(conn_.get())));
    if (PQsetnonblocking(conn_.get(), 1) != 0) return make_error(Errc::internal, "cannot make the connection non-blocking");
    if (!search_path_.empty()) {
      auto r = pg::call(conn_.get(), search_path_, nullptr);
      if (!r) return r.error().with_context(name_);
      PgResult owned(*r);
      BB_TRY(check(owned.get(), search_path_));
    }
    return {};
  }

  Status check(PGresult* r, const std::string& what) {
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return {};
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    std::string code = state ? state : "";
    std::string msg = name_ + ": " + what + ": " +
                      trim_newline(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_.get()));
    if (code == "53100") msg += " (the server's disk is full; nothing from this request was stored)";
    return make_error(errc_for(code), msg);
  }

  std::unique_ptr<PGconn, PgFinish> conn_;
  std::string name_;
  std::string search_path_;  // "" = the server's default
  bool in_tx_ = false;       // between begin() and COMMIT/ROLLBACK
  // Held statements: a pipeline of at most this many, then they are sent.
  static constexpr size_t kMaxHeld = 64;
  std::vector<Held> pending_;
  std::vector<Told> told_;  // notifications of the open transaction
  std::optional<Error> deferred_error_;  // from changes(), for the next call
  static constexpr size_t kMaxPrepared = 256;
  std::unordered_map<std::string, std::string> prepared_;  // SQL -> its name on this session
  int changes_ = 0;
};

Result<bool> PgStatement::step() {
  if (!result_) {
    auto r = conn_->run(sql_, params_);
    if (!r) return r.error();
    result_ = std::move(*r);
    row_ = -1;
  }
  if (row_ + 1 >= PQntuples(result_.get())) return false;
  ++row_;
  return true;
}

// A statement already stepped is only read to its end, never sent again.
Status PgStatement::run() {
  if (result_) return StatementImpl::run();
  return conn_->run_later(sql_, params_);
}

}  // namespace

Result<std::unique_ptr<Connection>> connect_postgresql(const std::string& conninfo) {
  auto conn = open_connection(conninfo);
  if (!conn) return conn.error();
  return std::unique_ptr<Connection>(new PgConnection(std::move(*conn)));
}

// Listener ------------------------------------------------------------------

struct Listener::Impl {
  std::unique_ptr<PGconn, PgFinish> conn;
};

Listener::Listener() = default;
Listener::~Listener() = default;
Listener::Listener(Listener&&) noexcept = default;
Listener& Listener::operator=(Listener&&) noexcept = default;

Result<Listener> Listener::listen(const std::string& conninfo, const std::string& channel) {
  auto conn = open_connection(conninfo);
  if (!conn) return conn.error();
  // The channel is our own constant, quoted as an identifier all the same.
  char* quoted = PQescapeIdentifier(conn->get(), channel.c_str(), channel.size());
  if (!quoted) return make_error(Errc::internal, "cannot quote channel " + channel);
  std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  auto sent = pg::call(conn->get(), sql, nullptr);
  if (!sent) return sent.error().with_context("LISTEN " + channel);
  PgResult r(*sent);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
    return make_error(Errc::unavailable, "LISTEN " + channel + ": " + trim_newline(PQresultErrorMessage(r.get())));
  Listener l;
  l.impl_ = std::make_unique<Impl>();
  l.impl_->conn = std::move(*conn);
  return l;
}

int Listener::fd() const { return impl_ ? PQsocket(impl_->conn.get()) : -1; }

Result<std::vector<std::string>> Listener::drain() {
  std::vector<std::string> out;
  PGconn* c = impl_->conn.get();
  if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK)
    return make_error(Errc::unavailable, "the listening connection to PostgreSQL was lost: " +
                                             trim_newline(PQerrorMessage(c)));
  while (PGnotify* n = PQnotifies(c)) {
    out.emplace_back(n->extra ? n->extra : "");
    PQfreemem(n);
  }
  return out;
}

}  // namespace bb::store
