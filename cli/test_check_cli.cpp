// benchboxctl check end to end: the real binary (BENCHBOXCTL) on files in a
// temporary directory, its output and its exit status. Its messages are the
// ones runnerd fails a job with (runnerd_jobs_test.cpp checks those).
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "test_run_cli.h"
#include "util/file.h"
#include "util/test_tempdir.h"

using namespace bb;

namespace {

using Run = test::CliRun;

Run check(const std::string& args, const std::string& cwd = "") {
  return test::run_benchboxctl("check " + args, cwd.empty() ? "" : "cd " + cwd + " && ");
}

}  // namespace

TEST_CASE("check: a valid file, described suite by suite; ./.benchbox.yml by default") {
  test::TempDir d;
  REQUIRE(write_file_atomic(d.file(".benchbox.yml"),
                     "version: 1\n"
                     "suites:\n"
                     "  - name: micro\n"
                     "    run: ./bench --benchmark_format=json\n"
                     "    format: google-benchmark\n"
                     "    repetitions: 10\n"
                     "    thresholds: {wall_time: 0.02}\n"
                     "    sequential: {max_repetitions: 60}\n"
                     "  - name: startup\n"
                     "    run: ./app --version\n"));
  const Run r = check("", d.path);
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find(".benchbox.yml: valid, 2 suites") != std::string::npos);
  CHECK(r.out.find("micro: format google-benchmark, 10 rounds after 1 warmup, sequential up to 60 rounds, "
                   "threshold wall_time 2 %") != std::string::npos);
  CHECK(r.out.find("startup: format command, 5 rounds") != std::string::npos);
}

TEST_CASE("check: each error names file:line:column, and the exit status is 1") {
  test::TempDir d;
  const std::string typo = d.file("typo.yml");
  REQUIRE(write_file_atomic(typo, "version: 1\nsuites:\n  - name: micro\n    run: ./bench\n    repetitons: 3\n"));
  Run r = check(typo);
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out.find(typo + ":5:5: suites[0]: unknown key 'repetitons'") != std::string::npos);

  // What only a runner knows: the formats it reads, the counters it has.
  const std::string format = d.file("format.yml");
  REQUIRE(write_file_atomic(format, "version: 1\nsuites:\n  - name: micro\n    run: ./bench\n    format: googel-benchmark\n"));
  r = check(format);
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out.find(format + ":5:13: suite 'micro': unknown format 'googel-benchmark' (known: command, ") !=
        std::string::npos);
  const std::string counter = d.file("counter.yml");
  REQUIRE(write_file_atomic(counter, "version: 1\nsuites:\n  - name: micro\n    run: ./bench\n    counters: [instrctions]\n"));
  r = check(counter);
  CHECK(r.status == 1);
  CHECK(r.out.find("suite 'micro': unknown counter 'instrctions' (known: ") != std::string::npos);
}

TEST_CASE("check: a file that cannot be read, or bad usage, is exit status 2") {
  test::TempDir d;
  Run r = check("", d.path);  // no .benchbox.yml here
  CHECK(r.status == 2);
  CHECK(r.out.find("benchboxctl: ") != std::string::npos);
  CHECK(r.out.find(".benchbox.yml") != std::string::npos);
  CHECK(check("a.yml b.yml").status == 2);
}
