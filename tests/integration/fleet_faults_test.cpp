// Three boxes on one PostgreSQL under a steady load of jobs, while, in
// turn, the server restarts, one box's link to it black-holes (a loopback
// proxy that stops forwarding and closes nothing), and one box's clock runs
// an hour slow all along (faketime). Every job is done exactly once, and
// every box claims again within 15 s of the database being back. One
// `fleet faults:` line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"
#include "store/test_tcp_proxy.h"

using namespace bb::test;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kBoxes = 3;
constexpr int kJobs = 150;

json push_spec(uint64_t n) {
  return {{"kind", "push"},
          {"repository", "octo/widgets"},
          {"clone_url", "https://example.invalid/octo/widgets.git"},
          {"ref", "refs/heads/main"},
          {"head_sha", fake_sha(5000 + n)}};
}

struct Box {
  std::unique_ptr<bb::store::testdb::TcpProxy> link;
  std::unique_ptr<QueuedFixture> queued;
  std::atomic<int64_t> last_claim_ok{0};  // steady-clock ms of its last successful Claim
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Each box's runner: claims through its own box, "runs" a job for 100 ms,
// completes it; a job's completions are counted, whoever makes them.
struct Runners {
  std::vector<Box>& boxes;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::map<int64_t, int> completed;  // job -> successful Complete calls
  std::vector<std::string> errors[kBoxes];  // what each box answered when a call failed (any client)
  std::vector<std::thread> threads;

  explicit Runners(std::vector<Box>& b) : boxes(b) {
    for (int i = 0; i < kBoxes; ++i) threads.emplace_back([this, i] { run(i); });
  }
  ~Runners() {
    stop = true;
    for (auto& t : threads) t.join();
  }
  void run(int i) {
    QueueClient client(boxes[i].queued->address());
    const std::string runner = "runner-" + std::to_string(i);
    while (!stop) {
      int64_t id = 0;
      json job;
      if (auto e = client.claim(runner, 5, &id, &job)) {
        {
          std::lock_guard<std::mutex> lock(mu);
          errors[i].push_back(e.name + ": " + e.message);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      boxes[i].last_claim_ok = now_ms();
      if (id == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      // Until it is taken or refused: Unavailable is worth another try, a
      // Conflict means the lease went to another box meanwhile.
      for (int attempt = 0; attempt < 100 && !stop; ++attempt) {
        auto e = client.complete(id, runner, "/results/" + std::to_string(id) + ".json");
        {
          std::lock_guard<std::mutex> lock(mu);
          if (!e) {
            ++completed[id];
            break;
          }
          errors[i].push_back(e.name + ": " + e.message);
        }
        if (e.name != "org.benchbox.Error.Unavailable" && e.name.find("NoReply") == std::string::npos &&
            e.name.find("Timeout") == std::string::npos)
          break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
  }
};

// Seconds until every box (or just `only`) has claimed successfully after `since`.
double back_within(std::vector<Box>& boxes, int64_t since, int only = -1) {
  int64_t latest = since;
  for (int i = 0; i < kBoxes; ++i) {
    if (only >= 0 && i != only) continue;
    REQUIRE(wait_until([&] { return boxes[i].last_claim_ok.load() > since; }, std::chrono::seconds(30)));
    latest = std::max(latest, boxes[i].last_claim_ok.load());
  }
  return double(latest - since) / 1000.0;
}

}  // namespace

TEST_CASE("a fleet rides out a database restart, a black-holed link and a box an hour slow", "[fleet]") {
  const char* restart = std::getenv("BENCHBOX_TEST_POSTGRES_RESTART");
  REQUIRE(restart);
  const std::string conninfo = test_postgres_database("fleet_faults_" + std::to_string(::getpid()));
  REQUIRE_FALSE(conninfo.empty());
  REQUIRE(run_shell("command -v faketime >/dev/null") == 0);

  std::vector<Box> boxes(kBoxes);
  for (int i = 0; i < kBoxes; ++i) {
    boxes[i].link = std::make_unique<bb::store::testdb::TcpProxy>(
        bb::store::testdb::postgres_socket(std::getenv("BENCHBOX_TEST_POSTGRES")));
    REQUIRE(boxes[i].link->port() > 0);
    boxes[i].queued = std::make_unique<QueuedFixture>("  lease_seconds: 5\n  max_attempts: 10\n");
    boxes[i].queued->use_postgresql(conninfo + " host=127.0.0.1 port=" + std::to_string(boxes[i].link->port()));
  }
  boxes[0].queued->start_and_wait();
  boxes[1].queued->start_and_wait();
  // Box 2's clock is an hour slow: on its own clock every lease it gives
  // would have run out an hour ago for the other boxes, and they would take
  // its jobs away at once; on the server's they do not. (Slow, not fast:
  // libfaketime moves sd-event's "at once" timers before the epoch when
  // fast, and timerfd_settime refuses them.)
  // Under ASan, libfaketime's preload comes before the ASan runtime, which
  // ASan would refuse at start; it intercepts nothing ASan needs.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string asan_options =
      std::string("ASAN_OPTIONS=") + (asan && *asan ? std::string(asan) + ":" : "") + "verify_asan_link_order=0";
  boxes[2].queued->start_and_wait({"/usr/bin/env", asan_options, "FAKETIME_DONT_FAKE_MONOTONIC=1", "/usr/bin/faketime",
                                   "-f", "-1h"});

  Runners runners(boxes);
  std::map<int64_t, int> enqueued;  // job -> spec number
  std::atomic<int> produced{0};
  std::thread producer([&] {
    QueueClient clients[kBoxes] = {QueueClient(boxes[0].queued->address()), QueueClient(boxes[1].queued->address()),
                                   QueueClient(boxes[2].queued->address())};
    for (int n = 0; n < kJobs; ++n) {
      // As webhookd does with its spool: the same work again until a box
      // takes it (the same work is the same job, never a second one).
      for (int attempt = 0;; ++attempt) {
        int64_t id = 0;
        bool created = false;
        const int box = (n + attempt) % kBoxes;
        auto e = clients[box].enqueue(push_spec(n), &id, &created);
        {
          std::lock_guard<std::mutex> lock(runners.mu);
          if (!e) {
            enqueued[id] = n;
            break;
          }
          runners.errors[box].push_back(e.name + ": " + e.message);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      produced = n + 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(120));
    }
  });

  // 1. The server restarts.
  REQUIRE(wait_until([&] { return produced >= kJobs / 5; }, std::chrono::seconds(60)));
  std::string out;
  REQUIRE(run_shell(std::string(restart) + " 2>&1", &out) == 0);
  const double after_restart = back_within(boxes, now_ms());

  // 2. Box 1's link stops forwarding for 12 s: its calls give up at their
  // deadline, its job's lease runs out and another box takes it.
  REQUIRE(wait_until([&] { return produced >= 2 * kJobs / 5; }, std::chrono::seconds(60)));
  boxes[1].link->black_hole(true);
  const int64_t hole_opened = now_ms();
  std::this_thread::sleep_for(std::chrono::seconds(12));
  // The hole was felt: box 1 claimed nothing while it lasted (a call
  // already on its way may have finished in the first moment).
  const int64_t claimed_in_hole = boxes[1].last_claim_ok.load() - hole_opened;
  boxes[1].link->black_hole(false);
  const double after_black_hole = back_within(boxes, now_ms(), 1);

  producer.join();
  // Every job finished (done, or failed after max_attempts: then lost).
  QueueClient check(boxes[0].queued->address());
  REQUIRE(wait_until(
      [&] {
        std::vector<json> finished, failed;
        if (check.list("done", 1000, &finished) || check.list("failed", 1000, &failed)) return false;
        return finished.size() + failed.size() >= enqueued.size();
      },
      std::chrono::seconds(120)));
  runners.stop = true;
  std::map<int64_t, int> done;
  {
    std::lock_guard<std::mutex> lock(runners.mu);
    done = runners.completed;
  }
  int lost = 0, twice = 0;
  for (const auto& [id, n] : enqueued) {
    json job;
    REQUIRE_FALSE(check.get(id, &job));
    if (job["state"] != "done") ++lost;
    if (done[id] > 1) ++twice;
  }
  INFO(boxes[0].queued->log() << "\n---\n" << boxes[1].queued->log() << "\n---\n" << boxes[2].queued->log());
  CHECK(enqueued.size() == size_t(kJobs));
  // The faults were felt: every box lost its listening connection to the
  // restart; box 1 claimed nothing in the black hole (above).
  for (auto& b : boxes) CHECK(b.queued->log().find("listening again shortly") != std::string::npos);
  CHECK(claimed_in_hole < 1000);
  CHECK(lost == 0);
  CHECK(twice == 0);
  const double worst = std::max(after_restart, after_black_hole);
  CHECK(worst <= 15.0);
  std::printf("fleet faults: restart, black hole, clock skew: %zu jobs, %d lost, %d twice, back within %.1f s "
              "(restart %.1f s, black hole %.1f s; one box an hour slow throughout)\n",
              enqueued.size(), lost, twice, worst, after_restart, after_black_hole);
}
