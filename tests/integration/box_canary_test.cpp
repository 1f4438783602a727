// The box watching its own noise, end to end (issue #34, docs/canary.md):
// real benchbox-queued, benchbox-runnerd and benchbox-reporterd on a
// private bus, the real canary, and a competing load on the benchmark CPU.
// The canary sees the load; a push measured under it looks like a
// regression and is held, not confirmed or filed; once the load is gone
// and the canary is steady, its confirmation measures both commits
// interleaved and refutes it.
#include <catch2/catch.hpp>

#include <cstdio>

#include "runnerd_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

// The benchmark: a shell loop on the benchmark CPU.
const char* kBench = "#!/bin/sh\ni=0; while [ $i -lt 20000 ]; do i=$((i+1)); done\n";
const char* kConfig = "version: 1\nsuites:\n  - name: loop\n    run: sh bench.sh\n    repetitions: 10\n    warmup: 1\n";

std::string box_health(RunnerdFixture& f) {
  std::string out;
  run_shell("busctl --address=" + f.address() +
                " get-property org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 BoxHealth",
            &out);
  return out;
}

// Each canary run runnerd kept, as "time cpu-median memory-median", for a
// failure's log.
std::string canary_runs(RunnerdFixture& f) {
  std::string out;
  run_shell("cd " + (f.dir() / "state/results/canary") +
                " && for r in *.json; do printf '%s ' \"$r\"; python3 -c 'import json,sys,statistics as s; "
                "d=json.load(open(sys.argv[1])); print(\" \".join(\"%s=%.1fms\" % (b[\"name\"], 1000*s.median(b[\"samples\"])) "
                "for b in d[\"benchmarks\"]))' \"$r\"; done",
            &out);
  return out;
}

}  // namespace

TEST_CASE("a competing load: the canary sees it, the push's regression is held, then refuted once it is gone") {
  // The canary at every idle poll (about 5 s), 5 rounds a run.
  RunnerdFixture f("  canary_interval: 1\n  canary_idle_seconds: 0\n  canary_rounds: 5\n");
  f.commit(".benchbox.yml", kConfig, "config");
  const std::string good = f.commit("bench.sh", kBench, "the benchmark");
  const std::string same = f.commit("README", "nothing that changes the benchmark\n", "docs");
  f.start_runner();
  Process reporterd({build_path("daemons/reporterd/benchbox-reporterd"), "--config", f.config_path()},
                    {{"DBUS_SYSTEM_BUS_ADDRESS", f.address()}, {"BENCHBOX_LOG", "stderr"}}, f.dir() / "reporterd.log");
  auto logs = [&] { return f.runner_log() + "\n---\n" + reporterd.log() + "\n--- canary runs\n" + canary_runs(f); };
  INFO(logs());
  REQUIRE(wait_until([&] { return box_health(f).find("steady") != std::string::npos; }, std::chrono::seconds(90)));
  REQUIRE(f.wait_finished(f.enqueue(f.push_spec(good)), 120)["state"] == "done");

  // A competing load on the benchmark CPU, as a noisy neighbour would be.
  const std::string cpu = f.runner_property("BenchmarkCPUs", "s");
  // (The harness execs without a PATH search: whole paths.)
  Process load({"/usr/bin/taskset", "-c", cpu, "/bin/sh", "-c", "while :; do :; done"}, {}, f.dir() / "load.log");
  std::fprintf(stderr, "load on CPU '%s'\n", cpu.c_str());
  REQUIRE(wait_until([&] { return box_health(f).find("shifted") != std::string::npos; }, std::chrono::seconds(90)));
  // Measured alone (no previous head beside it), as a push whose suite asks
  // for its previous run is: compared with the good push's run.
  const int64_t pushed = f.enqueue(f.push_spec(same));
  REQUIRE(f.wait_finished(pushed, 180)["state"] == "done");
  // Under the load the push looked slower: held, no confirmation queued.
  REQUIRE(wait_until([&] { return reporterd.log().find("held: the box is shifted") != std::string::npos; },
                     std::chrono::seconds(60)));
  std::vector<json> jobs;
  REQUIRE_FALSE(f.client().list("", 0, &jobs));
  for (const auto& j : jobs) CHECK(j["kind"] != "compare");

  // The load is gone: the canary steadies, the confirmation runs on a box
  // that is itself again, and finds nothing.
  load.kill_hard();
  REQUIRE(wait_until([&] { return reporterd.log().find("released: the box is steady again") != std::string::npos; },
                     std::chrono::seconds(180)));
  REQUIRE(wait_until([&] { return reporterd.log().find("not confirmed") != std::string::npos; },
                     std::chrono::seconds(180)));
  CHECK(reporterd.log().find("is confirmed before it is filed") == std::string::npos);
  std::fprintf(stderr, "%s", canary_runs(f).c_str());
}
