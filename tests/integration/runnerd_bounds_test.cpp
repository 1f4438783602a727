// The per-job bounds (runner.work_tree_max_bytes, file_size_max_bytes): a
// job that goes over one fails, and its reason names the bound.
#include <catch2/catch.hpp>

#include "runnerd_fixture.h"

using namespace bb;
using namespace bb::test;
using json = nlohmann::json;

TEST_CASE("a job over its work-tree or file-size bound fails with the bound as its reason") {
  RunnerdFixture f("  work_tree_max_bytes: 300000\n  file_size_max_bytes: 200000\n  build_cache_bytes: 0\n");
  f.start_runner();

  SECTION("a build that fills the work tree") {
    std::string sha = f.commit(".benchbox.yml",
                               "version: 1\nsuites:\n  - name: s\n"
                               "    build: \"for i in 1 2; do head -c 180000 /dev/urandom > blob$i; done\"\n"
                               "    run: \"true\"\n",
                               "a build that writes 360 kB");
    json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
    INFO(f.runner_log());
    REQUIRE(job["state"] == "failed");
    const std::string error = job["error"];
    CHECK(error.find("build of suite 's' failed at " + sha.substr(0, 12) + ": stopped by a per-job bound: work tree") !=
          std::string::npos);
    CHECK(error.find("above runner.work_tree_max_bytes 300000") != std::string::npos);
  }

  SECTION("a benchmark that writes one file too large") {
    std::string sha = f.commit(".benchbox.yml",
                               "version: 1\nsuites:\n  - name: s\n"
                               "    run: \"head -c 250000 /dev/zero > big || exit $?\"\n"
                               "    repetitions: 2\n    warmup: 0\n",
                               "a benchmark that writes 250 kB at once");
    json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
    INFO(f.runner_log());
    REQUIRE(job["state"] == "failed");
    CHECK(job["error"].get<std::string>().find(
              "stopped by a per-job bound: file size: a file reached 200000 bytes (runner.file_size_max_bytes)") !=
          std::string::npos);
  }

  SECTION("within both bounds the job is done") {
    std::string sha = f.commit(".benchbox.yml",
                               "version: 1\nsuites:\n  - name: s\n    build: \"head -c 100000 /dev/zero > blob\"\n"
                               "    run: \"test -f blob\"\n    repetitions: 2\n    warmup: 0\n",
                               "small");
    json job = f.wait_finished(f.enqueue(f.push_spec(sha)));
    INFO(f.runner_log());
    CHECK(job["state"] == "done");
  }
}
