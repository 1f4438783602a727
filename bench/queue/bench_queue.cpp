// bench/queue: Enqueue/s and Claim/s of the queue store on the local SQLite
// file, and on PostgreSQL with one box and with three boxes (three stores,
// three connections, three threads: what three boxes' queued do), and on
// one box with the server's clock for leases as benchbox-queued runs, in one
// run.
// Every store commits durably (SQLite synchronous=FULL, PostgreSQL fsync).
// The ratios are against SQLite measured in the same run. Each job carries
// a delivery id, as every job from a webhook does. The "held" rows run with
// five times as many jobs already done, as a box's history holds them: a
// call that reads every job shows there.
//
// Run beside a PostgreSQL server of its own:
//   tests/postgres/with-postgres.sh build/bench/bench-queue [--jobs N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/queue_store.h"

using namespace bb;
using Steady = std::chrono::steady_clock;

namespace {

std::string sha(int box, int i) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%02x%038x", box, i);
  return buf;
}

model::JobSpec spec(int box, int i) {
  model::JobSpec s;
  s.kind = model::JobKind::push;
  s.repository = "octo/widgets";
  s.clone_url = "https://example.invalid/octo/widgets.git";
  s.ref = "refs/heads/main";
  s.head_sha = sha(box, i);
  s.delivery_id = "delivery-" + s.head_sha;
  return s;
}

struct Rates {
  double enqueue = 0, claim = 0;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench-queue: %s\n", what.c_str());
  std::exit(1);
}

// `boxes` stores on `where`, each enqueueing jobs/boxes, then each claiming
// until the queue is empty; every job must be claimed exactly once. With
// `held`, that many jobs are enqueued and claimed first, untimed.
Rates run(const store::Location& where, int boxes, int jobs, bool database_clock = false, int held = 0) {
  static SystemClock clock;
  std::vector<store::QueueStore> stores;
  for (int b = 0; b < boxes; ++b) {
    store::QueueOptions o;
    o.origin = "box-" + std::to_string(b);
    o.database_clock = database_clock;
    auto s = store::QueueStore::open(where, clock, o);
    if (!s) die(s.error().message);
    stores.push_back(std::move(*s));
  }
  for (int i = 0; i < held; ++i)
    if (auto r = stores[0].enqueue(spec(0xff, i)); !r) die(r.error().message);
  for (int i = 0; i < held; ++i) {
    auto r = stores[0].claim("runner-held", 3600);
    if (!r || !r->job) die("a held job was not claimed");
    if (auto done = stores[0].complete(r->job->id, "runner-held", "", "{}"); !done) die(done.error().message);
  }
  auto timed = [&](auto&& body) {
    std::vector<std::thread> threads;
    auto t0 = Steady::now();
    for (int b = 0; b < boxes; ++b) threads.emplace_back([&, b] { body(b); });
    for (auto& t : threads) t.join();
    return std::chrono::duration<double>(Steady::now() - t0).count();
  };
  double enqueue_s = timed([&](int b) {
    for (int i = b; i < jobs; i += boxes)
      if (auto r = stores[b].enqueue(spec(b, i)); !r) die(r.error().message);
  });
  std::mutex mu;
  std::set<int64_t> claimed;
  double claim_s = timed([&](int b) {
    for (;;) {
      auto r = stores[b].claim("runner-" + std::to_string(b), 600);
      if (!r) die(r.error().message);
      if (!r->job) return;
      std::lock_guard<std::mutex> lock(mu);
      if (!claimed.insert(r->job->id).second) die("job " + std::to_string(r->job->id) + " claimed twice");
    }
  });
  if (static_cast<int>(claimed.size()) != jobs)
    die("claimed " + std::to_string(claimed.size()) + " of " + std::to_string(jobs) + " jobs");
  return {jobs / enqueue_s, jobs / claim_s};
}

store::Location fresh_postgres(const std::string& admin, const std::string& name) {
  auto db = store::Database::connect(admin);
  if (!db) die(db.error().message);
  if (auto st = db->exec("DROP DATABASE IF EXISTS " + name); !st) die(st.error().message);
  if (auto st = db->exec("CREATE DATABASE " + name); !st) die(st.error().message);
  return store::Location::postgresql(admin + " dbname=" + name);
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = 2000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = std::atoi(argv[++i]);
    else die("usage: bench-queue [--jobs N] (run under tests/postgres/with-postgres.sh)");
  }
  const char* admin = std::getenv("BENCHBOX_TEST_POSTGRES");
  if (!admin || !*admin) die("BENCHBOX_TEST_POSTGRES is not set: run under tests/postgres/with-postgres.sh");

  char tmpl[] = "/var/tmp/bench-queue-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  const std::string dir = tmpl;

  std::printf("bench-queue: %d jobs per run, durable commits\n", jobs);
  Rates sqlite = run(store::Location::sqlite(dir + "/queue.db"), 1, jobs);
  Rates pg1 = run(fresh_postgres(admin, "bench_one_box"), 1, jobs);
  Rates pg3 = run(fresh_postgres(admin, "bench_three_boxes"), 3, jobs);
  // What benchbox-queued runs with: leases by the server's clock.
  Rates pg1_clock = run(fresh_postgres(admin, "bench_one_box_clock"), 1, jobs, true);
  Rates sqlite_held = run(store::Location::sqlite(dir + "/held.db"), 1, jobs, false, 5 * jobs);
  Rates pg1_held = run(fresh_postgres(admin, "bench_one_box_held"), 1, jobs, true, 5 * jobs);
  std::filesystem::remove_all(dir);

  std::printf("%-32s %12s %8s %12s %8s\n", "queue", "Enqueue/s", "ratio", "Claim/s", "ratio");
  auto row = [&](const char* name, const Rates& r) {
    std::printf("%-32s %12.0f %7.2fx %12.0f %7.2fx\n", name, r.enqueue, r.enqueue / sqlite.enqueue, r.claim,
                r.claim / sqlite.claim);
  };
  row("SQLite (one box, baseline)", sqlite);
  row("PostgreSQL, 1 box", pg1);
  row("PostgreSQL, 3 boxes", pg3);
  row("PostgreSQL, 1 box, db clock", pg1_clock);
  const std::string held = std::to_string(5 * jobs) + " held";
  row(("SQLite, " + held).c_str(), sqlite_held);
  row(("PostgreSQL, 1 box, " + held).c_str(), pg1_held);
  return 0;
}
