// The SQLite RAII layer: pragmas, statements, transactions, migrations.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "store/database.h"
#include "store/test_location.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::store;

namespace {

using bb::test::TempDir;
using testdb::scalar;

}  // namespace

TEST_CASE("open sets WAL and synchronous=FULL", "[sqlite]") {
  TempDir dir;
  auto db = Database::open(dir.path + "/a.db");
  REQUIRE(db);
  auto mode = db->prepare("PRAGMA journal_mode");
  REQUIRE(*mode->step());
  CHECK(mode->column_text(0) == "wal");
  CHECK(scalar(*db, "PRAGMA synchronous") == 2);  // FULL
}

TEST_CASE("statements bind, step and read columns", "[sqlite]") {
  TempDir dir;
  auto db = Database::open(dir.path + "/a.db");
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (a INTEGER, b TEXT)"));
  auto ins = db->prepare("INSERT INTO t VALUES (?, ?)");
  REQUIRE(ins);
  REQUIRE(ins->bind(1, int64_t{42}).bind(2, std::string("with\0nul", 8)).run());
  ins->reset();
  REQUIRE(ins->bind(1, int64_t{7}).bind_null(2).run());
  auto sel = db->prepare("SELECT a, b FROM t ORDER BY a");
  REQUIRE(*sel->step());
  CHECK(sel->column_int64(0) == 7);
  CHECK(sel->column_is_null(1));
  REQUIRE(*sel->step());
  CHECK(sel->column_text(1) == std::string("with\0nul", 8));
  CHECK_FALSE(*sel->step());

  auto bad = db->prepare("SELEKT 1");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("SELEKT") != std::string::npos);
}

TEST_CASE("a transaction rolls back unless committed", "[sqlite]") {
  TempDir dir;
  auto db = Database::open(dir.path + "/a.db");
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (a INTEGER)"));
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    REQUIRE(db->exec("INSERT INTO t VALUES (1)"));
  }
  CHECK(scalar(*db, "SELECT COUNT(*) FROM t") == 0);
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(db->exec("INSERT INTO t VALUES (1)"));
    REQUIRE(tx->commit());
  }
  CHECK(scalar(*db, "SELECT COUNT(*) FROM t") == 1);
}

TEST_CASE("migrations run once each and stop at a failing one", "[sqlite]") {
  TempDir dir;
  std::string path = dir.path + "/a.db";
  std::vector<Migration> v1 = {{"first", "CREATE TABLE a (x INTEGER)"}};
  std::vector<Migration> v3 = {v1[0], {"second", "CREATE TABLE b (y INTEGER)"},
                               {"broken", "CREATE TABLE a (x INTEGER)"}};
  {
    auto db = Database::open(path);
    REQUIRE(db->migrate("t", v1));
    CHECK(*db->schema_version("t") == 1);
    REQUIRE(db->migrate("t", v1));  // nothing to do
  }
  auto db = Database::open(path);
  auto st = db->migrate("t", v3);
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("migration 3 (broken)") != std::string::npos);
  // Migration 2 committed, 3 rolled back entirely.
  CHECK(*db->schema_version("t") == 2);
  CHECK(scalar(*db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'b'") == 1);
}

TEST_CASE("a statement prepared again is fresh: reset, no bindings; one outliving its database is let go",
          "[sqlite]") {
  TempDir dir;
  auto db = Database::open(dir.path + "/a.db");
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (a INTEGER)"));
  REQUIRE(db->exec("INSERT INTO t VALUES (1), (2), (3)"));
  const std::string sql = "SELECT a, ? FROM t ORDER BY a";
  {
    auto q = db->prepare(sql);
    REQUIRE(q);
    q->bind(1, int64_t{7});
    REQUIRE(*q->step());  // left in the middle of its rows
    CHECK(q->column_int64(1) == 7);
  }
  for (int round = 0; round < 3; ++round) {
    auto q = db->prepare(sql);  // the one above, again
    REQUIRE(q);
    REQUIRE(*q->step());
    CHECK(q->column_int64(0) == 1);  // from the first row, not where it stopped
    CHECK(q->column_is_null(1));     // its binding gone
  }
  // Two of the same at once are two statements.
  auto a = db->prepare(sql), b = db->prepare(sql);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(*a->step());
  REQUIRE(*b->step());
  REQUIRE(*b->step());
  CHECK(a->column_int64(0) == 1);
  CHECK(b->column_int64(0) == 2);
  // Statements that outlive their database are finalized, not returned (ASan).
  std::unique_ptr<Statement> late;
  {
    auto closing = Database::open(dir.path + "/b.db");
    REQUIRE(closing);
    auto p = closing->prepare("SELECT 1");
    REQUIRE(p);
    late = std::make_unique<Statement>(std::move(*p));
  }
  late.reset();
}
