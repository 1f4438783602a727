// Bisection on a box: real benchbox-queued, benchbox-runnerd and
// benchbox-reporterd on a private bus, and real git histories made here
// with a known culprit among 2, 3, 17 and 64 first-parent commits. Two
// pushes (the last good and the first bad commit) open the regression;
// the box confirms and bisects it alone; `benchboxctl bisect --follow`
// reads the answer. Also: a commit that does not build, and runnerd
// killed in the middle of a step.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include "runnerd_fixture.h"

using namespace bb::test;
using nlohmann::json;

namespace {

// The benchmark: a shell loop; `slow` makes it three times longer.
std::string bench_script(bool slow) {
  return std::string("#!/bin/sh\ni=0; while [ $i -lt ") + (slow ? "30000" : "10000") +
         " ]; do i=$((i+1)); done\n";
}

const char* kConfig =
    "version: 1\nsuites:\n  - name: loop\n    build: test ! -e BROKEN\n    run: ./bench.sh\n"
    "    repetitions: 12\n    warmup: 0\n    sequential: {max_repetitions: 40}\n";

struct Box {
  RunnerdFixture f;
  std::unique_ptr<Process> reporterd;
  std::string good;
  std::vector<std::string> commits;  // after good, oldest first

  // n commits after the good one; commit `culprit` (0-based) makes the
  // benchmark slower; `broken` (or -1) does not build, and the next one
  // builds again.
  Box(int n, int culprit, int broken = -1) {
    f.commit(".benchbox.yml", kConfig, "config");
    good = f.commit("bench.sh", bench_script(false), "the benchmark");
    const std::string work = f.dir() / "work";
    for (int k = 0; k < n; ++k) {
      if (k == culprit) {
        commits.push_back(f.commit("bench.sh", bench_script(true), "Slow it down (#9)"));
      } else if (k == broken) {
        commits.push_back(f.commit("BROKEN", "x\n", "break the build"));
      } else if (broken >= 0 && k == broken + 1) {
        f.git("-C " + work + " rm -q BROKEN");
        f.git("-C " + work + " commit -q -m 'fix the build'");
        f.git("-C " + work + " push -q -f origin HEAD");
        commits.push_back(f.git("-C " + work + " rev-parse HEAD"));
      } else {
        commits.push_back(f.commit("file" + std::to_string(k), std::to_string(k) + "\n", "change " + std::to_string(k)));
      }
    }
    f.start_runner();
    reporterd = std::make_unique<Process>(
        std::vector<std::string>{build_path("daemons/reporterd/benchbox-reporterd"), "--config", f.config_path()},
        std::map<std::string, std::string>{{"DBUS_SYSTEM_BUS_ADDRESS", f.address()}, {"BENCHBOX_LOG", "stderr"}},
        f.dir() / "reporterd.log");
    ::setenv("DBUS_SYSTEM_BUS_ADDRESS", f.address().c_str(), 1);
  }

  std::string logs() { return f.runner_log() + "\n---\n" + reporterd->log(); }

  // Pushes of the last good and the first bad commit, as webhookd would queue them.
  void push_both() {
    for (const std::string& sha : {good, commits.back()}) {
      json job = f.wait_finished(f.enqueue(f.push_spec(sha)), 120);
      INFO(logs());
      REQUIRE(job["state"] == "done");
    }
  }

  // benchboxctl bisect --follow on the box's bisection 1, to its end.
  std::string follow(int* status) {
    REQUIRE(wait_until([&] { return reporterd->log().find("bisection queued job") != std::string::npos; },
                       std::chrono::seconds(60)));
    std::string out;
    *status = run_shell("timeout 300 " + build_path("cli/benchboxctl") + " bisect --follow 1 2>&1", &out);
    return out;
  }
};

}  // namespace

TEST_CASE("the box bisects real histories of 2, 3 and 17 commits to their culprit") {
  for (auto [n, culprit] : {std::pair{2, 1}, {3, 0}, {17, 11}}) {
    Box box(n, culprit);
    box.push_both();
    int status = 0;
    const std::string out = box.follow(&status);
    INFO("n=" << n << " culprit=" << culprit << "\n" << out << "\n" << box.logs());
    CHECK(status == 0);
    CHECK(out.find("first bad commit: " + box.commits[size_t(culprit)]) != std::string::npos);
    CHECK(out.find("Slow it down (#9)") != std::string::npos);
    CHECK(out.find("pull request #9") != std::string::npos);
  }
}

TEST_CASE("64 commits, one that does not build, and runnerd killed mid-step: the culprit is still named") {
  Box box(64, 40, 31);  // the first step is commit 31, which does not build
  box.push_both();
  // Kill runnerd while it runs a step of the bisection; a new one takes the
  // step over once the lease (3 s) runs out.
  REQUIRE(wait_until(
      [&] { return box.reporterd->log().find("bisection queued job") != std::string::npos &&
                   box.f.runner_log().find("claimed job (compare)") != std::string::npos; },
      std::chrono::seconds(60)));
  box.f.kill_runner();
  box.f.start_runner();
  int status = 0;
  const std::string out = box.follow(&status);
  INFO(out << "\n" << box.logs());
  CHECK(status == 0);
  CHECK(out.find("first bad commit: " + box.commits[40]) != std::string::npos);
  CHECK(out.find("skipped") != std::string::npos);  // commit 31's build failed
  // About log2(64) steps plus the skip and the residual check, not 64.
  size_t steps = 0;
  for (size_t at = out.find("\nstep "); at != std::string::npos; at = out.find("\nstep ", at + 1)) ++steps;
  CHECK(steps <= 9);
  // The killed step ran again: its job has a second attempt.
  std::vector<json> jobs;
  REQUIRE_FALSE(box.f.client().list("", 0, &jobs));
  bool retried = false;
  for (const auto& j : jobs) retried = retried || (j["kind"] == "compare" && j["attempts"].get<int>() > 0);
  CHECK(retried);
}
