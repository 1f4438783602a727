// A push that changed nothing its benchmarks run, on a real project's shape
// (#29): forty benchmarks of wildly different noise, and the host's load
// changed between the branch's previous job and this one (a busy loop on
// the benchmark CPU during one job only). Before, such a push was compared
// with the previous job's run and read dozens of benchmarks "improved" or
// "regressed". Now:
//  - measured beside its previous head (push_baseline: interleaved, the
//    default), both sides see the same load: at most the false-discovery
//    share (5 % of 40) is flagged;
//  - measured alone (previous-run), the load shift shows, but only as held
//    rows: nothing is published as changed before a confirmation.
// The verdicts checked are the published ones: report::build_report's.
#include <catch2/catch.hpp>
#include "skip.h"

#include <csignal>
#include <fstream>

#include "model/result_set.h"
#include "report/job_report.h"
#include "runnerd_fixture.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// go test's output, timed for real: each benchmark loops over its own
// amount of work, scaled by its own random spread (none for some, ±50 %
// for others), so the noise runs from the timer's to the code's.
const char* kBench = R"(import math, os, random, time
rng = random.Random(int.from_bytes(os.urandom(8), "little"))
spread = [0.0, 0.002, 0.01, 0.05, 0.2, 0.5]
print("goos: linux\ngoarch: amd64\npkg: example.com/noise")
for i in range(40):
    work = max(1, int(60000 * (1 + i % 5) * math.exp(rng.gauss(0, spread[i % len(spread)]))))
    t0 = time.perf_counter_ns()
    s = 0
    for k in range(work):
        s += k * k % 7
    print("BenchmarkCase%02d-1\t1\t%d ns/op" % (i, time.perf_counter_ns() - t0))
print("PASS\nok  \texample.com/noise\t0.1s")
)";

std::string config(const std::string& baseline) {
  return "version: 1\n"
         "suites:\n"
         "  - name: many\n"
         "    run: python3 bench.py\n"
         "    format: go-test\n"
         "    repetitions: 12\n"
         "    warmup: 1\n"
         "    push_baseline: " + baseline + "\n";
}

model::Job done_push(int64_t id, const std::string& sha) {
  model::Job j;
  j.id = id;
  j.state = model::JobState::done;
  j.spec.kind = model::JobKind::push;
  j.spec.repository = "acme/widget";
  j.spec.ref = "refs/heads/main";
  j.spec.head_sha = sha;
  return j;
}

model::JobResult result_of(RunnerdFixture& f, const json& job) {
  auto r = model::job_result_from_json(f.result_of(job));
  REQUIRE(r.ok());
  return *r;
}

struct Counts {
  int changed = 0;  // published regressed or improved
  int held = 0;     // held for a confirmation
  int rows = 0;
};

Counts counts(const report::JobReport& rep) {
  Counts c;
  REQUIRE(rep.comparison);
  for (const auto& r : rep.comparison->rows) {
    ++c.rows;
    c.changed += r.verdict == compare::Verdict::regressed || r.verdict == compare::Verdict::improved;
    c.held += r.held.has_value();
  }
  return c;
}

// A busy loop on `cpu` for as long as it lives: another tenant's load.
struct BusyLoop {
  std::string pid;
  explicit BusyLoop(const std::string& cpu) {
    REQUIRE(run_shell("taskset -c " + cpu + " sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!", &pid) == 0);
    pid = trim(pid);
  }
  ~BusyLoop() { run_shell("kill " + pid + " 2>/dev/null"); }
};

}  // namespace

TEST_CASE("a push that changed nothing, the host's load changed between jobs: nothing published as changed") {
  if (run_shell("command -v python3 >/dev/null && command -v taskset >/dev/null") != 0)
    BB_SKIP("needs python3 and taskset");
  RunnerdFixture f;
  f.commit("bench.py", kBench, "the benchmarks");
  const std::string first = f.commit(".benchbox.yml", config("interleaved"), "config");
  // The next push changes no file the benchmarks run.
  const std::string second = f.commit("README", "docs only\n", "docs");
  f.start_runner();
  const std::string cpu = f.runner_property("BenchmarkCPUs", "s");
  REQUIRE_FALSE(cpu.empty());

  // The branch's first push, on a quiet host.
  json job1 = f.wait_finished(f.enqueue(f.push_spec(first)), 300);
  INFO(f.runner_log());
  REQUIRE(job1["state"] == "done");
  const model::JobResult r1 = result_of(f, job1);
  REQUIRE(r1.head.benchmarks.size() >= 40);

  // The next push, with another tenant busy on the benchmark CPU all along.
  json job2;
  {
    BusyLoop load(cpu);
    job2 = f.wait_finished(f.enqueue(f.push_spec(second, "refs/heads/main", first)), 300);
  }
  REQUIRE(job2["state"] == "done");
  const model::JobResult r2 = result_of(f, job2);
  REQUIRE(r2.base);
  const int64_t id2 = job2["id"];

  // As published: compared within its job, against its previous head.
  const auto interleaved = report::build_report(done_push(id2, second), r2, r1.head, {});
  const Counts in = counts(interleaved);
  INFO("interleaved: " << in.changed << " of " << in.rows << " changed\n" << interleaved.markdown);
  CHECK(in.rows >= 40);
  CHECK_FALSE(interleaved.comparison->across_jobs);
  CHECK(in.held == 0);
  CHECK(in.changed <= in.rows * 5 / 100);  // the false-discovery share at q = 0.05

  // The same push as it was compared before (its head against job 1's
  // run): the load reads as a change of nearly every benchmark...
  model::JobResult alone = r2;
  alone.base.reset();
  const auto across = report::build_report(done_push(id2, second), alone, r1.head, {});
  const Counts ac = counts(across);
  INFO("across jobs: " << ac.held << " of " << ac.rows << " held\n" << across.markdown);
  CHECK(across.comparison->across_jobs);
  CHECK(ac.held >= ac.rows / 4);
  // ...but none is published as changed, and nothing calls it regressed.
  CHECK(ac.changed == 0);
  CHECK(across.overall != report::Overall::regressed);
  CHECK(across.overall != report::Overall::improved);
}
