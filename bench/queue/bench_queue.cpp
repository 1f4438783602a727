// bench/queue: Enqueue/s and Claim/s of the queue store on the local SQLite
// file, and on PostgreSQL with one box and with three boxes (three stores,
// three connections, three threads: what three boxes' queued do), and on
// one box with the server's clock for leases as benchbox-queued runs, in one
// run.
// Every store commits durably (SQLite synchronous=FULL, PostgreSQL fsync).
// The ratios are against SQLite measured in the same run. Each figure is
// the best of several rounds, every configuration in turn within a round:
// this VM's fsync latency moves a single run's rates by tens of percent,
// and a slow spell then falls on every configuration alike. Each job carries
// a delivery id, as every job from a webhook does. The "held" rows run with
// five times as many jobs already done, as a box's history holds them: a
// call that reads every job shows there. The "batches" rows enqueue eight
// specs a call of QueueStore::enqueue_batch, one commit each, as
// benchbox-queued commits the Enqueue calls that arrive together (eight
// webhook deliveries at once, say); their second ratio is against SQLite in
// batches of the same size.
//
// Run beside a PostgreSQL server of its own:
//   tests/postgres/with-postgres.sh build/bench/bench-queue [--jobs N] [--rounds N]
#include <algorithm>
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
Rates run(const store::Location& where, int boxes, int jobs, bool database_clock = false, int held = 0,
          int batch = 1) {
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
    std::vector<model::JobSpec> specs;
    for (int i = b; i < jobs; i += boxes) {
      if (batch == 1) {
        if (auto r = stores[b].enqueue(spec(b, i)); !r) die(r.error().message);
        continue;
      }
      specs.push_back(spec(b, i));
      if (static_cast<int>(specs.size()) < batch && i + boxes < jobs) continue;
      for (auto& r : stores[b].enqueue_batch(specs))
        if (!r) die(r.error().message);
        else if (!r->created) die("a batch's job was found, not made");
      specs.clear();
    }
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

// One row of the table: how its stores are made, and its best rates.
struct Config {
  const char* name;
  bool postgres;
  int boxes;
  bool database_clock;
  int held;  // jobs done before the timed ones, as a multiple of --jobs
  Rates best;
  int batch = 1;  // Enqueue: specs a call of enqueue_batch (1: enqueue)
};

void keep_best(Rates& best, const Rates& r) {
  best.enqueue = std::max(best.enqueue, r.enqueue);
  best.claim = std::max(best.claim, r.claim);
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = 2000, rounds = 3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else die("usage: bench-queue [--jobs N] [--rounds N] [--only TEXT] (run under tests/postgres/with-postgres.sh)");
  }
  if (jobs < 1 || rounds < 1) die("--jobs and --rounds must be at least 1");
  const char* admin = std::getenv("BENCHBOX_TEST_POSTGRES");
  if (!admin || !*admin) die("BENCHBOX_TEST_POSTGRES is not set: run under tests/postgres/with-postgres.sh");

  char tmpl[] = "/var/tmp/bench-queue-XXXXXX";
  if (!::mkdtemp(tmpl)) die("mkdtemp failed");
  const std::string dir = tmpl;

  std::vector<Config> configs = {
      {"SQLite (one box, baseline)", false, 1, false, 0, {}},
      {"PostgreSQL, 1 box", true, 1, false, 0, {}},
      {"PostgreSQL, 3 boxes", true, 3, false, 0, {}},
      // What benchbox-queued runs with: leases by the server's clock.
      {"PostgreSQL, 1 box, db clock", true, 1, true, 0, {}},
      {"SQLite,", false, 1, false, 5, {}},
      {"PostgreSQL, 1 box,", true, 1, true, 5, {}},
      {"SQLite, batches of 8", false, 1, false, 0, {}, 8},
      {"PostgreSQL, 1 box, batches", true, 1, true, 0, {}, 8},
      {"PostgreSQL, 3 boxes, batches", true, 3, true, 0, {}, 8},
  };
  // --only: the rows whose name holds TEXT, and the SQLite rows the
  // ratios are against.
  if (!only.empty())
    std::erase_if(configs, [&](const Config& c) {
      return c.postgres && std::string(c.name).find(only) == std::string::npos;
    });
  std::printf("bench-queue: %d jobs per run, durable commits, best of %d rounds\n", jobs, rounds);
  for (int round = 0; round < rounds; ++round) {
    for (size_t c = 0; c < configs.size(); ++c) {
      Config& config = configs[c];
      const std::string name = "bench_" + std::to_string(c);
      // A fresh database each time: no round starts with another's jobs.
      store::Location where = config.postgres ? fresh_postgres(admin, name)
                                              : store::Location::sqlite(dir + "/" + name + "-" +
                                                                        std::to_string(round) + ".db");
      keep_best(config.best,
                run(where, config.boxes, jobs, config.database_clock, config.held * jobs, config.batch));
    }
  }
  std::filesystem::remove_all(dir);

  const Rates& sqlite = configs[0].best;
  const Config& sqlite_batches =
      *std::find_if(configs.begin(), configs.end(), [](const Config& c) { return !c.postgres && c.batch > 1; });
  std::printf("%-32s %12s %8s %8s %12s %8s\n", "queue", "Enqueue/s", "ratio", "batched", "Claim/s", "ratio");
  for (const Config& config : configs) {
    std::string name = config.name;
    if (config.held) name += " " + std::to_string(config.held * jobs) + " held";
    char batched[16] = "";
    if (config.batch > 1)
      std::snprintf(batched, sizeof batched, "%.2fx", config.best.enqueue / sqlite_batches.best.enqueue);
    std::printf("%-32s %12.0f %7.2fx %8s %12.0f %7.2fx\n", name.c_str(), config.best.enqueue,
                config.best.enqueue / sqlite.enqueue, batched, config.best.claim, config.best.claim / sqlite.claim);
  }
  return 0;
}
