#include "store/database.h"

#include <algorithm>
#include <cctype>

namespace bb::store {

const char* to_string(Backend b) { return b == Backend::postgresql ? "postgresql" : "sqlite"; }

Status StatementImpl::run() {
  for (;;) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return {};
  }
}

Result<Database> Database::open(const std::string& path) {
  auto conn = open_sqlite(path);
  if (!conn) return conn.error();
  return Database(std::move(*conn));
}

Result<Database> Database::connect(const std::string& conninfo) {
  auto conn = connect_postgresql(conninfo);
  if (!conn) return conn.error();
  return Database(std::move(*conn));
}

Result<Database> Database::open(const Location& where) {
  return where.backend == Backend::postgresql ? connect(where.target) : open(where.target);
}

Result<Statement> Database::prepare(const std::string& sql) {
  auto impl = conn_->prepare(sql);
  if (!impl) return impl.error();
  return Statement(std::move(*impl));
}

Status Database::send_together(std::vector<Statement>& statements) {
  std::vector<StatementImpl*> impls;
  impls.reserve(statements.size());
  for (Statement& st : statements) impls.push_back(st.impl_.get());
  return conn_->send_together(impls);
}

const char* Database::for_update() const { return backend() == Backend::postgresql ? " FOR UPDATE" : ""; }

const char* Database::skip_locked() const {
  return backend() == Backend::postgresql ? " FOR UPDATE SKIP LOCKED" : "";
}

Status Database::migrate(const std::string& schema, const std::vector<Migration>& migrations) {
  auto known = static_cast<int64_t>(migrations.size());
  for (;;) {
    auto tx = Transaction::begin(*this);
    if (!tx) return tx.error();
    // Two boxes starting at once must not both apply a step: the version is
    // read under the writers' lock, one step per transaction.
    BB_TRY(conn_->lock_writers("migrate " + schema));
    auto version = conn_->schema_version(schema);
    if (!version) return version.error();
    if (*version > known)
      return make_error(Errc::conflict, name() + ": " + schema + " schema version " + std::to_string(*version) +
                                            " is newer than this benchbox understands (" + std::to_string(known) +
                                            ")");
    if (*version == known) return {};
    const Migration& m = migrations[static_cast<size_t>(*version)];
    const char* sql = backend() == Backend::postgresql && m.postgresql_sql ? m.postgresql_sql : m.sql;
    if (auto st = conn_->exec(sql); !st)
      return st.error().with_context(std::string("migration ") + std::to_string(*version + 1) + " (" +
                                     m.description + ")");
    BB_TRY(conn_->set_schema_version(schema, *version + 1));
    BB_TRY(tx->commit());
  }
}

namespace {

std::vector<std::string> split_columns(const std::string& csv) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : csv + ",") {
    if (c == ',') {
      size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

void replace_word(std::string& s, const std::string& from, const std::string& to) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at)) {
    bool starts = at == 0 || !is_word(s[at - 1]);
    bool ends = at + from.size() >= s.size() || !is_word(s[at + from.size()]);
    if (starts && ends) {
      s.replace(at, from.size(), to);
      at += to.size();
    } else {
      at += from.size();
    }
  }
}

}  // namespace

std::string upsert_sql(const std::string& table, const std::string& columns, const std::string& keys,
                       const std::string& values) {
  const auto cols = split_columns(columns), key_cols = split_columns(keys);
  std::string placeholders;
  for (size_t i = 0; i < cols.size(); ++i) placeholders += i ? ",?" : "?";
  std::string sql = "INSERT INTO " + table + " (" + columns + ") VALUES (" +
                    (values.empty() ? placeholders : values) + ") ON CONFLICT (" + keys + ") DO UPDATE SET ";
  bool first = true;
  for (const auto& c : cols) {
    if (std::find(key_cols.begin(), key_cols.end(), c) != key_cols.end()) continue;
    sql += (first ? "" : ", ") + c + " = excluded." + c;
    first = false;
  }
  return sql;
}

std::string postgresql_ddl(const std::string& sqlite_ddl) {
  std::string s = sqlite_ddl;
  replace_word(s, "INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY");
  replace_word(s, "INTEGER", "BIGINT");
  replace_word(s, "REAL", "DOUBLE PRECISION");
  return s;
}

Result<Transaction> Transaction::begin(Database& db) {
  BB_TRY(db.connection().begin());
  return Transaction(db);
}

Status Transaction::commit() {
  auto st = db_->exec("COMMIT");
  // A failed COMMIT (disk full while syncing) leaves the transaction open;
  // the destructor rolls it back so nothing half-written is ever seen.
  if (st) db_ = nullptr;
  return st;
}

Transaction::~Transaction() {
  if (db_ && db_->connection().in_transaction()) (void)db_->exec("ROLLBACK");
}

}  // namespace bb::store
