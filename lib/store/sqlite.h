// SQLite RAII: a Database (one connection), Statements with bind/step/column
// helpers, Transactions that roll back unless committed, and schema
// migrations keyed on PRAGMA user_version. Errors are bb::Error values whose
// messages name the database file and what SQLite said; a full disk or an
// I/O error maps to Errc::io, a file that is not a database to Errc::parse.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::store {

struct SqliteClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct SqliteFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

class Database;

// One prepared statement. Bind indices are 1-based like SQLite's; columns
// are 0-based. step() returns true while there is a row.
class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, const std::string& value);
  Statement& bind_null(int index);
  // Not an overload of bind: bind(i, 0) would be ambiguous.
  Statement& bind_real(int index, double value);

  Result<bool> step();
  // Steps until done; for statements that return no rows.
  Status run();
  void reset();

  int64_t column_int64(int column) const;
  std::string column_text(int column) const;
  double column_real(int column) const;
  bool column_is_null(int column) const;

 private:
  Database* db_;
  std::unique_ptr<sqlite3_stmt, SqliteFinalize> stmt_;
  // A bind error is reported by the next step(), so bind() can chain.
  int bind_error_ = SQLITE_OK;
};

// A schema step: the SQL that moves user_version from index to index+1.
struct Migration {
  const char* description;
  const char* sql;
};

class Database {
 public:
  // Opens (creating if needed) a database file in WAL mode with
  // synchronous=FULL, so a committed transaction survives a crash of the
  // process or the machine. Fails with a clear message if the file is not a
  // SQLite database.
  static Result<Database> open(const std::string& path);

  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_.get(); }

  Result<Statement> prepare(const std::string& sql);
  // Runs one or more statements that return no rows.
  Status exec(const std::string& sql);

  // Applies the migrations whose index is >= user_version, each in its own
  // transaction. A file written by a newer benchbox (user_version larger
  // than migrations.size()) is refused.
  Status migrate(const std::vector<Migration>& migrations);
  Result<int64_t> user_version();

  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_.get()); }
  int changes() const { return sqlite3_changes(db_.get()); }

  // An error for SQLite result code `rc`, naming the file and `what`.
  Error error(int rc, const std::string& what) const;

  Database(Database&&) = default;
  Database& operator=(Database&&) = default;

 private:
  Database() = default;
  std::string path_;
  std::unique_ptr<sqlite3, SqliteClose> db_;
};

// BEGIN IMMEDIATE on construction (so a writer never has to upgrade a read
// lock), ROLLBACK on destruction unless commit() succeeded.
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

}  // namespace bb::store
