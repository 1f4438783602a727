// The PostgreSQL back end's own behaviour, on the server that
// tests/postgres/with-postgres.sh started (the unit-store-postgres test).
#include <catch2/catch.hpp>

#include <unistd.h>

#include "store/database.h"
#include "store/listener.h"
#include "store/queue_store.h"
#include "store/test_location.h"
#include "store/test_tcp_proxy.h"

#include <chrono>
#include <cstdlib>
#include <ctime>

using namespace bb;
using namespace bb::store;

namespace {

std::string postgres_admin_info() { return testdb::postgres_admin(); }

Database fresh(const std::string& name) {
  auto db = Database::connect(testdb::postgres_database("/postgres-case/" + name));
  if (!db) FAIL(db.error().message);
  return std::move(*db);
}

using testdb::scalar;

// A push of octo/widgets to main, of the commit `c` repeated.
model::JobSpec push_of(char c) {
  model::JobSpec s;
  s.kind = model::JobKind::push;
  s.repository = "octo/widgets";
  s.clone_url = "https://example.invalid/octo/widgets.git";
  s.ref = "refs/heads/main";
  s.head_sha = std::string(40, c);
  return s;
}

}  // namespace

TEST_CASE("placeholders are numbered outside quotes; values round-trip as text", "[postgres]") {
  auto db = fresh("placeholders");
  REQUIRE(db.exec("CREATE TABLE t (a TEXT, b BIGINT, c DOUBLE PRECISION, d TEXT)"));
  auto ins = db.prepare("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, '?''s not a placeholder') RETURNING b");
  REQUIRE(ins);
  ins->bind(1, std::string("µ 🔥 \"quoted\"")).bind(2, int64_t{-9007199254740993}).bind_real(3, 0.1);
  auto row = ins->step();
  REQUIRE(row);
  REQUIRE(*row);
  CHECK(ins->column_int64(0) == -9007199254740993);
  REQUIRE(ins->run());
  auto st = db.prepare("SELECT a, b, c, d FROM t WHERE a = ?");
  st->bind(1, std::string("µ 🔥 \"quoted\""));
  REQUIRE(*st->step());
  CHECK(st->column_text(0) == "µ 🔥 \"quoted\"");
  CHECK(st->column_real(2) == 0.1);
  CHECK(st->column_text(3) == "?'s not a placeholder");
  CHECK_FALSE(*st->step());
  auto null = db.prepare("SELECT NULL::text");
  REQUIRE(*null->step());
  CHECK(null->column_is_null(0));
}

TEST_CASE("statements are prepared once per session, and run on when the session lost them", "[postgres]") {
  auto db = fresh("prepared");
  REQUIRE(db.exec("CREATE TABLE t (a BIGINT)"));
  auto insert = [&](int64_t v) {
    auto st = db.prepare("INSERT INTO t (a) VALUES (?)");
    REQUIRE(st);
    st->bind(1, v);
    return st->run();
  };
  REQUIRE(insert(1));
  REQUIRE(insert(2));
  // The insert, once for its two calls, and this query.
  CHECK(scalar(db, "SELECT count(*) FROM pg_prepared_statements") == 2);
  // What a pooler in transaction mode does to a session's statements.
  REQUIRE(db.exec("DEALLOCATE ALL"));
  REQUIRE(insert(3));
  REQUIRE(insert(4));
  CHECK(scalar(db, "SELECT count(*) FROM t") == 4);
}

TEST_CASE("migrations are versioned per schema, once each, and stop at a failing one", "[postgres]") {
  auto db = fresh("migrations");
  std::vector<Migration> v1 = {{"first", "CREATE TABLE a (x INTEGER)"}};
  std::vector<Migration> v3 = {v1[0], {"second", "CREATE TABLE b (y INTEGER)"},
                               {"broken", "CREATE TABLE a (x INTEGER)"}};
  REQUIRE(db.migrate("one", v1));
  CHECK(*db.schema_version("one") == 1);
  CHECK(*db.schema_version("other") == 0);
  REQUIRE(db.migrate("one", v1));
  auto st = db.migrate("one", v3);
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("migration 3 (broken)") != std::string::npos);
  CHECK(*db.schema_version("one") == 2);
  CHECK(scalar(db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'b'") == 1);
  // A database a newer benchbox migrated is refused, naming the schema.
  REQUIRE(db.exec("UPDATE benchbox_schema SET version = 99 WHERE name = 'one'"));
  auto newer = db.migrate("one", v3);
  REQUIRE_FALSE(newer);
  CHECK(newer.error().code == Errc::conflict);
  CHECK(newer.error().message.find("one schema version 99 is newer") != std::string::npos);
}

TEST_CASE("constraint violations are conflicts; a transaction rolls back unless committed", "[postgres]") {
  auto db = fresh("errors");
  REQUIRE(db.exec("CREATE TABLE u (k TEXT PRIMARY KEY)"));
  REQUIRE(db.exec("INSERT INTO u VALUES ('x')"));
  auto dup = db.exec("INSERT INTO u VALUES ('x')");
  REQUIRE_FALSE(dup);
  CHECK(dup.error().code == Errc::conflict);
  CHECK(dup.error().message.find("postgresql database 'bbt_") != std::string::npos);
  {
    auto tx = Transaction::begin(db);
    REQUIRE(tx);
    REQUIRE(db.exec("INSERT INTO u VALUES ('y')"));
  }
  CHECK(scalar(db, "SELECT COUNT(*) FROM u") == 1);
  {
    auto tx = Transaction::begin(db);
    REQUIRE(db.exec("INSERT INTO u VALUES ('y')"));
    REQUIRE(tx->commit());
  }
  CHECK(scalar(db, "SELECT COUNT(*) FROM u") == 2);
}

TEST_CASE("an unreachable server is a clear Unavailable error", "[postgres]") {
  auto db = Database::connect("host=/nonexistent-benchbox-socket-dir port=5432 dbname=x connect_timeout=2");
  REQUIRE_FALSE(db);
  CHECK(db.error().code == Errc::unavailable);
  CHECK(db.error().message.find("cannot connect to PostgreSQL") != std::string::npos);
  SystemClock clock;
  auto q = QueueStore::open(Location::postgresql("host=/nonexistent-benchbox-socket-dir dbname=x"), clock, {});
  REQUIRE_FALSE(q);
  CHECK(q.error().code == Errc::unavailable);
}

TEST_CASE("a second box claims a different job, and each change is notified with its origin", "[postgres]") {
  std::string where = testdb::postgres_database("/postgres-case/two-boxes");
  FakeClock clock;
  QueueOptions a_opts, b_opts;
  a_opts.origin = "box-a";
  b_opts.origin = "box-b";
  auto a = QueueStore::open(Location::postgresql(where), clock, a_opts);
  REQUIRE(a);
  auto b = QueueStore::open(Location::postgresql(where), clock, b_opts);
  REQUIRE(b);
  auto listener = Listener::listen(where, kJobsChannel);
  REQUIRE(listener);
  model::JobSpec s = push_of('a');
  auto j1 = a->enqueue(s);
  REQUIRE(j1);
  s.head_sha = std::string(40, 'b');
  auto j2 = b->enqueue(s);
  REQUIRE(j2);
  // The same work enqueued on the other box is found, not doubled.
  CHECK_FALSE(b->enqueue(s)->created);

  // Box A holds its claim's row lock open: B skips that row, not waits.
  REQUIRE(a->database().exec("BEGIN"));
  auto locked = a->database().prepare("SELECT id FROM jobs WHERE id = ? FOR UPDATE");
  locked->bind(1, j1->job.id);
  REQUIRE(*locked->step());
  auto cb = b->claim("runner-b", 60);
  REQUIRE(cb);
  REQUIRE(cb->job);
  CHECK(cb->job->id == j2->job.id);
  REQUIRE(a->database().exec("ROLLBACK"));
  auto ca = a->claim("runner-a", 60);
  REQUIRE(ca->job);
  CHECK(ca->job->id == j1->job.id);
  CHECK_FALSE(b->claim("runner-b", 60)->job);

  // B's lease runs out on A's clock too: A requeues the job.
  clock.advance_seconds(61);
  REQUIRE(a->heartbeat(j1->job.id, "runner-a"));
  auto expired = a->expire_leases();
  REQUIRE(expired);
  REQUIRE(expired->size() == 1);
  CHECK((*expired)[0].id == j2->job.id);
  CHECK((*expired)[0].state == model::JobState::queued);

  auto got = listener->drain();
  REQUIRE(got);
  std::vector<std::string> want = {"box-a " + std::to_string(j1->job.id), "box-b " + std::to_string(j2->job.id),
                                   "box-b " + std::to_string(j2->job.id), "box-a " + std::to_string(j1->job.id),
                                   "box-a " + std::to_string(j2->job.id)};
  // Notifications arrive once their transaction commits; give the socket a moment.
  for (int i = 0; i < 50 && got->size() < want.size(); ++i) {
    ::usleep(20000);
    auto more = listener->drain();
    REQUIRE(more);
    got->insert(got->end(), more->begin(), more->end());
  }
  CHECK(*got == want);
}

namespace {

// What a server restart or a network cut does to a database's connections.
void cut_connections(const std::string& conninfo) {
  auto admin = Database::connect(postgres_admin_info());
  REQUIRE(admin);
  auto st = admin->prepare(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()");
  st->bind(1, conninfo.substr(conninfo.rfind("dbname=") + 7));
  REQUIRE(st->run());
}

}  // namespace

TEST_CASE("a lost connection fails one call, and is mended between transactions, never inside one", "[postgres]") {
  std::string where = testdb::postgres_database("/postgres-case/lost-connection");
  FakeClock clock;
  auto q = QueueStore::open(Location::postgresql(where), clock, {});
  REQUIRE(q);
  model::JobSpec s = push_of('c');
  int64_t id = q->enqueue(s)->job.id;

  cut_connections(where);
  auto first = q->get(id);
  if (!first) CHECK(first.error().code == Errc::unavailable);
  auto second = q->get(id);
  REQUIRE(second);
  CHECK(second->id == id);
  // The schema search path came back with the connection.
  CHECK(q->counts()->queued == 1);

  {
    auto tx = Transaction::begin(q->database());
    REQUIRE(tx);
    cut_connections(where);
    auto lost = q->database().exec("SELECT 1");
    REQUIRE_FALSE(lost);
    CHECK(lost.error().code == Errc::unavailable);
    auto still = q->database().exec("SELECT 1");
    REQUIRE_FALSE(still);
    CHECK(still.error().message.find("lost inside a transaction") != std::string::npos);
  }
  auto after = q->get(id);
  REQUIRE(after);
  CHECK(after->state == model::JobState::queued);
}


TEST_CASE("a server that stops answering costs one call its deadline, then the next call connects again",
          "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/black-hole");
  testdb::TcpProxy proxy(testdb::postgres_socket(testdb::postgres_admin()));
  REQUIRE(proxy.port() > 0);
  auto db = Database::connect(where + " host=127.0.0.1 port=" + std::to_string(proxy.port()));
  REQUIRE(db);
  CHECK(scalar(*db, "SELECT 1") == 1);
  // What every connection is given, whatever the connection string says.
  CHECK(testdb::text(*db, "SHOW statement_timeout") == "8s");
  CHECK(testdb::text(*db, "SHOW lock_timeout") == "4s");
  CHECK(testdb::text(*db, "SHOW idle_in_transaction_session_timeout") == "1min");

  proxy.black_hole(true);  // the link stops forwarding; nothing is closed
  const auto t0 = std::chrono::steady_clock::now();
  auto lost = db->exec("SELECT 1");
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(lost);
  CHECK(lost.error().code == Errc::unavailable);
  CHECK(lost.error().message.find("no answer from PostgreSQL within 10 s") != std::string::npos);
  CHECK(took < std::chrono::seconds(13));

  proxy.black_hole(false);
  CHECK(scalar(*db, "SELECT 2") == 2);
}

TEST_CASE("with the database's clock, a box whose clock is an hour fast expires no other box's lease",
          "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/clock-skew");
  const int64_t real = static_cast<int64_t>(::time(nullptr));
  FakeClock right, fast;
  right.set_unix(real);
  fast.set_unix(real + 3600);
  QueueOptions opts;
  opts.database_clock = true;
  auto a = QueueStore::open(Location::postgresql(where), right, opts);
  REQUIRE(a);
  auto b = QueueStore::open(Location::postgresql(where), fast, opts);
  REQUIRE(b);
  model::JobSpec s = push_of('d');
  REQUIRE(a->enqueue(s));
  auto claimed = a->claim("box-a", 60);
  REQUIRE(claimed);
  REQUIRE(claimed->job);
  // The lease runs from the server's time, which is this machine's.
  CHECK(std::llabs(claimed->job->lease_expires - (real + 60)) <= 5);
  // The fast box sees the lease as the server does: not expired.
  auto taken = b->claim("box-b", 60);
  REQUIRE(taken);
  CHECK_FALSE(taken->job);
  CHECK(taken->expired.empty());
  CHECK(b->get(claimed->job->id)->runner == "box-a");
  CHECK(std::llabs(b->now() - real) <= 5);

  // A lease that ran out by the server's clock is ended, by a Claim and by
  // the check queued makes each second alike (one statement asks both).
  REQUIRE(a->enqueue(push_of('e')));
  auto brief = a->claim("box-a", 1);
  REQUIRE(brief);
  REQUIRE(brief->job);
  ::sleep(3);
  auto again = b->claim("box-b", 60);
  REQUIRE(again);
  REQUIRE(again->expired.size() == 1);
  CHECK(again->expired[0].id == brief->job->id);
  REQUIRE(again->job);
  CHECK(again->job->id == brief->job->id);  // requeued, then taken
  REQUIRE(a->enqueue(push_of('f')));
  REQUIRE(a->claim("box-a", 1));
  ::sleep(3);
  auto checked = b->expire_leases();
  REQUIRE(checked);
  CHECK(checked->size() == 1);

  // The same fast box on its own clock would have taken the job away.
  auto own = QueueStore::open(Location::postgresql(where), fast, QueueOptions{});
  REQUIRE(own);
  auto stolen = own->claim("box-b", 60);
  REQUIRE(stolen);
  CHECK(stolen->expired.size() == 2);  // 'd', and the 'e' box-b took
}

TEST_CASE("connecting to a server that does not answer gives up after connect_timeout", "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/black-hole-connect");
  testdb::TcpProxy proxy(testdb::postgres_socket(testdb::postgres_admin()));
  proxy.black_hole(true);  // the TCP connect succeeds; nothing comes back
  const auto t0 = std::chrono::steady_clock::now();
  auto db = Database::connect(where + " host=127.0.0.1 port=" + std::to_string(proxy.port()));
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(db);
  CHECK(db.error().code == Errc::unavailable);
  INFO(std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  CHECK(took < std::chrono::seconds(7));
}

TEST_CASE("inside a transaction, what nobody reads goes with the next one: an Enqueue or a Claim is 2 round trips",
          "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/pipeline");
  testdb::TcpProxy proxy(testdb::postgres_socket(testdb::postgres_admin()));
  REQUIRE(proxy.port() > 0);
  FakeClock clock;
  auto q = QueueStore::open(Location::postgresql(where + " host=127.0.0.1 port=" + std::to_string(proxy.port())),
                            clock, {});
  REQUIRE(q);
  // As a webhook's: a delivery id and a replay key. The first call
  // prepares each statement once for the connection.
  auto webhook_push = [](char c) {
    model::JobSpec s = push_of(c);
    s.delivery_id = std::string("delivery-") + c;
    s.replay_key = std::string(64, c);  // a sha256 of the body, in hex
    return s;
  };
  auto warm = q->enqueue(webhook_push('a'));
  if (!warm) FAIL(warm.error().message);
  REQUIRE(q->claim("warm", 60));

  // BEGIN, the writers' lock and one statement that looks for the replay
  // key, the delivery and the same work, and inserts when none answers;
  // the replay window's prune, the replay record, COMMIT and NOTIFY. (Ten,
  // one statement at a time; five with the lookups one by one; three with
  // the INSERT alone.)
  int before = proxy.client_sends();
  auto e = q->enqueue(webhook_push('b'));
  REQUIRE(e);
  CHECK(e->created);
  CHECK(proxy.client_sends() - before == 2);
  // The same delivery again, and the same body again: two round trips,
  // and the job that answers.
  before = proxy.client_sends();
  model::JobSpec redelivered = webhook_push('b');
  redelivered.replay_key = std::string(64, 'f');
  auto again = q->enqueue(redelivered);
  if (!again) FAIL(again.error().message);
  CHECK_FALSE(again->created);
  CHECK(again->job.id == e->job.id);
  CHECK(proxy.client_sends() - before == 2);
  auto replayed = q->enqueue(webhook_push('b'));
  REQUIRE(replayed);
  CHECK_FALSE(replayed->created);
  CHECK(replayed->job.id == e->job.id);

  // A batch of eight (group commit, as queued makes of calls that arrive
  // together), a repeat of 'b' among them: still 2, every spec's statement
  // in the first pipeline (it was one round trip each).
  std::vector<model::JobSpec> batch;
  for (char c : std::string("0123456")) batch.push_back(webhook_push(c));
  batch.push_back(redelivered);
  before = proxy.client_sends();
  auto answers = q->enqueue_batch(batch);
  REQUIRE(answers.size() == 8);
  for (size_t i = 0; i < 7; ++i) {
    if (!answers[i]) FAIL(answers[i].error().message);
    CHECK(answers[i]->created);
  }
  REQUIRE(answers[7]);
  CHECK_FALSE(answers[7]->created);
  CHECK(answers[7]->job.id == e->job.id);
  CHECK(proxy.client_sends() - before == 2);

  // BEGIN and one statement that takes the time, checks the leases and
  // claims when none ran out; COMMIT and NOTIFY. (Four with the lease
  // check and the pick statements of their own.)
  before = proxy.client_sends();
  auto c = q->claim("runner", 60);
  REQUIRE(c);
  REQUIRE(c->job);
  CHECK(c->job->id == e->job.id);
  CHECK(proxy.client_sends() - before == 2);
  CHECK(q->counts()->running == 2);

  // With the server's clock (as queued runs): still 2, the time asked in
  // the claim's statement (it was a round trip of its own).
  QueueOptions server_clock;
  server_clock.database_clock = true;
  auto d = QueueStore::open(Location::postgresql(where + " host=127.0.0.1 port=" + std::to_string(proxy.port())),
                            clock, server_clock);
  REQUIRE(d);
  REQUIRE(d->enqueue(webhook_push('c')));
  // The Enqueue too: the server's time is asked in its one statement.
  before = proxy.client_sends();
  auto made = d->enqueue(webhook_push('d'));
  REQUIRE(made);
  CHECK(made->created);
  CHECK(std::llabs(made->job.created - static_cast<int64_t>(::time(nullptr))) <= 5);
  CHECK(proxy.client_sends() - before == 2);
  REQUIRE(d->claim("warm", 60));  // prepares its statements
  before = proxy.client_sends();
  auto timed = d->claim("runner", 60);
  REQUIRE(timed);
  REQUIRE(timed->job);
  CHECK(proxy.client_sends() - before == 2);
}

TEST_CASE("a statement held back reports its error at the next one, and nothing of its transaction stays",
          "[postgres]") {
  auto db = fresh("held-error");
  REQUIRE(db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT)"));
  REQUIRE(db.exec("INSERT INTO t (k, n) VALUES ('a', 1)"));
  {
    auto tx = Transaction::begin(db);
    REQUIRE(tx);
    auto up = db.prepare("UPDATE t SET n = n + 1 WHERE k = ?");
    up->bind(1, std::string("a"));
    REQUIRE(up->run());  // held: sent with the next statement
    auto dup = db.prepare("INSERT INTO t (k, n) VALUES (?, 2)");
    dup->bind(1, std::string("a"));
    REQUIRE(dup->run());  // held too; fails on the server
    auto committed = tx->commit();
    REQUIRE_FALSE(committed);
    CHECK(committed.error().code == Errc::conflict);
    CHECK(committed.error().message.find("INSERT INTO t") != std::string::npos);
    CHECK(committed.error().message.find("duplicate key") != std::string::npos);
  }
  // The destructor rolled the failed transaction back: the UPDATE is gone
  // and the connection takes the next one.
  CHECK(scalar(db, "SELECT n FROM t WHERE k = 'a'") == 1);
  {
    auto tx = Transaction::begin(db);
    REQUIRE(tx);
    auto up = db.prepare("UPDATE t SET n = n + 10 WHERE k = ?");
    up->bind(1, std::string("a"));
    REQUIRE(up->run());
    // changes() counts the held statement: it is sent first.
    CHECK(db.changes() == 1);
    auto read = db.prepare("SELECT n FROM t WHERE k = ?");
    read->bind(1, std::string("a"));
    REQUIRE(*read->step());
    CHECK(read->column_int64(0) == 11);  // the held UPDATE ran before it
    REQUIRE(tx->commit());
  }
  CHECK(scalar(db, "SELECT n FROM t WHERE k = 'a'") == 11);
}

TEST_CASE("a transaction that ends before anything reached the server sends nothing", "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/empty-transaction");
  testdb::TcpProxy proxy(testdb::postgres_socket(testdb::postgres_admin()));
  REQUIRE(proxy.port() > 0);
  auto db = Database::connect(where + " host=127.0.0.1 port=" + std::to_string(proxy.port()));
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (n BIGINT)"));
  auto insert = [&](int64_t n) {
    auto ins = db->prepare("INSERT INTO t (n) VALUES (?)");
    ins->bind(1, n);
    return ins->run();
  };
  REQUIRE(insert(1));  // outside a transaction: sent at once (and prepared)
  const int before = proxy.client_sends();
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    REQUIRE(db->connection().in_transaction());
  }  // rolled back: BEGIN never went
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    REQUIRE(tx->commit());
  }
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    REQUIRE(insert(2));
  }  // the held INSERT and BEGIN are dropped with the rollback
  CHECK(proxy.client_sends() == before);
  CHECK_FALSE(db->connection().in_transaction());
  CHECK(scalar(*db, "SELECT COUNT(*) FROM t") == 1);
}

TEST_CASE("a notification inside a transaction is heard once it commits, and never when it rolls back",
          "[postgres]") {
  const std::string where = testdb::postgres_database("/postgres-case/notify-after-commit");
  auto db = Database::connect(where);
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (n BIGINT)"));
  auto listener = Listener::listen(where, "changes");
  REQUIRE(listener);
  auto heard = [&](size_t want) {
    std::vector<std::string> got;
    for (int i = 0; i < 50 && got.size() < want; ++i) {
      auto more = listener->drain();
      REQUIRE(more);
      got.insert(got.end(), more->begin(), more->end());
      if (got.size() < want) ::usleep(20000);
    }
    return got;
  };
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    auto ins = db->prepare("INSERT INTO t (n) VALUES (1)");
    REQUIRE(ins->run());
    REQUIRE(db->notify("changes", "one"));
    REQUIRE(db->notify("changes", "two"));
    CHECK(heard(1).empty());  // nothing before the COMMIT
    REQUIRE(tx->commit());
  }
  CHECK(heard(2) == std::vector<std::string>{"one", "two"});
  {
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    auto ins = db->prepare("INSERT INTO t (n) VALUES (2)");
    REQUIRE(ins->run());
    REQUIRE(db->notify("changes", "rolled back"));
  }
  {
    // A transaction whose statement fails sends none either.
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    REQUIRE(db->notify("changes", "failed"));
    auto bad = db->prepare("INSERT INTO t (n) VALUES (?)");
    bad->bind(1, std::string("not a number"));  // fails when it runs, at the COMMIT's round trip
    REQUIRE(bad->run());
    CHECK_FALSE(tx->commit());
  }
  {
    // Nothing but a notification: it is still sent.
    auto tx = Transaction::begin(*db);
    REQUIRE(db->notify("changes", "alone"));
    REQUIRE(tx->commit());
  }
  CHECK(heard(1) == std::vector<std::string>{"alone"});
  CHECK(scalar(*db, "SELECT COUNT(*) FROM t") == 1);
  {
    // A notification is told after its COMMIT, in a transaction of its
    // own: one the server refuses (longer than NOTIFY allows) loses
    // nothing of the change, and the connection goes on.
    auto tx = Transaction::begin(*db);
    REQUIRE(tx);
    auto ins = db->prepare("INSERT INTO t (n) VALUES (3)");
    REQUIRE(ins->run());
    REQUIRE(db->notify("changes", std::string(9000, 'x')));
    REQUIRE(tx->commit());
  }
  CHECK_FALSE(db->connection().in_transaction());
  CHECK(scalar(*db, "SELECT COUNT(*) FROM t") == 2);
  CHECK(heard(1).empty());
  // Outside a transaction, one is told at once.
  REQUIRE(db->notify("changes", "now"));
  CHECK(heard(1) == std::vector<std::string>{"now"});
}
