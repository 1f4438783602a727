#include "store/sqlite.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "util/fd.h"

namespace bb::store {

namespace {

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

}  // namespace

Error Database::error(int rc, const std::string& what) const {
  std::string detail = db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc);
  std::string msg = path_ + ": " + what + ": " + detail;
  switch (rc & 0xff) {
    case SQLITE_FULL:
      msg += " (the disk or the database is full; nothing from this request was stored)";
      break;
    case SQLITE_IOERR:
      msg += " (I/O error; nothing from this request was stored)";
      break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      msg += " (the file is not a usable SQLite database; move it aside to start afresh)";
      break;
    default:
      break;
  }
  return make_error(errc_for(rc), msg);
}

Result<Database> Database::open(const std::string& path) {
  Database db;
  db.path_ = path;
  bool existed = ::access(path.c_str(), F_OK) == 0;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  db.db_.reset(raw);
  if (rc != SQLITE_OK) return db.error(rc, "cannot open");
  sqlite3_extended_result_codes(raw, 1);
  // Another process (benchboxctl reading, a second queued refused later by
  // its bus name) may hold a lock for a moment; wait instead of failing.
  sqlite3_busy_timeout(raw, 5000);

  // The first statement that reads the file is where SQLite notices a file
  // that is not a database.
  auto mode = db.prepare("PRAGMA journal_mode=WAL");
  if (!mode) return mode.error();
  auto row = mode->step();
  if (!row) return row.error();
  if (!*row || mode->column_text(0) != "wal")
    return make_error(Errc::io, path + ": cannot switch to WAL journal mode");
  if (auto st = db.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"); !st) return st.error();
  if (!existed) sync_parent_dir(path);
  return db;
}

Result<Statement> Database::prepare(const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(raw);
    return error(rc, "prepare '" + sql.substr(0, 60) + "'");
  }
  return Statement(*this, raw);
}

Status Database::exec(const std::string& sql) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &msg);
  sqlite3_free(msg);
  if (rc != SQLITE_OK) return error(rc, "exec '" + sql.substr(0, 60) + "'");
  return {};
}

Result<int64_t> Database::user_version() {
  auto st = prepare("PRAGMA user_version");
  if (!st) return st.error();
  auto row = st->step();
  if (!row) return row.error();
  return *row ? st->column_int64(0) : 0;
}

Status Database::migrate(const std::vector<Migration>& migrations) {
  auto version = user_version();
  if (!version) return version.error();
  auto known = static_cast<int64_t>(migrations.size());
  if (*version > known)
    return make_error(Errc::conflict, path_ + ": schema version " + std::to_string(*version) +
                                          " is newer than this benchbox understands (" +
                                          std::to_string(known) + ")");
  for (int64_t v = *version; v < known; ++v) {
    auto tx = Transaction::begin(*this);
    if (!tx) return tx.error();
    if (auto st = exec(migrations[v].sql); !st)
      return st.error().with_context(std::string("migration ") + std::to_string(v + 1) + " (" +
                                     migrations[v].description + ")");
    // PRAGMA takes no bound parameters; v is our own integer.
    if (auto st = exec("PRAGMA user_version=" + std::to_string(v + 1)); !st) return st.error();
    if (auto st = tx->commit(); !st) return st.error();
  }
  return {};
}

Statement& Statement::bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_.get(), index, value);
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind_real(int index, double value) {
  int rc = sqlite3_bind_double(stmt_.get(), index, value);
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

double Statement::column_real(int column) const { return sqlite3_column_double(stmt_.get(), column); }

Statement& Statement::bind(int index, const std::string& value) {
  int rc = sqlite3_bind_text(stmt_.get(), index, value.data(), static_cast<int>(value.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind_null(int index) {
  int rc = sqlite3_bind_null(stmt_.get(), index);
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

Result<bool> Statement::step() {
  if (bind_error_ != SQLITE_OK) return db_->error(bind_error_, "bind");
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(stmt_.get());
  return db_->error(rc, std::string("step '") + std::string(sql ? sql : "").substr(0, 60) + "'");
}

Status Statement::run() {
  for (;;) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return {};
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
  bind_error_ = SQLITE_OK;
}

int64_t Statement::column_int64(int column) const { return sqlite3_column_int64(stmt_.get(), column); }

std::string Statement::column_text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_.get(), column);
  int n = sqlite3_column_bytes(stmt_.get(), column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(n)) : std::string();
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

Result<Transaction> Transaction::begin(Database& db) {
  if (auto st = db.exec("BEGIN IMMEDIATE"); !st) return st.error();
  return Transaction(db);
}

Status Transaction::commit() {
  Database* db = db_;
  auto st = db->exec("COMMIT");
  // A failed COMMIT (disk full while syncing) leaves the transaction open;
  // the destructor rolls it back so nothing half-written is ever seen.
  if (st) db_ = nullptr;
  return st;
}

Transaction::~Transaction() {
  if (db_ && !sqlite3_get_autocommit(db_->handle())) (void)db_->exec("ROLLBACK");
}

}  // namespace bb::store
