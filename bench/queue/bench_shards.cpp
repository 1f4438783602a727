// bench/queue (shards): how soon a sharded suite shows its first result,
// against the time the whole suite takes on one box, measured in one run.
//
// The suite: eight benchmarks, each a fixed wait per repetition (a harness
// printing Google Benchmark JSON), so the figure is the appliance's own:
// queueing, building, declaring, claiming and the parallelism of boxes.
// Whole: one box (queued + runnerd, its own bus) measures the suite in one
// job. Sharded: three boxes on one PostgreSQL queue, the suite in four
// shards; the clock runs from the enqueue of the push to the first shard
// job done, and to the last. The three boxes share this machine's cores,
// which the waits do not use.
//
// Run beside a PostgreSQL server of its own:
//   tests/postgres/with-postgres.sh build/bench/bench-shards [--wait SECONDS]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runnerd_fixture.h"

using namespace bb;
using namespace bb::test;
using Steady = std::chrono::steady_clock;

namespace {

// Eight benchmarks, filtered as Google Benchmark does, each waiting
// `wait` seconds per run.
std::string harness(double wait) { return fake_google_benchmark("", "  sleep " + std::to_string(wait) + "\n"); }

std::string config(int shards) {
  return "version: 1\n"
         "suites:\n"
         "  - name: micro\n"
         "    run: sh bench.sh\n"
         "    format: google-benchmark\n"
         "    benchmarks: [BM_a, BM_b, BM_c, BM_d, BM_e, BM_f, BM_g, BM_h]\n"
         "    shards: " + std::to_string(shards) + "\n"
         "    repetitions: 3\n"
         "    warmup: 0\n";
}

double seconds_since(Steady::time_point t0) {
  return std::chrono::duration<double>(Steady::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  double wait = 0.25;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--wait") && i + 1 < argc) wait = std::atof(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench-shards [--wait SECONDS]\n");
      return 2;
    }
  }
  setenv("BENCHBOX_BUILD_ROOT", BB_BUILD_ROOT, 0);
  setenv("BENCHBOX_SOURCE_ROOT", BB_SOURCE_ROOT, 0);
  if (!std::getenv("BENCHBOX_TEST_POSTGRES")) {
    std::fprintf(stderr, "bench-shards: run it beside a server: tests/postgres/with-postgres.sh %s\n", argv[0]);
    return 2;
  }
  try {
    std::printf("bench-shards: 8 benchmarks x 3 repetitions, %.2f s each run\n", wait);
    // Whole, on one box.
    double whole = 0;
    {
      RunnerdFixture box("", "", "whole-0");
      box.commit("bench.sh", harness(wait), "a benchmark");
      const std::string sha = box.commit(".benchbox.yml", config(1), "one job");
      box.start_runner();
      const auto t0 = Steady::now();
      auto job = box.wait_finished(box.enqueue(box.push_spec(sha)), 600);
      whole = seconds_since(t0);
      if (job["state"] != "done") throw std::runtime_error("the whole suite's job: " + job.dump());
    }
    // Four shards over three boxes.
    double first = 0, last = 0;
    {
      std::vector<std::unique_ptr<RunnerdFixture>> boxes;
      boxes.push_back(std::make_unique<RunnerdFixture>("", "", "box-0"));
      const std::string conninfo = boxes[0]->queued().conninfo();
      for (int i = 1; i < 3; ++i)
        boxes.push_back(std::make_unique<RunnerdFixture>("", conninfo, "box-" + std::to_string(i)));
      RunnerdFixture& origin = *boxes[0];
      origin.commit("bench.sh", harness(wait), "a benchmark");
      const std::string sha = origin.commit(".benchbox.yml", config(4), "four shards");
      for (auto& b : boxes) b->start_runner();
      const auto t0 = Steady::now();
      const int64_t parent = origin.enqueue(origin.push_spec(sha));
      std::vector<nlohmann::json> shards;
      bool done_all = false;
      while (!done_all) {
        if (seconds_since(t0) > 600) throw std::runtime_error("the shards did not finish in 600 s");
        std::vector<nlohmann::json> all;
        if (origin.client().list("", 0, &all)) continue;
        size_t done = 0, count = 0;
        for (const auto& j : all) {
          if (j.value("id", int64_t{0}) == parent || j.value("shard", int64_t{0}) == 0) continue;
          ++count;
          if (j["state"] == "done") ++done;
          else if (j["state"] == "failed" || j["state"] == "cancelled")
            throw std::runtime_error("a shard did not finish: " + j.dump());
        }
        if (done > 0 && first == 0) first = seconds_since(t0);
        done_all = count == 4 && done == 4;
        if (done_all) last = seconds_since(t0);
        else ::usleep(20'000);
      }
    }
    std::printf("whole suite, one box:           %6.2f s (1.00)\n", whole);
    std::printf("first shard's result, 3 boxes:  %6.2f s (%.2f of the whole)\n", first, first / whole);
    std::printf("every shard's result, 3 boxes:  %6.2f s (%.2f of the whole)\n", last, last / whole);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-shards: %s\n", e.what());
    return 1;
  }
  return 0;
}
