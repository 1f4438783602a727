// One SQL database, two back ends: an embedded SQLite file (the default; one
// box) or a PostgreSQL server (a fleet of boxes sharing one queue). The
// stores above (queue, history, outbox) write one SQL dialect through this
// interface: `?` placeholders, INSERT ... RETURNING, ON CONFLICT, and the few
// dialect differences asked for by name (for_update(), skip_locked(),
// lock_writers(), notify()). Each migration carries the SQL for both.
//
// Errors are bb::Error values whose messages name the database and what the
// engine said: a full disk or an I/O error is Errc::io, a file that is not a
// database Errc::parse, a lost server or a lock wait Errc::unavailable, a
// constraint Errc::conflict.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::store {

enum class Backend { sqlite, postgresql };
const char* to_string(Backend b);

// Where a store lives: a SQLite file, or a PostgreSQL connection string
// (libpq's "key=value ..." or a postgresql:// URI).
struct Location {
  Backend backend = Backend::sqlite;
  std::string target;
  static Location sqlite(std::string path) { return {Backend::sqlite, std::move(path)}; }
  static Location postgresql(std::string conninfo) { return {Backend::postgresql, std::move(conninfo)}; }
};

// One back end's prepared statement. Bind indices are 1-based, columns
// 0-based; step() is true while there is a row.
class StatementImpl {
 public:
  virtual ~StatementImpl() = default;
  virtual void bind_int(int index, int64_t value) = 0;
  virtual void bind_text(int index, const std::string& value) = 0;
  virtual void bind_real(int index, double value) = 0;
  virtual void bind_null(int index) = 0;
  virtual Result<bool> step() = 0;
  // Steps until done, for a statement whose rows nobody reads. A back end
  // may send it later, with the transaction's next statement or its
  // COMMIT (PostgreSQL's pipeline); its error is then that one's.
  virtual Status run();
  virtual void reset() = 0;
  virtual int64_t column_int64(int column) const = 0;
  virtual std::string column_text(int column) const = 0;
  virtual double column_real(int column) const = 0;
  virtual bool column_is_null(int column) const = 0;
};

// One back end's connection.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Backend backend() const = 0;
  // The file, or "postgresql database NAME on HOST": what errors name.
  virtual const std::string& name() const = 0;
  virtual Result<std::unique_ptr<StatementImpl>> prepare(const std::string& sql) = 0;
  // One or more statements that return no rows.
  virtual Status exec(const std::string& sql) = 0;
  // Starts a write transaction: SQLite takes its write lock at once
  // (BEGIN IMMEDIATE); PostgreSQL locks rows as statements touch them.
  virtual Status begin() = 0;
  virtual bool in_transaction() const = 0;
  // Rows changed by the last INSERT/UPDATE/DELETE (sending what a
  // back end held back first).
  virtual int changes() = 0;
  // The schema version of `schema` (0 when never migrated) and its update,
  // inside the migration's transaction.
  virtual Result<int64_t> schema_version(const std::string& schema) = 0;
  virtual Status set_schema_version(const std::string& schema, int64_t version) = 0;
  // Serialises writers of `what` across every connection until the
  // transaction ends. SQLite's BEGIN IMMEDIATE already has: no-op there.
  virtual Status lock_writers(const std::string& what) = 0;
  // Sends `payload` on `channel` to every listener once the transaction
  // committed, never if it did not (PostgreSQL: a NOTIFY of its own right
  // after the COMMIT, postgres.cpp says why); SQLite has no listeners: no-op.
  virtual Status notify(const std::string& channel, const std::string& payload) = 0;
  // Keeps this store's tables apart from other stores' in one database
  // (PostgreSQL: a schema of that name, on the search path of this
  // connection and of every reconnection). A SQLite file is one store's.
  virtual Status use_namespace(const std::string& name) = 0;
  // Sends `statements` (this connection's, bound, not yet stepped) at once,
  // after what is held: PostgreSQL one pipeline, one round trip; each
  // statement's step() then reads its own rows. The server runs them in
  // order, each seeing the ones before. A back end without round trips
  // runs each at its step(): no-op.
  virtual Status send_together(const std::vector<StatementImpl*>& statements) {
    (void)statements;
    return {};
  }
};

class Statement {
 public:
  explicit Statement(std::unique_ptr<StatementImpl> impl) : impl_(std::move(impl)) {}

  Statement(Statement&&) = default;
  Statement& operator=(Statement&&) = default;

  Statement& bind(int index, int64_t value) { impl_->bind_int(index, value); return *this; }
  Statement& bind(int index, const std::string& value) { impl_->bind_text(index, value); return *this; }
  Statement& bind_null(int index) { impl_->bind_null(index); return *this; }
  // Not an overload of bind: bind(i, 0) would be ambiguous.
  Statement& bind_real(int index, double value) { impl_->bind_real(index, value); return *this; }

  Result<bool> step() { return impl_->step(); }
  // Steps until done; for statements whose rows nobody reads. Inside a
  // transaction PostgreSQL sends it with the next statement (or COMMIT):
  // an error may then come from that one, and the transaction is lost
  // all the same.
  Status run() { return impl_->run(); }
  void reset() { impl_->reset(); }

  int64_t column_int64(int column) const { return impl_->column_int64(column); }
  std::string column_text(int column) const { return impl_->column_text(column); }
  double column_real(int column) const { return impl_->column_real(column); }
  bool column_is_null(int column) const { return impl_->column_is_null(column); }

 private:
  friend class Database;
  std::unique_ptr<StatementImpl> impl_;
};

// A schema step: the SQL that moves the version from index to index+1, in
// SQLite's dialect and, where it differs, PostgreSQL's (nullptr: the same).
struct Migration {
  const char* description;
  const char* sql;
  const char* postgresql_sql = nullptr;
};

class Database {
 public:
  // A SQLite file (created if needed) in WAL mode with synchronous=FULL, so
  // a committed transaction survives a crash of the process or the machine.
  static Result<Database> open(const std::string& path);
  // A PostgreSQL database (libpq connection string or URI).
  static Result<Database> connect(const std::string& conninfo);
  static Result<Database> open(const Location& where);

  Backend backend() const { return conn_->backend(); }
  const std::string& name() const { return conn_->name(); }

  Result<Statement> prepare(const std::string& sql);
  Status exec(const std::string& sql) { return conn_->exec(sql); }
  int changes() { return conn_->changes(); }

  // Applies the migrations of `schema` whose index is >= its version, each
  // in its own transaction. A database written by a newer benchbox (version
  // larger than migrations.size()) is refused.
  Status migrate(const std::string& schema, const std::vector<Migration>& migrations);
  Result<int64_t> schema_version(const std::string& schema) { return conn_->schema_version(schema); }

  // Dialect: the suffix that locks the selected rows for this transaction
  // (PostgreSQL; SQLite's write lock covers the whole file already), and
  // the one that also skips rows another box has locked.
  const char* for_update() const;
  const char* skip_locked() const;
  Status lock_writers(const std::string& what) { return conn_->lock_writers(what); }
  Status notify(const std::string& channel, const std::string& payload) { return conn_->notify(channel, payload); }
  Status use_namespace(const std::string& name) { return conn_->use_namespace(name); }
  // Connection::send_together: bound statements sent at once (PostgreSQL).
  Status send_together(std::vector<Statement>& statements);

  Connection& connection() { return *conn_; }

  Database(Database&&) = default;
  Database& operator=(Database&&) = default;

 private:
  explicit Database(std::unique_ptr<Connection> conn) : conn_(std::move(conn)) {}
  std::unique_ptr<Connection> conn_;
};

// Begins a write transaction (Connection::begin); rolls it back on
// destruction unless commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> begin(Database& db);
  Status commit();
  ~Transaction();

  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;

 private:
  explicit Transaction(Database& db) : db_(&db) {}
  Database* db_;
};

// "INSERT INTO table (columns) VALUES (values) ON CONFLICT (keys) DO UPDATE
// SET c = excluded.c" for every other column: SQLite's INSERT OR REPLACE in
// the SQL both engines speak. `values` "" = one placeholder per column.
std::string upsert_sql(const std::string& table, const std::string& columns, const std::string& keys,
                       const std::string& values = "");

// PostgreSQL DDL from SQLite DDL written in the subset both share:
// INTEGER PRIMARY KEY AUTOINCREMENT -> BIGSERIAL PRIMARY KEY, INTEGER ->
// BIGINT (SQLite's integers are 64-bit), REAL -> DOUBLE PRECISION.
std::string postgresql_ddl(const std::string& sqlite_ddl);

// The back ends' constructors (sqlite.cpp, postgres.cpp).
Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path);
Result<std::unique_ptr<Connection>> connect_postgresql(const std::string& conninfo);

}  // namespace bb::store
