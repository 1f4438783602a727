// benchboxctl run on a real git repository made here: a suite measured the
// way the box measures it (exported trees, a build, warmup and rounds, base
// and head interleaved) and judged by the comparison engine, with clear
// errors for what cannot run.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "util/file.h"

using namespace bb::test;
using nlohmann::json;

namespace {

struct Cli {
  int status;
  std::string out;
};

// A repository whose suite runs work.sh, which the build makes from
// delay.txt: the base commit sleeps 20 ms a round, head 60 ms.
struct Project {
  TempDir dir;
  std::string work = dir / "work";
  std::string git(const std::string& args) {
    return sh("git -c user.name=t -c user.email=t@example.com -C " + work + " " + args);
  }
  void commit(const std::string& delay, const std::string& message) {
    sh("echo " + delay + " > " + work + "/delay.txt");
    git("add -A");
    git("commit -q -m '" + message + "'");
  }
  Project(const std::string& build = "printf 'sleep %s\\n' \"$(cat delay.txt)\" > work.sh") {
    sh("git init -q -b main " + work);
    REQUIRE(bb::write_file_atomic(work + "/.benchbox.yml",
                           "version: 1\n"
                           "suites:\n"
                           "  - name: sleepy\n"
                           "    build: |\n"
                           "      " + build + "\n"
                           "    run: sh work.sh\n"
                           "    repetitions: 10\n"
                           "    warmup: 1\n"));
    commit("0.02", "fast");
    commit("0.06", "slow");
  }
  Cli run(const std::string& args) {
    Cli r{};
    r.status = run_shell("cd " + work + " && " + build_path("cli/benchboxctl") + " run " + args + " 2>&1", &r.out);
    return r;
  }
};

}  // namespace

TEST_CASE("run --against measures base and head interleaved and reports the regression") {
  Project p;
  const std::string out = p.dir / "result.json";
  Cli r = p.run("--against HEAD~1 --seed 42 --output " + out);
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out.find("`sleepy/sleepy:wall_time`") != std::string::npos);
  CHECK(r.out.find("regressed") != std::string::npos);
  CHECK(r.out.find("seed 42") != std::string::npos);

  auto text = bb::read_file(out, 1 << 20);
  REQUIRE(text);
  const json result = json::parse(*text);
  CHECK(result["kind"] == "local");
  CHECK(result["seed"] == 42);
  CHECK(result["base"]["commit"] == p.git("rev-parse HEAD~1"));
  CHECK(result["head"]["commit"] == p.git("rev-parse HEAD"));
  CHECK(result["head"]["commit_info"]["subject"] == "slow");
  // Ten measured rounds a side, after the warmup, each round numbered the
  // same on both sides: the pairs the engine's signed-rank test reads.
  for (const char* side : {"base", "head"}) {
    bool seen = false;
    for (const auto& b : result[side]["benchmarks"])
      if (b["metric"] == "wall_time") {
        seen = true;
        CHECK(b["samples"].size() == 10);
      }
    CHECK(seen);
  }
  // The written result is one `compare` reads: the same verdict.
  std::string again;
  CHECK(run_shell(build_path("cli/benchboxctl") + " compare " + out + " 2>&1", &again) != 0);
  CHECK(again.find("regressed") != std::string::npos);
}

TEST_CASE("run alone prints each benchmark's median, noise and samples") {
  Project p;
  Cli r = p.run("--rounds 3");
  INFO(r.out);
  CHECK(r.status == 0);
  // The head sleeps 60 ms a round: its median is at least that (how much
  // more depends on the machine's load, so no upper bound is asserted).
  const std::string prefix = "| sleepy | sleepy | wall_time | ";
  const auto at = r.out.find(prefix);
  REQUIRE(at != std::string::npos);
  const auto start = at + prefix.size();
  const std::string median = r.out.substr(start, r.out.find(" |", start) - start);
  INFO("median: " << median);
  CHECK(median.size() > 3);
  CHECK(median.substr(median.size() - 3) == " ms");
  CHECK(std::stod(median) >= 60.0);
  CHECK(r.out.find(" | 3 |") != std::string::npos);
  CHECK(r.out.find("slow") != std::string::npos);
}

TEST_CASE("run refuses what it cannot run, saying why") {
  Project p;
  SECTION("an unknown suite names the ones there are") {
    Cli r = p.run("--suite nope");
    CHECK(r.status == 2);
    CHECK(r.out.find("no suite 'nope' in .benchbox.yml (it has: sleepy)") != std::string::npos);
  }
  SECTION("an unknown revision") {
    Cli r = p.run("--against no-such-branch");
    CHECK(r.status == 2);
    CHECK(r.out.find("--against no-such-branch") != std::string::npos);
  }
  SECTION("a directory that is not a clone") {
    Cli r = p.run("--repo " + (p.dir / "nothing"));
    CHECK(r.status == 2);
    CHECK(r.out.find("--repo DIR") != std::string::npos);
  }
  SECTION("a bad option shows the usage") {
    Cli r = p.run("--rounds 0");
    CHECK(r.status == 2);
    CHECK(r.out.find("usage: benchboxctl run") != std::string::npos);
  }
}

TEST_CASE("a failed build stops the run with the build's last lines, the trees kept") {
  Project p("echo cannot find compiler >&2; exit 3");
  Cli r = p.run("");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("cannot find compiler") != std::string::npos);
  CHECK(r.out.find("kept in") != std::string::npos);
}

TEST_CASE("a suite that crashes every round is reported failed with its output, exit 1") {
  Project p("printf \"echo out of cheese >&2; kill -SEGV \\$\\$\\n\" > work.sh");
  Cli r = p.run("--rounds 2");
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out.find("failed") != std::string::npos);
  CHECK(r.out.find("exit status 139 (a process it ran was killed by SIGSEGV)") != std::string::npos);
}
