// Where a unit test's store lives. By default a SQLite file in the test's
// temp dir. Run under tests/postgres/with-postgres.sh (which starts a real
// PostgreSQL server and sets BENCHBOX_TEST_POSTGRES to its admin connection
// string), each path gets a PostgreSQL database of its own instead, named
// after the path: reopening the same path reopens the same database. One
// test binary, both back ends.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <string>

#include "store/database.h"
#include "store/queue_store.h"
#include "util/clock.h"

namespace bb::store::testdb {

inline const char* postgres_admin() { return std::getenv("BENCHBOX_TEST_POSTGRES"); }
inline bool testing_postgres() { return postgres_admin() && *postgres_admin(); }

// A database for `path` on the test server, created on first use.
inline std::string postgres_database(const std::string& path) {
  char name[32];
  std::snprintf(name, sizeof name, "bbt_%016zx", std::hash<std::string>{}(path));
  auto admin = Database::connect(postgres_admin());
  if (!admin) FAIL(admin.error().message);
  auto st = admin->prepare("SELECT 1 FROM pg_database WHERE datname = ?");
  REQUIRE(st);
  st->bind(1, std::string(name));
  auto row = st->step();
  REQUIRE(row);
  if (!*row) REQUIRE(admin->exec(std::string("CREATE DATABASE ") + name));
  // In a connection string the last dbname wins.
  return std::string(postgres_admin()) + " dbname=" + name;
}

inline Location location(const std::string& path) {
  if (!testing_postgres()) return Location::sqlite(path);
  return Location::postgresql(postgres_database(path));
}

// A queue on this test's back end; a failure to open fails the case.
inline QueueStore open_queue(const std::string& path, const Clock& clock, const QueueOptions& options = {}) {
  auto store = QueueStore::open(location(path), clock, options);
  if (!store) FAIL(store.error().message);
  return std::move(*store);
}

// `sql` prepared and stepped to the one row it returns; a failure, or no
// row, fails the case.
inline Statement one_row(Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st);
  auto row = st->step();
  REQUIRE(row);
  REQUIRE(*row);
  return std::move(*st);
}

// The first column of the one row `sql` returns, as text.
inline std::string text(Database& db, const std::string& sql) { return one_row(db, sql).column_text(0); }

// The first column of the one row `sql` returns.
inline int64_t scalar(Database& db, const std::string& sql) { return one_row(db, sql).column_int64(0); }

}  // namespace bb::store::testdb
