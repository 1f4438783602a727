#include <catch2/catch.hpp>

#include "model/job.h"
#include "model/pull_request.h"
#include "model/result_set.h"
#include "util/json_read.h"

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

TEST_CASE("a shard names its place, suite and benchmarks, and round-trips") {
  JobSpec s;
  s.repository = "o/r";
  s.clone_url = "/x";
  s.head_sha = std::string(40, '0');
  auto error = [&] { auto st = validate(s); return st ? std::string("(valid)") : st.error().message; };
  s.benchmarks = {"BM_a"};
  CHECK(error() == "only a shard lists its benchmarks");
  s.shard = 2;
  s.shards = 1;
  CHECK(error() == "shards must be 2 to 64, not 1");
  s.shards = 65;
  CHECK(error() == "shards must be 2 to 64, not 65");
  s.shards = 4;
  s.shard = 5;
  CHECK(error() == "shard 5 is not one of 1 to 4");
  s.shard = 2;
  CHECK(error() == "a shard measures one suite: it needs its suite");
  s.suite = "micro";
  CHECK(error() == "(valid)");
  s.benchmarks = {};
  CHECK(error() == "a shard needs the benchmarks it measures");
  s.benchmarks = {"BM_a", ""};
  CHECK(error() == "a shard's benchmark name is empty");
  s.benchmarks = {std::string(kMaxShardBenchmarkBytes + 1, 'x')};
  CHECK(error() == "a shard's benchmark names take more than 1 MiB");
  s.benchmarks = {"BM_a", "BM_b/8"};
  REQUIRE(error() == "(valid)");
  auto back = job_spec_from_json(to_json(s));
  REQUIRE(back.ok());
  CHECK(back->shard == 2);
  CHECK(back->shards == 4);
  CHECK(back->benchmarks == s.benchmarks);
  // Older peers send no shard fields: not a shard.
  nlohmann::json old = to_json(s);
  old.erase("shard");
  old.erase("shards");
  old.erase("shard_benchmarks");
  CHECK(job_spec_from_json(old)->shard == 0);
  old["shard_benchmarks"] = "BM_a";
  CHECK_FALSE(job_spec_from_json(old).ok());
}

TEST_CASE("a compare job and its range round-trip") {
  Job job;
  job.spec.kind = JobKind::compare;
  job.spec.repository = "o/r";
  job.spec.clone_url = "/x";
  job.spec.ref = "refs/heads/main";
  job.spec.head_sha = std::string(40, 'b');
  job.spec.base_sha = std::string(40, 'a');
  job.spec.threshold = 0.025;
  REQUIRE(validate(job.spec).ok());
  auto back = job_from_json(to_json(job));
  REQUIRE(back.ok());
  CHECK(back->spec.kind == JobKind::compare);
  CHECK(back->spec.threshold == 0.025);
  job.spec.threshold = 1.5;
  CHECK(validate(job.spec).error().message.find("threshold") != std::string::npos);

  JobResult jr;
  jr.kind = "compare";
  jr.head.repository = "o/r";
  jr.range.push_back({std::string(40, 'c'), {1700000000, "A <a@x>", "faster", 12}});
  jr.range.push_back({std::string(40, 'b'), {1700000100, "B <b@x>", "slower", 13}});
  auto j = to_json(jr);
  auto jr_back = job_result_from_json(j);
  REQUIRE(jr_back.ok());
  REQUIRE(jr_back->range.size() == 2);
  CHECK(jr_back->range[1].info.subject == "slower");
  CHECK(jr_back->range[0].info.first_parent_position == 12);
  j["range"][1]["commit_info"]["time"] = "soon";
  CHECK(job_result_from_json(j).error().message.find("/range/1/commit_info") != std::string::npos);
  // Without a range (every other kind), none is written.
  jr.range.clear();
  CHECK_FALSE(to_json(jr).contains("range"));
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

TEST_CASE("pull request JSON refuses unknown keys, wrong types and numbers out of range", "[pr]") {
  const std::string sha(40, 'a');
  auto ok = pull_request_from_json({{"repository", "a/b"}, {"number", 3}, {"head_sha", sha}});
  REQUIRE(ok);
  CHECK(ok->number == 3);
  CHECK(validate(*ok));
  PullRequest full{"octo/w", 7, sha, "feature", "refs/heads/main", sha, "closed", "https://x/y.git", 1700000000, "", "Speed it up", "octocat"};
  auto back = pull_request_from_json(to_json(full));
  REQUIRE(back);
  CHECK(back->base_ref == "refs/heads/main");
  CHECK(back->updated == 1700000000);
  CHECK(back->state == "closed");
  CHECK(back->title == "Speed it up");
  CHECK(back->author == "octocat");
  full.title = std::string(model::kMaxPullRequestTitle + 1, 'x');
  CHECK_FALSE(validate(full));
  auto unknown = pull_request_from_json({{"repository", "a/b"}, {"nubmer", 3}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("'nubmer'") != std::string::npos);
  for (auto bad : {nlohmann::json("three"), nlohmann::json(3.5), nlohmann::json(1e20),
                   nlohmann::json(uint64_t(1) << 63)}) {
    auto wrong = pull_request_from_json({{"repository", "a/b"}, {"number", bad}});
    REQUIRE_FALSE(wrong);
    CHECK(wrong.error().message.find("'number'") != std::string::npos);
  }
}

TEST_CASE("json_as wants integers in range where it reads integers") {
  using nlohmann::json;
  CHECK(json_as<int64_t>(json(-5)) == -5);
  CHECK(json_as<int64_t>(json(uint64_t(1) << 62)) == int64_t(1) << 62);
  CHECK_FALSE(json_as<int64_t>(json(uint64_t(1) << 63)));
  CHECK_FALSE(json_as<int64_t>(json(1e20)));   // get<long> would be undefined behaviour
  CHECK_FALSE(json_as<int64_t>(json(2.0)));    // a float is not an integer here
  CHECK_FALSE(json_as<int>(json(int64_t(5000000000))));  // get<int> would wrap
  CHECK_FALSE(json_as<uint32_t>(json(-1)));
  CHECK(json_as<double>(json(uint64_t(1) << 63)) == 9223372036854775808.0);
  CHECK_FALSE(json_as<double>(json("1")));
  CHECK_FALSE(json_as<bool>(json(1)));
  CHECK(json_as<std::vector<int>>(json::parse("[1, 2, 3]")) == std::vector<int>{1, 2, 3});
  CHECK_FALSE(json_as<std::vector<int>>(json::parse("[1, 2.5]")));
  auto m = json_as<std::map<std::string, double>>(json::parse(R"({"mean": 1, "max": 2.5})"));
  REQUIRE(m);
  CHECK(m->at("max") == 2.5);
  CHECK_FALSE(json_as<std::map<std::string, std::string>>(json::parse(R"({"n": 1})")));
}

TEST_CASE("a result set with an integer field out of range is an error, not undefined behaviour") {
  auto j = nlohmann::json::parse(R"({"schema": "benchbox.resultset/1", "created": 1.74422e+20, "benchmarks": []})");
  auto rs = result_set_from_json(j);
  REQUIRE_FALSE(rs);
  CHECK(rs.error().message.find("/created") != std::string::npos);
  CHECK(rs.error().message.find("out of range") != std::string::npos);
}

TEST_CASE("a summary keeps its names sorted and unique, as the std::map it replaced did") {
  Summary s;
  CHECK(s.empty());
  CHECK(s.emplace("median", 2.0).second);
  CHECK(s.emplace("max", 3.0).second);   // before the last: inserted in its place
  CHECK(s.emplace("stddev", 0.5).second);
  CHECK(s.emplace("mean", 2.5).second);
  auto again = s.emplace("mean", 9.0);
  CHECK_FALSE(again.second);              // the first value stays
  CHECK(again.first->second == 2.5);
  s.emplace_hint(s.end(), "min", 1.0);
  std::vector<std::string> names;
  for (const auto& [name, value] : s) names.push_back(name);
  CHECK(names == std::vector<std::string>{"max", "mean", "median", "min", "stddev"});
  CHECK(s.size() == 5);
  CHECK(s.at("min") == 1.0);
  CHECK_THROWS_AS(s.at("q1"), std::out_of_range);
  CHECK(s.count("q1") == 0);
  CHECK(s.find("q1") == s.end());
  s["q1"] = 1.5;  // made, then set
  CHECK(s.contains("q1"));
  CHECK(s["iqr"] == 0.0);
  CHECK(s.erase("iqr") == 1);
  CHECK(s.erase("iqr") == 0);
  CHECK(s == Summary{{"stddev", 0.5}, {"q1", 1.5}, {"min", 1.0}, {"median", 2.0}, {"mean", 2.5}, {"max", 3.0}});
  CHECK(Summary{{"mean", 1.0}, {"mean", 2.0}}.at("mean") == 1.0);

  // JSON: an object in name order, read back by json_as as a map would be.
  nlohmann::json j = s;
  CHECK(j.dump() == R"({"max":3.0,"mean":2.5,"median":2.0,"min":1.0,"q1":1.5,"stddev":0.5})");
  auto back = json_as<Summary>(j);
  REQUIRE(back);
  CHECK(*back == s);
  CHECK_FALSE(json_as<Summary>(nlohmann::json::parse(R"({"mean": "1"})")));
  CHECK_FALSE(json_as<Summary>(nlohmann::json::parse("[1]")));
}

TEST_CASE("a key's parameters order and compare as the std::map they replaced did") {
  // Keys sort result sets, name files and index history: every order among
  // keys must be std::map's, entry by entry in name order, a prefix first.
  const std::vector<std::vector<std::pair<std::string, std::string>>> cases = {
      {}, {{"n", "10"}}, {{"n", "2"}}, {{"n", "10"}, {"s", "x"}}, {{"n", "10"}, {"s", ""}},
      {{"m", "10"}}, {{"param10", "a"}, {"param2", "b"}}, {{"param2", "b"}, {"param10", "a"}}};
  auto both = [](const auto& entries) {
    Params p;
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : entries) {
      p[k] = v;
      m[k] = v;
    }
    return std::pair{p, m};
  };
  for (const auto& a : cases)
    for (const auto& b : cases) {
      auto [pa, ma] = both(a);
      auto [pb, mb] = both(b);
      CAPTURE(BenchmarkKey{"s", "n", pa}.to_string(), BenchmarkKey{"s", "n", pb}.to_string());
      CHECK((pa <=> pb) == (ma <=> mb));
      CHECK((pa == pb) == (ma == mb));
      CHECK((BenchmarkKey{"s", "n", pa} < BenchmarkKey{"s", "n", pb}) == (ma < mb));
    }
  // Inserted out of order, iterated and written in name order.
  Params p{{"param2", "b"}, {"param10", "a"}};
  CHECK(BenchmarkKey{"s", "n", p}.to_string() == "s/n[param10=a,param2=b]:wall_time");
  CHECK(nlohmann::json(p).dump() == R"({"param10":"a","param2":"b"})");
  auto back = json_as<Params>(nlohmann::json(p));
  REQUIRE(back);
  CHECK(*back == p);
  CHECK_FALSE(json_as<Params>(nlohmann::json::parse(R"({"n": 1})")));
  // operator[] returns a reference good until the next insertion: a value
  // written through it in one statement lands.
  p["param1"] = "c";
  CHECK(p.at("param1") == "c");
  CHECK(p.size() == 3);
}
