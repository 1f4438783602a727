// Two boxes of a fleet on one PostgreSQL queue: a runner box (queued and
// runnerd on its own bus) measures a job queued on the front box (queued and
// reporterd on another bus), and the front box reports it from the result
// set in the queue: the result file on the runner box is gone by then. The
// front box keeps its history in the same database.
#include <catch2/catch.hpp>

#include <filesystem>

#include "reporterd_fixture.h"
#include "runnerd_fixture.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

TEST_CASE("a job measured on a runner box is reported on the front box from the shared queue", "[fleet]") {
  RunnerdFixture runner_box;
  // with-postgres.sh puts the runner box's queue in PostgreSQL; the front
  // box joins the same database.
  REQUIRE(runner_box.queued().on_postgresql());
  ReporterFixture front("", runner_box.queued().conninfo());
  // The front box's reporterd is down while the job runs; it catches up.
  front.reporterd.reset();

  std::string sha = runner_box.commit(".benchbox.yml",
                                      "version: 1\n"
                                      "suites:\n"
                                      "  - name: micro\n"
                                      "    run: \"test -f README\"\n"
                                      "    repetitions: 3\n",
                                      "add benchbox config");
  runner_box.start_runner();
  int64_t id = front.enqueue(runner_box.push_spec(sha));
  json job = runner_box.wait_finished(id);
  INFO(runner_box.runner_log());
  REQUIRE(job["state"] == "done");
  const std::string path = job["result_path"];
  REQUIRE(path_exists(path));
  std::filesystem::remove(path);

  front.start_reporter();
  REQUIRE(wait_until([&] { return front.reported(id); }, std::chrono::seconds(30)));
  INFO(front.logs());
  std::string report = slurp(front.report_path(id));
  CHECK(report.find("micro") != std::string::npos);
  CHECK(report.find("result file unreadable") == std::string::npos);
  json rep = json::parse(slurp(front.dir / ("state/reports/" + std::to_string(id) + "/report.json")));
  CHECK(rep.dump().find(sha) != std::string::npos);
  // The front box's history is in the same database, beside the queue.
  std::string runs;
  REQUIRE(run_shell("psql -Atq '" + runner_box.queued().conninfo() +
                        "' -c \"SELECT commit_sha FROM benchbox_history.runs WHERE job_id = " + std::to_string(id) +
                        "\"",
                    &runs) == 0);
  CHECK(runs.find(sha) != std::string::npos);
}

TEST_CASE("a pull request that touches no measured path shows the suite as skipped, beside main's value", "[fleet]") {
  RunnerdFixture runner_box;
  REQUIRE(runner_box.queued().on_postgresql());
  ReporterFixture front("", runner_box.queued().conninfo());
  const std::string runs = runner_box.dir() / "runs.log";
  runner_box.commit("src/lexer.c", "int x;\n", "lexer");
  std::string main_tip = runner_box.commit(".benchbox.yml",
                                           "version: 1\n"
                                           "suites:\n"
                                           "  - name: parser\n"
                                           "    run: \"echo run >> " + runs + "; test -f README\"\n"
                                           "    repetitions: 3\n"
                                           "    warmup: 0\n"
                                           "    paths: [src/]\n",
                                           "measure the parser");
  runner_box.start_runner();
  int64_t push = front.enqueue(runner_box.push_spec(main_tip));
  REQUIRE(runner_box.wait_finished(push)["state"] == "done");
  REQUIRE(wait_until([&] { return front.reported(push); }, std::chrono::seconds(30)));
  const std::string after_push = slurp(runs);

  // A pull request that changes only the README.
  runner_box.git("-C " + (runner_box.dir() / "work") + " checkout -q -b docs");
  std::string pr_head = runner_box.commit("README", "better docs\n", "docs only");
  runner_box.make_pr_ref(5, pr_head);
  int64_t pr = front.enqueue({{"kind", "pull_request"},
                              {"repository", "acme/widget"},
                              {"clone_url", runner_box.origin()},
                              {"ref", "refs/pull/5/head"},
                              {"head_sha", pr_head},
                              {"base_ref", "refs/heads/main"},
                              {"base_sha", main_tip},
                              {"pr_number", 5}});
  json job = runner_box.wait_finished(pr);
  INFO(runner_box.runner_log());
  REQUIRE(job["state"] == "done");
  CHECK(slurp(runs) == after_push);  // the suite did not run
  REQUIRE(wait_until([&] { return front.reported(pr); }, std::chrono::seconds(30)));
  INFO(front.logs());
  const std::string report = slurp(front.report_path(pr));
  INFO(report);
  // format: command shows wall_time and cpu_time, as on main.
  CHECK(report.find("Skipped (2)") != std::string::npos);
  CHECK(report.find("not affected: the pull request changes none of its paths (src/)") != std::string::npos);
  CHECK(report.find("last on refs/heads/main: ") != std::string::npos);
  CHECK(report.find("(not re-measured)") != std::string::npos);
  CHECK(report.find("issing") == std::string::npos);  // never missing
}
