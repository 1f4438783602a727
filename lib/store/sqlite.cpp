// The SQLite back end of store::Database: one connection to one file.
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/database.h"
#include "util/fd.h"

namespace bb::store {

namespace {

struct SqliteClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

// Idle prepared statements by their SQL, which prepare() hands out again: a
// daemon runs the same few dozen statements over and over, and preparing
// one costs about as much as running a small one. Shared with the
// statements, so that one destroyed after its connection is finalized
// rather than returned.
class StatementCache {
 public:
  static constexpr size_t kMaxIdle = 64;

  sqlite3_stmt* take(const std::string& sql) {
    auto it = idle_.find(sql);
    if (it == idle_.end() || it->second.empty()) return nullptr;
    sqlite3_stmt* s = it->second.back();
    it->second.pop_back();
    --count_;
    return s;
  }
  // Reset and without its bindings, as prepare() would make it.
  void give(std::string sql, sqlite3_stmt* s) {
    if (closed_ || count_ >= kMaxIdle) {
      sqlite3_finalize(s);
      return;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    idle_[std::move(sql)].push_back(s);
    ++count_;
  }
  // The connection is closing: every idle statement goes now, any other as
  // its Statement does.
  void close() {
    for (auto& [sql, list] : idle_)
      for (sqlite3_stmt* s : list) sqlite3_finalize(s);
    idle_.clear();
    count_ = 0;
    closed_ = true;
  }

 private:
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> idle_;
  size_t count_ = 0;
  bool closed_ = false;
};

Errc errc_for(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Errc::io;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return Errc::parse;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Errc::unavailable;
    case SQLITE_CONSTRAINT:
      return Errc::conflict;
    default:
      return Errc::internal;
  }
}

// Makes the directory entry of a freshly created database durable: SQLite
// syncs file contents but not the directory that names the file.
void sync_parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) (void)::fsync(fd.get());
}

class SqliteConnection;

class SqliteStatement final : public StatementImpl {
 public:
  SqliteStatement(SqliteConnection& conn, std::shared_ptr<StatementCache> cache, std::string sql, sqlite3_stmt* stmt)
      : conn_(&conn), cache_(std::move(cache)), sql_(std::move(sql)), stmt_(stmt) {}
  ~SqliteStatement() override { cache_->give(std::move(sql_), stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void bind_int(int index, int64_t value) override { note(sqlite3_bind_int64(stmt_, index, value)); }
  void bind_real(int index, double value) override { note(sqlite3_bind_double(stmt_, index, value)); }
  void bind_text(int index, const std::string& value) override {
    note(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
  }
  void bind_null(int index) override { note(sqlite3_bind_null(stmt_, index)); }
  Result<bool> step() override;
  void reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind_error_ = SQLITE_OK;
  }
  int64_t column_int64(int column) const override { return sqlite3_column_int64(stmt_, column); }
  double column_real(int column) const override { return sqlite3_column_double(stmt_, column); }
  std::string column_text(int column) const override {
    const unsigned char* text = sqlite3_column_text(stmt_, column);
    int n = sqlite3_column_bytes(stmt_, column);
    return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n)) : std::string();
  }
  bool column_is_null(int column) const override { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  // A bind error is reported by the next step(), so bind() can chain.
  void note(int rc) {
    if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  }
  SqliteConnection* conn_;
  std::shared_ptr<StatementCache> cache_;
  std::string sql_;
  sqlite3_stmt* stmt_;  // owned: back to the cache, or finalized, when this goes
  int bind_error_ = SQLITE_OK;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(std::string path) : path_(std::move(path)) {}
  ~SqliteConnection() override { cache_->close(); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Status open();
  Backend backend() const override { return Backend::sqlite; }
  const std::string& name() const override { return path_; }

  Result<std::unique_ptr<StatementImpl>> prepare(const std::string& sql) override {
    sqlite3_stmt* raw = cache_->take(sql);
    if (!raw) {
      int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
      if (rc != SQLITE_OK) {
        sqlite3_finalize(raw);
        return error(rc, "prepare '" + sql.substr(0, 60) + "'");
      }
    }
    return std::unique_ptr<StatementImpl>(new SqliteStatement(*this, cache_, sql, raw));
  }

  Status exec(const std::string& sql) override {
    char* msg = nullptr;
    int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &msg);
    sqlite3_free(msg);
    if (rc != SQLITE_OK) return error(rc, "exec '" + sql.substr(0, 60) + "'");
    return {};
  }

  // IMMEDIATE: a writer never has to upgrade a read lock.
  Status begin() override { return exec("BEGIN IMMEDIATE"); }
  bool in_transaction() const override { return !sqlite3_get_autocommit(db_.get()); }
  int changes() override { return sqlite3_changes(db_.get()); }

  // One schema per file: PRAGMA user_version.
  Result<int64_t> schema_version(const std::string&) override {
    auto st = prepare("PRAGMA user_version");
    if (!st) return st.error();
    auto row = (*st)->step();
    if (!row) return row.error();
    return *row ? (*st)->column_int64(0) : 0;
  }
  Status set_schema_version(const std::string&, int64_t version) override {
    // PRAGMA takes no bound parameters; version is our own integer.
    return exec("PRAGMA user_version=" + std::to_string(version));
  }
  Status lock_writers(const std::string&) override { return {}; }
  Status notify(const std::string&, const std::string&) override { return {}; }
  Status use_namespace(const std::string&) override { return {}; }

  // An error for SQLite result code `rc`, naming the file and `what`.
  Error error(int rc, const std::string& what) const {
    std::string detail = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
    std::string msg = path_ + ": " + what + ": " + detail;
    switch (rc & 0xff) {
      case SQLITE_FULL: msg += " (the disk or the database is full; nothing from this request was stored)"; break;
      case SQLITE_IOERR: msg += " (I/O error; nothing from this request was stored)"; break;
      case SQLITE_NOTADB:
      case SQLITE_CORRUPT: msg += " (the file is not a usable SQLite database; move it aside to start afresh)"; break;
      default: break;
    }
    return make_error(errc_for(rc), msg);
  }

 private:
  std::string path_;
  std::unique_ptr<sqlite3, SqliteClose> db_;
  std::shared_ptr<StatementCache> cache_ = std::make_shared<StatementCache>();
};

Result<bool> SqliteStatement::step() {
  if (bind_error_ != SQLITE_OK) return conn_->error(bind_error_, "bind");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(stmt_);
  return conn_->error(rc, std::string("step '") + std::string(sql ? sql : "").substr(0, 60) + "'");
}

Status SqliteConnection::open() {
  bool existed = ::access(path_.c_str(), F_OK) == 0;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) return error(rc, "cannot open");
  sqlite3_extended_result_codes(raw, 1);
  // Another process (benchboxctl reading, a second queued refused later by
  // its bus name) may hold a lock for a moment; wait instead of failing.
  sqlite3_busy_timeout(raw, 5000);

  // The first statement that reads the file is where SQLite notices a file
  // that is not a database.
  auto mode = prepare("PRAGMA journal_mode=WAL");
  if (!mode) return mode.error();
  auto row = (*mode)->step();
  if (!row) return row.error();
  if (!*row || (*mode)->column_text(0) != "wal")
    return make_error(Errc::io, path_ + ": cannot switch to WAL journal mode");
  BB_TRY(exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"));
  if (!existed) sync_parent_dir(path_);
  return {};
}

}  // namespace

Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path) {
  auto conn = std::make_unique<SqliteConnection>(path);
  BB_TRY(conn->open());
  return std::unique_ptr<Connection>(std::move(conn));
}

}  // namespace bb::store
