// benchbox-runnerd end to end with a real benchbox-queued on a private bus
// and a real git repository: push and PR jobs to done, a broken
// .benchbox.yml, a failing fetch, a hanging benchmark, CancelCurrent,
// sequential sampling of a pull request.
#include <catch2/catch.hpp>
#include "skip.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <set>
#include <thread>

#include "compare/compare.h"
#include "exec/identity.h"
#include "formats/callgrind.h"
#include "runnerd_fixture.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

const json* find_bench(const json& rs, const std::string& name, const std::string& metric) {
  for (const auto& b : rs.at("benchmarks"))
    if (b.at("name") == name && b.at("metric") == metric) return &b;
  return nullptr;
}

size_t count_lines(const std::string& path) {
  auto text = read_file(path);
  return text ? split(trim(*text), '\n').size() : 0;
}

}  // namespace

TEST_CASE("a push job runs to done with a result file holding samples") {
  RunnerdFixture f;
  const std::string builds = f.dir() / "builds.log";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: micro\n"
                             "    build: \"echo built >> " + builds + "\"\n"
                             "    run: \"grep Cpus_allowed_list /proc/$$/status; test -f README\"\n"
                             "    repetitions: 3\n"
                             "    warmup: 1\n"
                             "    env: {MODE: fast}\n",
                             "add benchbox config");
  f.start_runner();
  CHECK(f.runner_property("State", "s") == "idle");
  CHECK(f.runner_property("Isolation", "s") == "affinity");
  const std::string cpus = f.runner_property("BenchmarkCPUs", "s");
  CHECK_FALSE(cpus.empty());

  int64_t id = f.enqueue(f.push_spec(sha));
  json job = f.wait_finished(id);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  CHECK(job["result_path"] == f.dir() / ("state/results/" + std::to_string(id) + "/result.json"));

  json r = f.result_of(job);
  CHECK(r["job_id"] == id);
  CHECK(r["kind"] == "push");
  CHECK((!r.contains("base") || r["base"].is_null()));
  const json& head = r["head"];
  CHECK(head["repository"] == "acme/widget");
  CHECK(head["commit"] == sha);
  CHECK(head["ref"] == "refs/heads/main");
  CHECK(head["role"] == "");
  CHECK(head["machine_fingerprint"] == "unavailable");  // no tunerd on this bus
  CHECK(head["isolation"] == "affinity");
  CHECK(head["cpus"] == json::array({std::stoi(cpus)}));
  CHECK(head["config_sha256"] == sha256_hex(head["config_text"].get<std::string>()));
  CHECK(head["environment_key"].get<std::string>().size() == 64);
  const json* wall = find_bench(head, "micro", "wall_time");
  const json* cpu = find_bench(head, "micro", "cpu_time");
  REQUIRE(wall);
  REQUIRE(cpu);
  CHECK((*wall)["status"] == "ok");
  CHECK((*wall)["samples"].size() == 3);
  CHECK((*wall)["rounds"] == json::array({0, 1, 2}));
  CHECK((*cpu)["samples"].size() == 3);
  for (double s : (*wall)["samples"]) CHECK(s > 0);
  // Measured from outside the process too, each metric its own raw samples;
  // user and system time apart and summed into cpu_time.
  const json* user = find_bench(head, "micro", "user_time");
  const json* sys = find_bench(head, "micro", "system_time");
  REQUIRE(user);
  REQUIRE(sys);
  for (size_t i = 0; i < 3; ++i)
    CHECK((*cpu)["samples"][i].get<double>() ==
          Approx((*user)["samples"][i].get<double>() + (*sys)["samples"][i].get<double>()));
  const json* mem = find_bench(head, "micro", "peak_memory");
  REQUIRE(mem);
  CHECK((*mem)["unit"] == "bytes");
  CHECK((*mem)["extra"]["memory_source"] == "ru_maxrss");  // no systemd scope here
  for (double s : (*mem)["samples"]) CHECK(s > 100 * 1024);
  for (const char* m : {"voluntary_switches", "involuntary_switches"}) {
    const json* n = find_bench(head, "micro", m);
    REQUIRE(n);
    CHECK((*n)["unit"] == "count");
    CHECK((*n)["samples"].size() == 3);
  }
  // A plain command's reports judge wall and CPU time unless metrics: says more.
  CHECK(head["suites"]["micro"]["metrics"] == json({"wall_time", "cpu_time"}));

  // Built once; the benchmark's output reached the job's output log, with
  // its suite and round, and showed the pinning. The journal has one entry
  // per command, not its lines.
  CHECK(count_lines(builds) == 1);
  auto output = read_file(f.dir() / ("state/results/" + std::to_string(id) + "/output.log"));
  REQUIRE(output);
  INFO(*output);
  CHECK(output->find("[micro round 1] Cpus_allowed_list:\t" + cpus + "\n") != std::string::npos);
  CHECK(f.runner_log().find("Cpus_allowed_list") == std::string::npos);
  CHECK(f.runner_log().find("[micro round 1] run done in ") != std::string::npos);
  CHECK(f.runner_log().find("[micro] build done in ") != std::string::npos);
  CHECK(wait_until([&] { return f.runner_property("JobsRun", "t") == "1"; }));
  CHECK(f.runner_property("State", "s") == "idle");
  CHECK(f.runner_property("CurrentJob", "x") == "0");
  CHECK_FALSE(path_exists(f.dir() / ("cache/work/" + std::to_string(id))));
}

TEST_CASE("a pull request job measures the merge-base and the head, interleaved in rounds") {
  RunnerdFixture f;
  const std::string builds = f.dir() / "builds.log";
  std::string base = f.commit(".benchbox.yml",
                              "version: 1\n"
                              "suites:\n"
                              "  - name: startup\n"
                              "    build: \"echo $BENCHBOX_ROLE >> " + builds + "\"\n"
                              "    run: ./bench.sh\n"
                              "    repetitions: 4\n"
                              "    warmup: 1\n",
                              "config");
  f.commit("bench.sh", "#!/bin/sh\ntrue\n", "fast bench");
  std::string fork_point = f.git("-C " + (f.dir() / "work") + " rev-parse HEAD");
  f.commit("main-only.txt", "x\n", "main moves on");
  std::string main_tip = f.git("-C " + (f.dir() / "work") + " rev-parse HEAD");
  f.git("-C " + (f.dir() / "work") + " checkout -q -b feature " + fork_point);
  f.git("-C " + (f.dir() / "work") + " config push.default current");
  std::string pr_head = f.commit("bench.sh", "#!/bin/sh\nsleep 0.05\n", "slower bench");
  f.make_pr_ref(7, pr_head);
  (void)base;

  f.start_runner();
  int64_t id = f.enqueue({{"kind", "pull_request"},
                          {"repository", "acme/widget"},
                          {"clone_url", "file://" + f.origin()},
                          {"ref", "refs/pull/7/head"},
                          {"head_sha", pr_head},
                          {"base_ref", "refs/heads/main"},
                          {"base_sha", main_tip},
                          {"pr_number", 7}});
  json job = f.wait_finished(id);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  CHECK(r["kind"] == "pull_request");
  CHECK(r["seed"].is_number_integer());
  REQUIRE(r["base"].is_object());
  CHECK(r["base"]["role"] == "base");
  CHECK(r["base"]["commit"] == fork_point);  // the merge-base, not the base tip
  CHECK(r["base"]["ref"] == "refs/heads/main");
  CHECK(r["head"]["role"] == "head");
  CHECK(r["head"]["commit"] == pr_head);
  CHECK(r["head"]["ref"] == "refs/pull/7/head");
  CHECK(r["base"]["environment_key"] == r["head"]["environment_key"]);
  for (const char* role : {"base", "head"}) {
    const json* wall = find_bench(r[role], "startup", "wall_time");
    REQUIRE(wall);
    CHECK((*wall)["status"] == "ok");
    CHECK((*wall)["rounds"] == json::array({0, 1, 2, 3}));
  }
  // The head sleeps 50 ms per run, the base does not.
  double base_min = 1e9, head_min = 1e9;
  for (double s : (*find_bench(r["base"], "startup", "wall_time"))["samples"]) base_min = std::min(base_min, s);
  for (double s : (*find_bench(r["head"], "startup", "wall_time"))["samples"]) head_min = std::min(head_min, s);
  CHECK(head_min > base_min);
  CHECK(head_min >= 0.05);
  // Each commit was built exactly once.
  auto log = read_file(builds);
  REQUIRE(log);
  auto lines = split(trim(*log), '\n');
  std::sort(lines.begin(), lines.end());
  CHECK(lines == std::vector<std::string>{"base", "head"});
}

TEST_CASE("a push measures the branch's previous head beside it, interleaved in rounds (push_baseline)") {
  RunnerdFixture f;
  const std::string builds = f.dir() / "builds.log";
  f.commit(".benchbox.yml",
           "version: 1\n"
           "suites:\n"
           "  - name: startup\n"
           "    build: \"echo $BENCHBOX_ROLE >> " + builds + "\"\n"
           "    run: ./bench.sh\n"
           "    repetitions: 3\n"
           "    warmup: 0\n",
           "config");
  const std::string before = f.commit("bench.sh", "#!/bin/sh\ntrue\n", "fast bench");
  const std::string after = f.commit("bench.sh", "#!/bin/sh\nsleep 0.05\n", "slower bench");
  f.start_runner();
  const int64_t id = f.enqueue(f.push_spec(after, "refs/heads/main", before));
  json job = f.wait_finished(id);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  CHECK(r["kind"] == "push");
  REQUIRE(r["base"].is_object());
  CHECK(r["base"]["role"] == "base");
  CHECK(r["base"]["commit"] == before);
  CHECK(r["base"]["ref"] == "refs/heads/main");
  CHECK(r["base"]["job_id"] == id);
  // The pushed commit stays the branch's point, as a push measured alone is.
  CHECK(r["head"]["role"] == "");
  CHECK(r["head"]["commit"] == after);
  CHECK(r["head"]["job_id"] == id);
  for (const char* role : {"base", "head"}) {
    const json* wall = find_bench(r[role], "startup", "wall_time");
    REQUIRE(wall);
    CHECK((*wall)["rounds"] == json::array({0, 1, 2}));
  }
  double base_min = 1e9, head_min = 1e9;
  for (double s : (*find_bench(r["base"], "startup", "wall_time"))["samples"]) base_min = std::min(base_min, s);
  for (double s : (*find_bench(r["head"], "startup", "wall_time"))["samples"]) head_min = std::min(head_min, s);
  CHECK(head_min >= 0.05);
  CHECK(base_min < 0.05);
  auto log = read_file(builds);
  REQUIRE(log);
  auto lines = split(trim(*log), '\n');
  std::sort(lines.begin(), lines.end());
  CHECK(lines == std::vector<std::string>{"base", "run"});
  CHECK(f.runner_log().find("push measured against the branch's previous head " + short_sha(before) +
                            ", interleaved in this job") != std::string::npos);
}

TEST_CASE("a push is measured alone when a suite asks for its previous run, and after a force-push") {
  RunnerdFixture f;
  const std::string work = f.dir() / "work";
  f.commit(".benchbox.yml",
           "version: 1\n"
           "suites:\n"
           "  - name: long\n"
           "    run: \"true\"\n"
           "    repetitions: 2\n"
           "    push_baseline: previous-run\n",
           "config");
  const std::string before = f.commit("a.txt", "1\n", "one");
  const std::string after = f.commit("a.txt", "2\n", "two");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(after, "refs/heads/main", before)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  CHECK((!r.contains("base") || r["base"].is_null()));
  CHECK(f.runner_log().find("push measured alone, to be compared with the branch's previous run: suite 'long' "
                            "asks for push_baseline: previous-run") != std::string::npos);

  // A force-push: the old head (kept by a tag, so it is fetched) is no
  // ancestor of the new one.
  f.commit(".benchbox.yml", "version: 1\nsuites:\n  - name: short\n    run: \"true\"\n    repetitions: 2\n", "config");
  const std::string old_head = f.git("-C " + work + " rev-parse HEAD");
  f.git("-C " + work + " tag keep");
  f.git("-C " + work + " push -q origin keep");
  f.git("-C " + work + " reset -q --hard HEAD~1");
  f.commit(".benchbox.yml", "version: 1\nsuites:\n  - name: short\n    run: \"true\"\n    repetitions: 3\n", "rewritten");
  const std::string new_head = f.git("-C " + work + " rev-parse HEAD");
  json job2 = f.wait_finished(f.enqueue(f.push_spec(new_head, "refs/heads/main", old_head)));
  REQUIRE(job2["state"] == "done");
  json r2 = f.result_of(job2);
  CHECK((!r2.contains("base") || r2["base"].is_null()));
  CHECK(f.runner_log().find("the previous head " + short_sha(old_head) + " is not an ancestor of " +
                            short_sha(new_head) + " (a force-push)") != std::string::npos);
}

TEST_CASE("a broken .benchbox.yml fails the job naming the line, and nothing runs") {
  RunnerdFixture f;
  const std::string marker = f.dir() / "ran";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: micro\n"
                             "    build: \"touch " + marker + "\"\n"
                             "    run: \"touch " + marker + "\"\n"
                             "    repetitons: 3\n",
                             "typo");
  f.start_runner();
  int64_t id = f.enqueue(f.push_spec(sha));
  json job = f.wait_finished(id);
  REQUIRE(job["state"] == "failed");
  std::string error = job["error"];
  INFO(error);
  CHECK(error.find("broken .benchbox.yml in commit " + sha.substr(0, 12)) != std::string::npos);
  CHECK(error.find(".benchbox.yml:6:5: suites[0]: unknown key 'repetitons'") != std::string::npos);
  CHECK_FALSE(path_exists(marker));
}

TEST_CASE("a fetch that fails and a failing build fail the job with the reason") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: s\n    build: \"echo compiling; echo 'error: no' >&2; exit 2\"\n"
                             "    run: \"true\"\n",
                             "bad build");
  f.start_runner();
  json spec = f.push_spec(sha);
  spec["clone_url"] = f.dir() / "missing.git";
  json job = f.wait_finished(f.enqueue(spec));
  REQUIRE(job["state"] == "failed");
  INFO(job.dump());
  CHECK(job["error"].get<std::string>().rfind("fetch " + (f.dir() / "missing.git") + ": ", 0) == 0);

  job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  REQUIRE(job["state"] == "failed");
  CHECK(job["error"] == "build of suite 's' failed at " + sha.substr(0, 12) + ": exit status 2:\ncompiling\nerror: no");

  // A commit without the file.
  std::string first = f.git("-C " + (f.dir() / "work") + " rev-list --max-parents=0 HEAD");
  job = f.wait_finished(f.enqueue(f.push_spec(first)));
  REQUIRE(job["state"] == "failed");
  CHECK(job["error"] == "no .benchbox.yml in commit " + first);
}

TEST_CASE("a hanging or crashing benchmark is marked failed; the rest of the job completes") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: hangs\n"
                             "    run: \"sleep 1000\"\n"
                             "    timeout: 1\n"
                             "    repetitions: 3\n"
                             "  - name: crashes\n"
                             "    run: \"kill -SEGV $$\"\n"
                             "  - name: fine\n"
                             "    run: \"true\"\n"
                             "    repetitions: 2\n",
                             "mixed");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  const json* hang = find_bench(head, "hangs", "wall_time");
  REQUIRE(hang);
  CHECK((*hang)["status"] == "failed");
  CHECK((*hang)["reason"] == "timed out after 1 s");
  CHECK((*hang)["samples"].empty());
  const json* crash = find_bench(head, "crashes", "wall_time");
  REQUIRE(crash);
  CHECK((*crash)["status"] == "failed");
  CHECK((*crash)["reason"] == "killed by SIGSEGV");
  const json* fine = find_bench(head, "fine", "wall_time");
  REQUIRE(fine);
  CHECK((*fine)["status"] == "ok");
  CHECK((*fine)["samples"].size() == 2);
  // Each suite's outcome: what tells a lost benchmark from a removed one.
  CHECK(head["suites"]["hangs"]["status"] == "failed");
  CHECK(head["suites"]["hangs"]["reason"] == "timed out after 1 s");
  CHECK(head["suites"]["crashes"]["status"] == "failed");
  CHECK(head["suites"]["fine"]["status"] == "ok");
}

TEST_CASE("a round killed after good rounds is run once more; a crash that repeats fails with its output") {
  // On a real project one stray SIGKILL in round 31 of 32 once failed the
  // whole job. BENCHBOX_ROUND counts from 0 (no warmup here).
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: killed-once\n"
                             "    run: \"if [ $BENCHBOX_ROUND = 2 ] && [ ! -e .killed ]; then touch .killed; "
                             "kill -KILL $$; fi\"\n"
                             "    warmup: 0\n"
                             "    repetitions: 4\n"
                             "  - name: crashes-at-2\n"
                             "    run: \"if [ $BENCHBOX_ROUND = 2 ]; then echo dying >&2; kill -KILL $$; fi\"\n"
                             "    warmup: 0\n"
                             "    repetitions: 4\n"
                             "  - name: fails-at-once\n"
                             "    run: \"exit 3\"\n"
                             "    warmup: 0\n"
                             "    repetitions: 4\n",
                             "flaky");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  const json* once = find_bench(head, "killed-once", "wall_time");
  REQUIRE(once);
  CHECK((*once)["status"] == "ok");
  CHECK((*once)["samples"].size() == 4);
  CHECK((*once)["rounds"] == json::array({0, 1, 2, 3}));
  REQUIRE((*once)["extra"]["retried_rounds"].size() == 1);
  CHECK((*once)["extra"]["retried_rounds"][0]["round"] == 2);
  CHECK((*once)["extra"]["retried_rounds"][0]["reason"] ==
        "killed by SIGKILL from outside benchbox (not a timeout, cancellation or per-job bound)");
  CHECK(head["suites"]["killed-once"]["status"] == "ok");
  // It repeats: a failed benchmark, with both deaths and the output's tail,
  // and the rounds measured before it kept.
  const json* repeats = find_bench(head, "crashes-at-2", "wall_time");
  REQUIRE(repeats);
  CHECK((*repeats)["status"] == "failed");
  CHECK((*repeats)["reason"] ==
        "killed by SIGKILL from outside benchbox (not a timeout, cancellation or per-job bound) (twice: the round was "
        "run again and failed the same way)");
  CHECK((*repeats)["extra"]["output_tail"].get<std::string>().find("dying") != std::string::npos);
  CHECK((*repeats)["samples"].size() == 2);
  // Failing from the first round is the harness, not chance: not run again.
  const json* always = find_bench(head, "fails-at-once", "wall_time");
  REQUIRE(always);
  CHECK((*always)["status"] == "failed");
  CHECK((*always)["reason"] == "exit status 3");
  CHECK_FALSE((*always)["extra"].contains("retried_rounds"));
}

TEST_CASE("the environment key covers the toolchain's versions and the lock files, stored beside it") {
  RunnerdFixture f;
  f.commit("poetry.lock", "numpy==1.26.4\n", "lock");
  const std::string config =
      "version: 1\n"
      "suites:\n"
      "  - name: micro\n"
      "    run: \"true\"\n"
      "    repetitions: 1\n"
      "    toolchain: [\"echo cc 12.2.0\", \"echo java 17 >&2\", \"exit 4\"]\n"
      "    lock_files: [poetry.lock, Cargo.lock]\n";
  std::string first = f.commit(".benchbox.yml", config, "config");
  f.start_runner();
  json a = f.result_of(f.wait_finished(f.enqueue(f.push_spec(first))))["head"];
  INFO(f.runner_log());
  const json& suite = a["environment"]["suites"][0];
  CHECK(suite["toolchain"]["echo cc 12.2.0"] == "cc 12.2.0");
  CHECK(suite["toolchain"]["echo java 17 >&2"] == "java 17");  // stderr counts too
  CHECK(suite["toolchain"]["exit 4"] == "failed (exit status 4)");
  CHECK(suite["lock_files"]["poetry.lock"] == sha256_hex("numpy==1.26.4\n"));
  CHECK(suite["lock_files"]["Cargo.lock"] == "absent");
  // The box's hardware class stands in the key for the runner's name,
  // which is recorded beside it: trends are per class, not per box.
  const json& hw = a["environment"]["hardware"];
  CHECK(hw["cpus"].get<int>() >= 1);
  CHECK(hw["memory_gib"].get<int>() >= 1);
  CHECK_FALSE(hw["kernel"].get<std::string>().empty());
  CHECK(hw["tuning"] == "unavailable");  // no tunerd in this test
  CHECK(a["environment"]["runner"] == "test-runner");
  json keyed = a["environment"];
  keyed.erase("runner");
  CHECK(a["environment_key"] == sha256_hex(keyed.dump()));
  // A commit that changes nothing the key covers keeps it; a lock bump does not.
  std::string same = f.commit("README", "docs", "docs");
  json b = f.result_of(f.wait_finished(f.enqueue(f.push_spec(same))))["head"];
  CHECK(b["environment_key"] == a["environment_key"]);
  std::string bumped = f.commit("poetry.lock", "numpy==2.0.0\n", "bump numpy");
  json c = f.result_of(f.wait_finished(f.enqueue(f.push_spec(bumped))))["head"];
  CHECK(c["environment_key"] != a["environment_key"]);
}

TEST_CASE("counters: software events counted per round, a missing PMU recorded once with why") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: counted\n"
                             "    run: \"python3 -c 'bytearray(4 << 20)'\"\n"
                             "    repetitions: 3\n"
                             "    counters: [task-clock, page-faults, instructions]\n",
                             "counters");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  const json* clock = find_bench(head, "counted", "task_clock");
  const json* faults = find_bench(head, "counted", "page_faults");
  const json* ins = find_bench(head, "counted", "instructions");
  REQUIRE(clock);
  REQUIRE(faults);
  REQUIRE(ins);
  CHECK((*clock)["unit"] == "s");
  CHECK((*clock)["samples"].size() == 3);
  for (double v : (*clock)["samples"]) CHECK(v > 0.001);
  CHECK((*faults)["samples"].size() == 3);
  for (double v : (*faults)["samples"]) CHECK(v > 1024);  // 4 MiB of 4 KiB pages
  if ((*ins)["status"] == "skipped") {  // no PMU here (a VM)
    CHECK((*ins)["samples"].empty());
    CHECK((*ins)["reason"].get<std::string>().rfind("unavailable: ", 0) == 0);
  } else {
    CHECK((*ins)["samples"].size() == 3);
  }
  CHECK(head["suites"]["counted"]["metrics"] ==
        json({"wall_time", "cpu_time", "task_clock", "page_faults", "instructions"}));

  std::string bad = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: x\n    run: \"true\"\n    counters: [instrs]\n", "typo");
  json failed = f.wait_finished(f.enqueue(f.push_spec(bad)));
  CHECK(failed["state"] == "failed");
  CHECK(failed["error"].get<std::string>().find("suite 'x': unknown counter 'instrs' (known: instructions, cycles,") !=
        std::string::npos);
}

TEST_CASE("the build cache: the same tree built the same way is restored, not built again") {
  RunnerdFixture f;
  const std::string builds = f.dir() / "builds.log";
  // Every job appends as its own uid: the log is made open to all of them.
  std::ofstream(builds).close();
  REQUIRE(::chmod(builds.c_str(), 0666) == 0);
  f.commit("data", "1", "data");
  const std::string config = "version: 1\n"
                             "suites:\n"
                             "  - name: micro\n"
                             "    build: \"echo built >> " + builds + "; mkdir -p out; echo artifact > out/bin\"\n"
                             "    run: \"test \\\"$(cat out/bin)\\\" = artifact\"\n"
                             "    repetitions: 1\n";
  std::string first = f.commit(".benchbox.yml", config, "config");
  f.start_runner();
  json a = f.result_of(f.wait_finished(f.enqueue(f.push_spec(first))));
  INFO(f.runner_log());
  CHECK(a["head"]["build_cache"] == "miss");
  CHECK(count_lines(builds) == 1);
  // A re-run of the same commit: no build, and the restored tree is the
  // built one (the run command found out/bin).
  json again = f.result_of(f.wait_finished(f.enqueue(f.push_spec(first))));
  CHECK(again["head"]["build_cache"] == "hit");
  CHECK(find_bench(again["head"], "micro", "wall_time")->at("status") == "ok");
  CHECK(count_lines(builds) == 1);
  CHECK(f.runner_log().find("build cache hit: " + first.substr(0, 12) + " is not built again") != std::string::npos);
  // Another tree builds; a later commit with the first one's tree (a revert) does not.
  std::string changed = f.commit("data", "2", "change data");
  json c = f.result_of(f.wait_finished(f.enqueue(f.push_spec(changed))));
  CHECK(c["head"]["build_cache"] == "miss");
  CHECK(count_lines(builds) == 2);
  std::string reverted = f.commit("data", "1", "revert data");
  json r = f.result_of(f.wait_finished(f.enqueue(f.push_spec(reverted))));
  CHECK(r["head"]["build_cache"] == "hit");
  CHECK(count_lines(builds) == 2);
}

TEST_CASE("measure: callgrind gives identical counts run to run, and a 0.1 % change in work is a regression") {
  RunnerdFixture f;
  f.commit("work.c",
           "#include <stdlib.h>\n"
           "int main(int argc, char** argv) {\n"
           "  volatile unsigned long s = 0;\n"
           "  long n = atol(argv[1]);\n"
           "  for (long i = 0; i < n; ++i) s += i * 7;\n"
           "  return 0;\n"
           "}\n",
           "work");
  auto config = [](const std::string& n) {
    return "version: 1\n"
           "suites:\n"
           "  - name: cg\n"
           "    build: \"cc -O1 -o work work.c\"\n"
           "    run: \"./work " + n + "\"\n"
           "    measure: callgrind\n"
           "    repetitions: 2\n"
           "    warmup: 0\n";
  };
  std::string base = f.commit(".benchbox.yml", config("1000000"), "base");
  f.start_runner();
  json a = f.wait_finished(f.enqueue(f.push_spec(base)), 120);
  INFO(f.runner_log());
  REQUIRE(a["state"] == "done");
  json ra = f.result_of(a)["head"];
  const json* ins = find_bench(ra, "cg", "instructions");
  REQUIRE(ins);
  REQUIRE((*ins)["samples"].size() == 2);
  CHECK((*ins)["samples"][0] == (*ins)["samples"][1]);  // ASLR off, a fixed cache model: identical
  CHECK((*ins)["samples"][0].get<double>() > 5e6);
  CHECK(find_bench(ra, "cg", "conditional_branches"));
  CHECK(find_bench(ra, "cg", "l1d_read_misses"));
  CHECK_FALSE(find_bench(ra, "cg", "wall_time"));  // valgrind's time is not the benchmark's
  CHECK(ra["suites"]["cg"]["metrics"] == json({"instructions"}));

  std::string head = f.commit(".benchbox.yml", config("1001000"), "0.1 % more work");
  json b = f.wait_finished(f.enqueue(f.push_spec(head)), 120);
  REQUIRE(b["state"] == "done");
  auto base_set = model::result_set_from_json(ra), head_set = model::result_set_from_json(f.result_of(b)["head"]);
  REQUIRE(base_set.ok());
  REQUIRE(head_set.ok());
  head_set->environment_key = base_set->environment_key;  // the run command differs on purpose
  auto c = compare::compare(*base_set, *head_set, {});
  REQUIRE(c.rows.size() == 1);
  CHECK(c.rows[0].key.metric == "instructions");
  CHECK(c.rows[0].method == "exact");
  CHECK(c.rows[0].verdict == compare::Verdict::regressed);
  CHECK(c.rows[0].ratio > 1.0005);
  CHECK(c.rows[0].ratio < 1.002);

  // Both sides' profiles were kept with the results; they account for every
  // instruction, and their diff puts the change in main's loop.
  auto functions = [](const model::ResultSet& rs) {
    std::map<std::string, formats::FunctionCost> f;
    for (const auto& b : rs.benchmarks)
      if (b.key.metric == "instructions")
        for (const auto& p : b.extra.at("profiles")) {
          auto text = read_file(p.get<std::string>());
          REQUIRE(text.ok());
          REQUIRE(formats::add_callgrind_functions(*text, p.get<std::string>(), f).ok());
        }
    return f;
  };
  auto fb = functions(*base_set), fh = functions(*head_set);
  double self_total = 0;
  for (const auto& [name, cost] : fh) self_total += cost.self;
  CHECK(self_total == Approx(find_bench(f.result_of(b)["head"], "cg", "instructions")->at("samples")[1].get<double>())
                          .epsilon(0.001));
  auto diff = formats::profile_diff(fb, fh);
  REQUIRE_FALSE(diff.empty());
  CHECK(diff[0].function == "main");
  CHECK(diff[0].share > 0.9);
}

TEST_CASE("a callgrind suite that fails says so under the metric its reports show") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: cg\n    run: \"exit 3\"\n    measure: callgrind\n"
                             "    repetitions: 1\n    warmup: 0\n  - name: fine\n    run: \"true\"\n    repetitions: 1\n",
                             "broken callgrind suite");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)), 120);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  const json* cg = find_bench(head, "cg", "instructions");
  REQUIRE(cg);
  CHECK((*cg)["status"] == "failed");
  CHECK((*cg)["reason"] == "exit status 3");
  CHECK(head["suites"]["cg"]["status"] == "failed");
}

TEST_CASE("a suite's declaration: its list command's names, its benchmarks:, a listing that fails") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: listed\n"
                             "    run: \"true\"\n"
                             "    repetitions: 1\n"
                             "    list: \"printf 'BenchmarkB\\\\nBenchmarkA\\\\nok  example.com/x 0.01s\\\\n'\"\n"
                             "    format: command\n"
                             "  - name: written\n"
                             "    run: \"true\"\n"
                             "    repetitions: 1\n"
                             "    benchmarks: [one, two]\n"
                             "  - name: broken-list\n"
                             "    run: \"true\"\n"
                             "    repetitions: 1\n"
                             "    list: \"echo no such harness >&2; exit 3\"\n",
                             "declarations");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json suites = f.result_of(job)["head"]["suites"];
  INFO(suites.dump(2));
  // format: command reads one name a line, the trailing go line included.
  CHECK(suites["listed"]["declared"] == json({"BenchmarkA", "BenchmarkB", "ok  example.com/x 0.01s"}));
  CHECK(suites["listed"]["declared_by"] == "list command");
  CHECK(suites["written"]["declared"] == json({"one", "two"}));
  CHECK(suites["written"]["declared_by"] == ".benchbox.yml");
  CHECK(suites["broken-list"]["status"] == "ok");  // measured all the same
  CHECK(suites["broken-list"]["list_error"] == "exit status 3:\nno such harness");
  CHECK_FALSE(suites["broken-list"].contains("declared"));
  CHECK(f.runner_log().find("list command of suite 'broken-list' failed") != std::string::npos);
}

TEST_CASE("a job whose every benchmark hangs fails, naming the timeout") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: hangs\n"
                             "    run: \"sleep 1000\"\n"
                             "    timeout: 1\n"
                             "    repetitions: 2\n",
                             "all hang");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "failed");
  std::string error = job["error"];
  CHECK(error.find("no benchmark could be measured: suite 'hangs'") != std::string::npos);
  CHECK(error.find("timed out after 1 s") != std::string::npos);
}

TEST_CASE("CancelCurrent stops the job's processes and cancels it in the queue") {
  RunnerdFixture f;
  const std::string started = f.dir() / "started";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: long\n    run: \"touch " + started +
                                 "; sleep 1000\"\n    timeout: 2000\n",
                             "long");
  f.start_runner();
  int64_t id = f.enqueue(f.push_spec(sha));
  REQUIRE(wait_until([&] { return path_exists(started); }));
  CHECK(f.runner_property("State", "s") == "running");
  CHECK(f.runner_property("CurrentJob", "x") == std::to_string(id));
  std::string out;
  if (::geteuid() == 0) {
    // Only operators may: a user the access section does not name is
    // refused by runnerd itself (this test bus lets anyone call anything).
    for (const char* call : {"CancelCurrent s forged", "Pause s forged", "Resume"}) {
      CHECK(run_as_nobody("busctl --address=" + f.address() +
                              " call org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 " + call,
                          &out) != 0);
      CHECK(out.find("Access denied") != std::string::npos);
    }
    CHECK(f.runner_property("State", "s") == "running");
    CHECK(f.runner_property("Paused", "b") == "false");
  }
  int rc = run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + f.address() +
                         " busctl --system call org.benchbox.Runner1 /org/benchbox/Runner1 "
                         "org.benchbox.Runner1 CancelCurrent s 'operator asked' 2>&1",
                     &out);
  INFO(out);
  CHECK(rc == 0);
  json job = f.wait_finished(id, 30);
  CHECK(job["state"] == "cancelled");
  CHECK(job["error"].get<std::string>().find("operator asked") != std::string::npos);
  CHECK(wait_until([&] { return f.runner_property("State", "s") == "idle"; }));
  CHECK(f.runner_property("JobsRun", "t") == "0");
}

TEST_CASE("Pause lets the running job finish and claims no other until Resume") {
  RunnerdFixture f;
  const std::string started = f.dir() / "started", release = f.dir() / "release";
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\nsuites:\n  - name: wait\n    run: \"touch " + started +
                                 "; while [ ! -e " + release + " ]; do sleep 0.1; done\"\n    repetitions: 1\n"
                                 "    timeout: 60\n",
                             "wait");
  f.start_runner();
  int64_t first = f.enqueue(f.push_spec(sha));
  REQUIRE(wait_until([&] { return path_exists(started); }));
  auto busctl = [&](const std::string& args) {
    std::string out;
    int rc = run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + f.address() +
                           " busctl --system call org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 " +
                           args + " 2>&1",
                       &out);
    INFO(out);
    CHECK(rc == 0);
  };
  busctl("Pause s 'benchbox-update: 0.1.0 -> 0.1.1'");
  CHECK(f.runner_property("Paused", "b") == "true");
  CHECK(f.runner_property("PausedReason", "s") == "benchbox-update: 0.1.0 -> 0.1.1");
  std::string other = f.commit("README", "two", "second");
  int64_t second = f.enqueue(f.push_spec(other));
  run_shell("touch '" + release + "'");
  CHECK(f.wait_finished(first, 60)["state"] == "done");  // the running job was not cut short
  REQUIRE(wait_until([&] { return f.runner_property("State", "s") == "idle"; }));
  // Showing that a claim does not happen takes a fixed wait: a paused runner
  // skips its chances without a word, on the bus or in its log. Its other
  // chances (the JobQueued signal, the end of the first job) came before;
  // 6 s is one idle poll (kPollUsec, 5 s, in daemons/runnerd/manager.cpp)
  // and a second of slack, so at least one poll passed while idle.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  json job;
  REQUIRE_FALSE(f.client().get(second, &job));
  CHECK(job["state"] == "queued");
  CHECK(f.runner_property("State", "s") == "idle");
  busctl("Resume");
  CHECK(f.runner_property("Paused", "b") == "false");
  CHECK(f.wait_finished(second, 60)["state"] == "done");
  CHECK(f.runner_log().find("paused: no new job is claimed (benchbox-update: 0.1.0 -> 0.1.1)") != std::string::npos);
}

TEST_CASE("Hold pauses the runner while its caller is on the bus, and ends when the caller is gone") {
  RunnerdFixture f;
  std::string sha = f.commit(".benchbox.yml", "version: 1\nsuites:\n  - name: quick\n    run: \"true\"\n"
                                              "    repetitions: 1\n", "quick");
  f.start_runner();
  // The self-updater's connection: it holds the runner, then is killed.
  sd_bus* updater = nullptr;
  REQUIRE(sd_bus_new(&updater) >= 0);
  REQUIRE(sd_bus_set_address(updater, f.address().c_str()) >= 0);
  REQUIRE(sd_bus_set_bus_client(updater, 1) >= 0);
  REQUIRE(sd_bus_start(updater) >= 0);
  sd_bus_error error = SD_BUS_ERROR_NULL;
  const int r = sd_bus_call_method(updater, "org.benchbox.Runner1", "/org/benchbox/Runner1", "org.benchbox.Runner1",
                                   "Hold", &error, nullptr, "s", "benchbox-update: 0.1.0 -> 0.1.1");
  INFO((error.message ? error.message : ""));
  sd_bus_error_free(&error);
  REQUIRE(r >= 0);
  CHECK(f.runner_property("Paused", "b") == "true");
  CHECK(f.runner_property("PausedReason", "s") == "benchbox-update: 0.1.0 -> 0.1.1");
  // JobQueued is the runner's first chance to claim: held, it lets it pass.
  const int64_t job = f.enqueue(f.push_spec(sha));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  json queued;
  REQUIRE_FALSE(f.client().get(job, &queued));
  CHECK(queued["state"] == "queued");
  CHECK(f.runner_property("Paused", "b") == "true");

  sd_bus_flush_close_unref(updater);  // as a SIGKILL would close it
  REQUIRE(wait_until([&] { return f.runner_property("Paused", "b") == "false"; }));
  CHECK(f.wait_finished(job, 60)["state"] == "done");
  CHECK(f.runner_log().find("ended: its holder left the bus") != std::string::npos);

  // Release ends the caller's hold and leaves an operator's Pause alone.
  auto call = [&](sd_bus* b, const char* method, const char* arg) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    const int rc = arg ? sd_bus_call_method(b, "org.benchbox.Runner1", "/org/benchbox/Runner1", "org.benchbox.Runner1",
                                            method, &e, nullptr, "s", arg)
                       : sd_bus_call_method(b, "org.benchbox.Runner1", "/org/benchbox/Runner1", "org.benchbox.Runner1",
                                            method, &e, nullptr, "");
    INFO(method << ": " << (e.message ? e.message : ""));
    sd_bus_error_free(&e);
    CHECK(rc >= 0);
  };
  sd_bus* second = nullptr;
  REQUIRE(sd_bus_new(&second) >= 0);
  REQUIRE(sd_bus_set_address(second, f.address().c_str()) >= 0);
  REQUIRE(sd_bus_set_bus_client(second, 1) >= 0);
  REQUIRE(sd_bus_start(second) >= 0);
  call(second, "Pause", "an operator's");
  call(second, "Hold", "benchbox-update: 0.1.1 -> 0.1.2");
  call(second, "Release", nullptr);
  CHECK(f.runner_property("Paused", "b") == "true");
  CHECK(f.runner_property("PausedReason", "s") == "an operator's");
  call(second, "Resume", nullptr);
  CHECK(f.runner_property("Paused", "b") == "false");
  sd_bus_flush_close_unref(second);

  // busctl leaves as soon as it has its answer: its hold ends at once.
  std::string out;
  CHECK(run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + f.address() + " busctl --system call org.benchbox.Runner1 "
                  "/org/benchbox/Runner1 org.benchbox.Runner1 Hold s brief 2>&1", &out) == 0);
  INFO(out);
  REQUIRE(wait_until([&] { return f.runner_property("Paused", "b") == "false"; }));
}

TEST_CASE("harness formats: hyperfine JSON from $BENCHBOX_OUTPUT, bad output, an unknown format") {
  RunnerdFixture f;
  // A stand-in for `hyperfine --export-json "$BENCHBOX_OUTPUT"`: three runs
  // per round, the round number in the times so the test can check them.
  f.commit("fake-hyperfine.sh",
           "#!/bin/sh\n"
           "r=$BENCHBOX_ROUND\n"
           "printf '{\"results\":[{\"command\":\"sort\",\"mean\":0.1,\"times\":[0.1%s,0.2%s,0.3%s],"
           "\"exit_codes\":[0,0,0]}]}' $r $r $r > \"$BENCHBOX_OUTPUT\"\n",
           "fake hyperfine");
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: hf\n"
                             "    run: ./fake-hyperfine.sh\n"
                             "    format: hyperfine\n"
                             "    output: out/hf.json\n"
                             "    repetitions: 2\n"
                             "    warmup: 1\n"
                             "    thresholds: {wall_time: 0.05}\n"
                             "  - name: garbage\n"
                             "    run: echo not json\n"
                             "    format: hyperfine\n",
                             "formats");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json head = f.result_of(job)["head"];
  const json* hf = find_bench(head, "sort", "wall_time");
  REQUIRE(hf);
  CHECK((*hf)["suite"] == "hf");
  CHECK((*hf)["status"] == "ok");
  CHECK((*hf)["rounds"] == json::array({0, 0, 0, 1, 1, 1}));
  CHECK((*hf)["samples"] == json::array({0.11, 0.21, 0.31, 0.12, 0.22, 0.32}));
  CHECK(head["thresholds"] == json({{"hf", {{"wall_time", 0.05}}}}));
  const json* bad = find_bench(head, "garbage", "wall_time");
  REQUIRE(bad);
  CHECK((*bad)["status"] == "failed");
  CHECK((*bad)["reason"].get<std::string>().rfind("garbage stdout", 0) == 0);

  std::string unknown = f.commit(".benchbox.yml",
                                 "version: 1\nsuites:\n  - name: x\n    run: \"true\"\n    format: hyperfin\n",
                                 "typo in format");
  job = f.wait_finished(f.enqueue(f.push_spec(unknown)));
  REQUIRE(job["state"] == "failed");
  CHECK(job["error"].get<std::string>().rfind(".benchbox.yml:5:13: suite 'x': unknown format 'hyperfin' (known: command, ", 0) == 0);
}

TEST_CASE("SIGHUP reloads the runner settings; a broken config keeps the old ones") {
  RunnerdFixture f;
  f.start_runner();
  std::string before = f.runner_property("BenchmarkCPUs", "s");
  REQUIRE_FALSE(before.empty());
  // Pin to CPU 0 instead (online on every machine).
  REQUIRE(run_shell("sed -i 's/benchmark_cpus: .*/benchmark_cpus: \"0\"/' " + f.config_path()) == 0);
  ::kill(f.runner().pid(), SIGHUP);
  INFO(f.runner_log());
  REQUIRE(wait_until([&] { return f.runner_property("BenchmarkCPUs", "s") == "0"; }));

  REQUIRE(run_shell("sed -i 's/benchmark_cpus: .*/benchmark_cpus: \"9999\"/' " + f.config_path()) == 0);
  ::kill(f.runner().pid(), SIGHUP);
  REQUIRE(wait_until([&] { return f.runner_log().find("keeping the old configuration") != std::string::npos; }));
  CHECK(f.runner().running());
  CHECK(f.runner_property("BenchmarkCPUs", "s") == "0");
}

namespace {

// A pull request #8 whose merge-base runs `base_bench` and whose head runs
// `head_bench`, with `config` as .benchbox.yml; returns the job spec.
json sequential_pr(RunnerdFixture& f, const std::string& config, const std::string& base_bench,
                   const std::string& head_bench) {
  f.commit(".benchbox.yml", config, "config");
  f.commit("bench.sh", "#!/bin/sh\n" + base_bench + "\n", "base bench");
  std::string main_tip = f.git("-C " + (f.dir() / "work") + " rev-parse HEAD");
  f.git("-C " + (f.dir() / "work") + " checkout -q -b feature");
  f.git("-C " + (f.dir() / "work") + " config push.default current");
  std::string pr_head = f.commit("bench.sh", "#!/bin/sh\n" + head_bench + "\n# head\n", "head bench");
  f.make_pr_ref(8, pr_head);
  return {{"kind", "pull_request"},  {"repository", "acme/widget"},      {"clone_url", "file://" + f.origin()},
          {"ref", "refs/pull/8/head"}, {"head_sha", pr_head},            {"base_ref", "refs/heads/main"},
          {"base_sha", main_tip},     {"pr_number", 8}};
}

// Checks what both sides recorded for one benchmark agrees with the
// samples; returns the head's extra.sequential.
json check_sequential_record(const json& r, const std::string& metric) {
  const json* b = find_bench(r["base"], "seq", metric);
  const json* h = find_bench(r["head"], "seq", metric);
  REQUIRE(b);
  REQUIRE(h);
  INFO(h->dump());
  REQUIRE((*h)["extra"].contains("sequential"));
  const json seq = (*h)["extra"]["sequential"];
  CHECK((*b)["extra"]["sequential"] == seq);
  const uint64_t rounds = seq["rounds"];
  json expected_rounds = json::array();
  for (uint64_t i = 0; i < rounds; ++i) expected_rounds.push_back(i);
  CHECK((*b)["rounds"] == expected_rounds);
  CHECK((*h)["rounds"] == expected_rounds);
  CHECK(seq["min_rounds"] == 6);
  CHECK(seq["max_rounds"] == 40);
  CHECK(seq["out_of_time"] == false);
  CHECK(seq["stopped_early"] == (rounds < 40));
  CHECK(seq["looks"].get<int>() >= 1);
  CHECK(seq.contains("verdict"));
  // The samples each side had at the deciding look: what a report publishes.
  REQUIRE(seq["look_samples"].is_array());
  const uint64_t nb = seq["look_samples"][0], nh = seq["look_samples"][1];
  CHECK(nb == nh);
  CHECK(nb >= 6);
  CHECK(nb <= rounds);
  if (seq.contains("decided_round")) CHECK(nb == seq["decided_round"].get<uint64_t>());
  return seq;
}

}  // namespace

TEST_CASE("sequential sampling stops a pull request's suite once a clear regression is decided") {
  RunnerdFixture f;
  // The head burns five times the CPU of the base, so both wall_time and
  // cpu_time regress clearly (a sleep would leave cpu_time undecidable).
  auto loop = [](const char* n) { return std::string("i=0; while [ $i -lt ") + n + " ]; do i=$((i+1)); done"; };
  json spec = sequential_pr(f,
                            "version: 1\nsuites:\n  - name: seq\n    run: ./bench.sh\n    repetitions: 6\n"
                            "    warmup: 0\n    sequential: {max_repetitions: 40}\n",
                            loop("10000"), loop("50000"));
  f.start_runner();
  json job = f.wait_finished(f.enqueue(spec), 120);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  for (const char* metric : {"wall_time", "cpu_time"}) {
    json seq = check_sequential_record(r, metric);
    const uint64_t rounds = seq["rounds"];
    CHECK(rounds >= 6);
    CHECK(rounds < 40);
    CHECK(seq["stopped_early"] == true);
    CHECK(seq["budget_exhausted"] == false);
    CHECK(seq["verdict"] == "regressed");
    CHECK(seq["decided_round"].get<uint64_t>() <= rounds);
  }
  // The suite stopped at the round where the last benchmark was decided.
  uint64_t last = 0;
  for (const char* metric : {"wall_time", "cpu_time"})
    last = std::max(last, (*find_bench(r["head"], "seq", metric))["extra"]["sequential"]["decided_round"].get<uint64_t>());
  CHECK(last == r["head"]["benchmarks"][0]["extra"]["sequential"]["rounds"]);
  CHECK(f.runner_log().find("sequential sampling stopped after") != std::string::npos);
  // What a report publishes for them is the sampler's own decision, at the
  // deciding look's level.
  auto jr = model::job_result_from_json(r);
  REQUIRE(jr.ok());
  REQUIRE(jr->base);
  int judged = 0;
  for (const auto& row : compare::compare(*jr->base, jr->head, {}).rows)
    if (row.key.metric == "wall_time" || row.key.metric == "cpu_time") {
      ++judged;
      CHECK(row.verdict == compare::Verdict::regressed);
      CHECK(row.sequential_level > 0.98);
      CHECK(row.note.find("decided by sequential sampling after") != std::string::npos);
    }
  CHECK(judged == 2);
}

TEST_CASE("sequential sampling of identical commits ends at the engine's answer; a push job ignores it") {
  RunnerdFixture f;
  json spec = sequential_pr(f,
                            "version: 1\nsuites:\n  - name: seq\n    run: ./bench.sh\n    repetitions: 6\n"
                            "    warmup: 0\n    sequential: {max_repetitions: 40}\n",
                            "sleep 0.01", "sleep 0.01");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(spec), 120);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  for (const char* metric : {"wall_time", "cpu_time"}) {
    json seq = check_sequential_record(r, metric);
    const uint64_t rounds = seq["rounds"];
    CHECK(rounds >= 6);
    CHECK(rounds <= 40);
    if (seq["budget_exhausted"] == true) {
      // Undecided until the budget: the final look was at the last round.
      CHECK(rounds == 40);
      CHECK_FALSE(seq.contains("decided_round"));
    } else {
      // Decided at a look: the engine's verdict then is a decision.
      CHECK(seq["decided_round"].get<uint64_t>() <= rounds);
      std::string v = seq["verdict"];
      CHECK((v == "unchanged" || v == "regressed" || v == "improved"));
    }
  }
  // The suite ran to the budget exactly when some benchmark was undecided.
  bool any_exhausted = false;
  for (const auto& b : r["head"]["benchmarks"]) any_exhausted = any_exhausted || b["extra"]["sequential"]["budget_exhausted"] == true;
  CHECK(any_exhausted == (r["head"]["benchmarks"][0]["extra"]["sequential"]["rounds"] == 40));

  // A push job of the same commit runs exactly `repetitions` rounds and
  // records nothing sequential.
  json push = f.push_spec(spec["head_sha"], "refs/heads/feature");
  job = f.wait_finished(f.enqueue(push), 120);
  REQUIRE(job["state"] == "done");
  r = f.result_of(job);
  CHECK_FALSE((r.contains("base") && r["base"].is_object()));
  const json* wall = find_bench(r["head"], "seq", "wall_time");
  REQUIRE(wall);
  CHECK((*wall)["rounds"] == json::array({0, 1, 2, 3, 4, 5}));
  CHECK_FALSE(wall->value("extra", json::object()).contains("sequential"));
}

TEST_CASE("sequential sampling: max_seconds ends the suite with a final look once `repetitions` ran") {
  RunnerdFixture f;
  // Six rounds of two 0.2 s runs outlast the 1 s budget before the first
  // look; six pairs cannot decide anything at a 99 % level, so the first
  // look is the final one.
  json spec = sequential_pr(f,
                            "version: 1\nsuites:\n  - name: seq\n    run: ./bench.sh\n    repetitions: 6\n"
                            "    warmup: 0\n    sequential: {max_repetitions: 40, max_seconds: 1}\n",
                            "sleep 0.2", "sleep 0.2");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(spec), 120);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  size_t judged = 0;
  for (const auto& b : r["head"]["benchmarks"]) {
    INFO(b.dump());
    const json& seq = b["extra"]["sequential"];
    CHECK(seq["rounds"] == 6);
    CHECK(b["rounds"] == json::array({0, 1, 2, 3, 4, 5}));
    CHECK(seq["out_of_time"] == true);
    // Only the metrics the report judges (wall and CPU time) are looked at;
    // the others (peak memory, context switches...) are recorded along.
    if (b["metric"] != "wall_time" && b["metric"] != "cpu_time") {
      CHECK(seq.value("looks", -1) == 0);
      continue;
    }
    ++judged;
    CHECK(seq["max_seconds"] == 1);
    CHECK(seq.value("budget_exhausted", false) == true);
    CHECK(seq.value("stopped_early", false) == true);
    CHECK(seq.value("looks", 0) == 1);
    CHECK(seq.value("verdict", "") == "inconclusive");
  }
  CHECK(judged == 2);
  CHECK(f.runner_log().find("6 of at most 40 rounds (out of time)") != std::string::npos);
}

TEST_CASE("as root, a job's build and benchmark run as the job's own uid and can harm nothing else", "[root]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: runnerd cannot give jobs an identity here");
  }
  RunnerdFixture f;
  const std::string log = f.dir() / "attempts.log";
  const std::string secret = f.dir() / "credential";
  std::ofstream(secret) << "s3cret";
  REQUIRE(::chmod(secret.c_str(), 0600) == 0);
  const std::string cache = f.dir() / "cache/git", results = f.dir() / "state/results";
  // A server on the host's loopback: the repository is not listed, so its
  // network is the default, loopback only, in a namespace of its own.
  int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(server >= 0);
  struct sockaddr_in addr {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(server, 4) == 0);
  REQUIRE(::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string probe = f.dir() / "connect.py";
  std::ofstream(probe) << "import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=2)\n";
  // Each attempt prints "allowed: what" or "refused: what"; the benchmark
  // itself then measures normally.
  const std::string attempts =
      "try() { what=$1; shift; if \\\"$@\\\" >/dev/null 2>&1; then echo allowed: $what; else echo refused: $what; fi; }; "
      "{ id -u; "
      "try git-cache touch " + cache + "/planted; "
      "try results touch " + results + "/planted; "
      "try credential cat " + secret + "; "
      "try complete busctl --address=" + f.address() +
      " call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Complete xss 1 test-runner /tmp/forged.json; "
      "try enqueue busctl --address=" + f.address() +
      " call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Enqueue a{sv} 0; "
      "try network python3 " + probe + " " + std::to_string(ntohs(addr.sin_port)) + "; "
      "try own-tree touch planted-by-job; } >> " + log;
  std::string sha = f.commit(".benchbox.yml",
                             "version: 1\n"
                             "suites:\n"
                             "  - name: contained\n"
                             "    build: \"" + attempts + "\"\n"
                             "    run: \"test -f planted-by-job\"\n"
                             "    repetitions: 2\n",
                             "contained");
  f.start_runner();
  json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  const std::string text = read_file(log).value();
  INFO(text);
  // exec::job_identity: 0x7E000000 + the job id.
  CHECK(text.rfind(std::to_string(0x7E000000 + job["id"].get<int64_t>()) + "\n", 0) == 0);
  for (const char* what : {"git-cache", "results", "credential", "complete", "enqueue", "network"})
    CHECK(text.find(std::string("refused: ") + what) != std::string::npos);
  CHECK(text.find("allowed: own-tree") != std::string::npos);
  CHECK_FALSE(path_exists(cache + "/planted"));
  CHECK_FALSE(path_exists(results + "/planted"));
  json r = f.result_of(job);
  CHECK(r["head"]["containment"].get<std::string>().rfind("job-identity: uid ", 0) == 0);
  CHECK(r["head"]["containment"].get<std::string>().find("network: loopback only") != std::string::npos);
  ::close(server);
  CHECK(find_bench(r["head"], "contained", "wall_time")->at("status") == "ok");
}

TEST_CASE("a compare job measures two commits of a branch exactly, at its threshold, with the range between") {
  RunnerdFixture f;
  auto loop = [](const char* n) { return std::string("i=0; while [ $i -lt ") + n + " ]; do i=$((i+1)); done"; };
  f.commit(".benchbox.yml",
           "version: 1\nsuites:\n  - name: seq\n    run: ./bench.sh\n    repetitions: 6\n    warmup: 0\n"
           "    thresholds: {wall_time: 0.001}\n",
           "config");
  const std::string good = f.commit("bench.sh", "#!/bin/sh\n" + loop("10000") + "\n", "good");
  const std::string docs = f.commit("README", "docs\n", "docs only");
  const std::string slow = f.commit("bench.sh", "#!/bin/sh\n" + loop("50000") + "\n", "five times the work");
  const std::string after = f.commit("NEWS", "news\n", "after");
  json spec = {{"kind", "compare"},  {"repository", "acme/widget"}, {"clone_url", "file://" + f.origin()},
               {"ref", "refs/heads/main"}, {"head_sha", after}, {"base_sha", good}, {"threshold", 0.25}};
  f.start_runner();
  json job = f.wait_finished(f.enqueue(spec), 120);
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  json r = f.result_of(job);
  CHECK(r["kind"] == "compare");
  CHECK(r["base"]["commit"] == good);  // exactly the commit named: no merge-base
  CHECK(r["head"]["commit"] == after);
  CHECK(r["base"]["role"] == "base");
  CHECK(r["head"]["ref"] == "refs/heads/main");
  // The job's threshold replaces the suite's, for every metric.
  CHECK(r["head"]["thresholds"]["seq"] == json({{"", 0.25}}));
  // The range a bisection chooses among: after good up to head, oldest first.
  REQUIRE(r["range"].size() == 3);
  CHECK(r["range"][0]["commit"] == docs);
  CHECK(r["range"][1]["commit"] == slow);
  CHECK(r["range"][1]["commit_info"]["subject"] == "five times the work");
  CHECK(r["range"][2]["commit"] == after);
  CHECK(r["range"][2]["commit_info"]["first_parent_position"].get<int64_t>() ==
        r["head"]["commit_info"]["first_parent_position"].get<int64_t>());
  // Five times slower is far beyond 25 %: decided, and early.
  const json* h = find_bench(r["head"], "seq", "cpu_time");
  REQUIRE(h);
  // Sequential without `sequential:` in the suite: four times its 6 repetitions at most.
  CHECK((*h)["extra"]["sequential"]["verdict"] == "regressed");
  CHECK((*h)["extra"]["sequential"]["rounds"].get<int>() < 24);
  CHECK((*h)["extra"]["sequential"]["max_rounds"] == 24);

  // A compare job naming a commit the repository lacks fails saying so.
  json missing = spec;
  missing["base_sha"] = std::string(40, 'e');
  json failed = f.wait_finished(f.enqueue(missing), 60);
  CHECK(failed["state"] == "failed");
  CHECK(failed["error"].get<std::string>().find("compare base") != std::string::npos);
}

TEST_CASE("as root, two runnerd on one host with the same job id never share a uid", "[root]") {
  if (::geteuid() != 0) {
    BB_SKIP("not root: runnerd cannot give jobs an identity here");
  }
  // Two boxes' runners on one host, each with its own queue: both number
  // their first job 1. Each command's clean-up kills every process of its
  // job's uid, so with one uid for both, each would kill the other's runs.
  RunnerdFixture a, b;
  const std::string config = "version: 1\nsuites:\n  - name: s\n    run: \"id -u; sleep 0.5\"\n    repetitions: 4\n"
                             "    warmup: 0\n";
  const std::string sha_a = a.commit(".benchbox.yml", config, "config");
  const std::string sha_b = b.commit(".benchbox.yml", config, "config");
  a.start_runner();
  b.start_runner();
  const int64_t id_a = a.enqueue(a.push_spec(sha_a));
  const int64_t id_b = b.enqueue(b.push_spec(sha_b));
  REQUIRE(id_a == id_b);
  json job_a = a.wait_finished(id_a, 120), job_b = b.wait_finished(id_b, 120);
  INFO(a.runner_log() << "\n---\n" << b.runner_log());
  CHECK(job_a["state"] == "done");
  CHECK(job_b["state"] == "done");
  auto uid_of = [](RunnerdFixture& f, int64_t id) {
    auto out = read_file(f.dir() / ("state/results/" + std::to_string(id) + "/output.log"));
    REQUIRE(out);
    std::set<std::string> uids;
    for (const auto& line : split(trim(*out), '\n'))
      if (line.rfind("[s round ", 0) == 0) uids.insert(line.substr(line.find("] ") + 2));
    REQUIRE(uids.size() == 1);  // the job's one uid, in every round
    return *uids.begin();
  };
  const std::string ua = uid_of(a, id_a), ub = uid_of(b, id_b);
  CHECK(ua != ub);
  for (const auto& u : {ua, ub}) CHECK(std::stoul(u) >= exec::kJobIdentityBase);
}
