#include <catch2/catch.hpp>

#include "model/job.h"
#include "model/result_set.h"

using namespace bb;
using namespace bb::model;

TEST_CASE("jobs round-trip through JSON") {
  Job job;
  job.id = 7;
  job.spec.kind = JobKind::pull_request;
  job.spec.repository = "o/r";
  job.spec.clone_url = "/srv/r.git";
  job.spec.head_sha = std::string(40, 'a');
  job.spec.pr_number = 3;
  job.state = JobState::running;
  auto back = job_from_json(to_json(job));
  REQUIRE(back.ok());
  CHECK(back->id == 7);
  CHECK(back->spec.kind == JobKind::pull_request);
  CHECK(back->state == JobState::running);
  CHECK(back->spec.pr_number == 3);
}

TEST_CASE("job specs are validated") {
  JobSpec s;
  CHECK_FALSE(validate(s).ok());
  s.repository = "o/r";
  s.clone_url = "/x";
  s.head_sha = "nothex";
  CHECK(validate(s).error().message.find("head_sha") != std::string::npos);
  s.head_sha = std::string(40, '0');
  CHECK(validate(s).ok());
  s.kind = JobKind::pull_request;
  CHECK_FALSE(validate(s).ok());
}

TEST_CASE("result sets round-trip and bad values name their JSON pointer") {
  ResultSet rs;
  rs.repository = "o/r";
  Benchmark b;
  b.key = {"suite", "fib", {{"n", "30"}}, "wall_time"};
  b.samples = {0.1, 0.2};
  b.rounds = {0, 1};
  rs.benchmarks.push_back(b);
  auto j = to_json(rs);
  auto back = result_set_from_json(j);
  REQUIRE(back.ok());
  CHECK(back->benchmarks.at(0).key.to_string() == "suite/fib[n=30]:wall_time");
  CHECK(back->benchmarks.at(0).rounds == std::vector<int64_t>{0, 1});

  j["benchmarks"][0]["samples"][1] = "x";
  auto err = result_set_from_json(j);
  REQUIRE_FALSE(err.ok());
  CHECK(err.error().message.find("/benchmarks/0/samples") != std::string::npos);

  j["benchmarks"][0]["samples"] = {1.0};
  err = result_set_from_json(j);
  REQUIRE_FALSE(err.ok());
  CHECK(err.error().message.find("/benchmarks/0/rounds") != std::string::npos);
}
