#include <catch2/catch.hpp>
#include <regex.h>

#include <algorithm>
#include <set>

#include "config/shard.h"
#include "config/suite.h"
#include "util/text.h"

using namespace bb;
using namespace bb::config;

namespace {

Suite parse_one(const std::string& body) {
  auto r = parse_suite_config("version: 1\nsuites:\n  - name: s\n" + body, ".benchbox.yml");
  if (!r) FAIL(r.error().message);
  return r->suites.at(0);
}

std::string shard_error(const std::string& body) {
  auto r = parse_suite_config("version: 1\nsuites:\n  - name: s\n" + body, ".benchbox.yml");
  if (r) FAIL("expected an error for:\n" << body);
  return r.error().message;
}

std::vector<std::string> names(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("BM_case/" + std::to_string(i));
  return out;
}

// What glibc's POSIX ERE (Google Benchmark's regex) says of the pattern.
bool ere_matches(const std::string& pattern, const std::string& text) {
  regex_t re;
  REQUIRE(regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB) == 0);
  bool m = regexec(&re, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  return m;
}

}  // namespace

TEST_CASE("shards and shard_by parse, with their defaults") {
  Suite plain = parse_one("    run: ./b\n");
  CHECK(plain.shards == 1);
  CHECK(plain.shard_by.empty());

  Suite s = parse_one("    run: ./b --benchmark_format=json\n    format: google-benchmark\n"
                      "    benchmarks: [BM_a, BM_b]\n    shards: 4\n");
  CHECK(s.shards == 4);

  Suite by = parse_one("    run: ./b\n    format: google-benchmark\n    list: ./b --benchmark_list_tests\n"
                       "    shard_by:\n      - [BM_parse*, BM_lex*]\n      - BM_codegen*\n");
  CHECK(by.shards == 2);  // as many as shard_by names
  REQUIRE(by.shard_by.size() == 2);
  CHECK(by.shard_by[0] == std::vector<std::string>{"BM_parse*", "BM_lex*"});
  CHECK(by.shard_by[1] == std::vector<std::string>{"BM_codegen*"});
}

TEST_CASE("a broken shards or shard_by is refused with where and why") {
  const std::string gb = "    run: ./b\n    format: google-benchmark\n    benchmarks: [BM_a]\n";
  CHECK_THAT(shard_error(gb + "    shards: 0\n"), Catch::Contains("suites[0].shards") && Catch::Contains("1 to 64"));
  CHECK_THAT(shard_error(gb + "    shards: 65\n"), Catch::Contains("1 to 64"));
  CHECK_THAT(shard_error(gb + "    shards: many\n"), Catch::Contains("shards"));
  CHECK_THAT(shard_error(gb + "    shards: 2\n    shard_by: [[a], [b], [c]]\n"),
             Catch::Contains("names 3 shards but 'shards' is 2"));
  CHECK_THAT(shard_error(gb + "    shard_by: []\n"), Catch::Contains("one list of benchmark patterns per shard"));
  CHECK_THAT(shard_error(gb + "    shard_by: [[\"\"]]\n"), Catch::Contains("must not be empty"));
  CHECK_THAT(shard_error(gb + "    shard_by: [{a: b}]\n"), Catch::Contains("shard_by[0]"));
  CHECK_THAT(shard_error("    run: ./b\n    shards: 2\n"), Catch::Contains("format 'command' measures one command"));
  CHECK_THAT(shard_error("    run: ./b\n    format: google-benchmark\n    shards: 2\n"),
             Catch::Contains("needs the benchmarks declared") && Catch::Contains(".benchbox.yml:6:"));
}

TEST_CASE("benchmarks spread by a stable hash: every one in exactly one shard, the same every time") {
  Suite s;
  s.shards = 4;
  const auto all = names(400);
  const auto shards = assign_shards(s, all);
  REQUIRE(shards.size() == 4);
  std::multiset<std::string> seen;
  for (const auto& shard : shards) {
    // Roughly even: 100 expected each; a hash this far off would be broken.
    CHECK(shard.size() > 60);
    CHECK(shard.size() < 140);
    seen.insert(shard.begin(), shard.end());
  }
  CHECK(seen == std::multiset<std::string>(all.begin(), all.end()));
  CHECK(assign_shards(s, all) == shards);
  // Stable across releases: these values are written down, not computed.
  CHECK(hashed_shard("BM_parse", 4) == 0);
  CHECK(hashed_shard("BM_parse", 8) == 4);
  CHECK(hashed_shard("BM_codegen", 4) == 2);
  CHECK(hashed_shard("BM_codegen", 8) == 6);
  CHECK(hashed_shard("tests/test_a.py::test_sort", 4) == 1);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);  // FNV-1a's published test vector
  // A name's shard does not depend on the other names.
  auto fewer = assign_shards(s, {all[7], all[3]});
  for (const auto& name : {all[7], all[3]}) {
    const auto h = hashed_shard(name, 4);
    CHECK(std::count(fewer[h].begin(), fewer[h].end(), name) == 1);
  }
  // Duplicates count once; one shard means everything in it.
  s.shards = 1;
  CHECK(assign_shards(s, {"a", "b", "a"}) == std::vector<std::vector<std::string>>{{"a", "b"}});
}

TEST_CASE("shard_by claims benchmarks first, the rest go by hash") {
  Suite s;
  s.shards = 3;
  s.shard_by = {{"BM_parse*"}, {"BM_codegen*", "BM_link"}};
  const auto shards = assign_shards(s, {"BM_parse/1", "BM_parse/2", "BM_codegen", "BM_link", "BM_other"});
  CHECK(shards[0] == std::vector<std::string>{"BM_parse/1", "BM_parse/2"});
  CHECK(std::count(shards[1].begin(), shards[1].end(), "BM_codegen") == 1);
  CHECK(std::count(shards[1].begin(), shards[1].end(), "BM_link") == 1);
  const auto h = hashed_shard("BM_other", 3);
  CHECK(std::count(shards[h].begin(), shards[h].end(), "BM_other") == 1);
}

TEST_CASE("each harness gets its own filter, which selects exactly the shard's names") {
  const std::vector<std::string> gb = {"BM_sort/8", "BM_sort/64", "BM_x<int>", "BM_a.b"};
  const std::string filter = harness_filter("google-benchmark", gb);
  CHECK(filter == "'--benchmark_filter=^(BM_sort/8|BM_sort/64|BM_x<int>|BM_a\\.b)$'");
  const std::string re = names_regex(gb);
  for (const auto& n : gb) CHECK(ere_matches(re, n));
  CHECK_FALSE(ere_matches(re, "BM_sort/80"));
  CHECK_FALSE(ere_matches(re, "BM_aXb"));
  CHECK_FALSE(ere_matches(re, "xBM_sort/8"));
  CHECK(ere_matches(names_regex({"a(b)[c]{2}?*+|^$\\"}), "a(b)[c]{2}?*+|^$\\"));

  CHECK(harness_filter("asv", {"bench.Time.time_a", "bench.Time.time_b"}) ==
        "-b '^(bench\\.Time\\.time_a|bench\\.Time\\.time_b)$'");
  // go test: one pattern per level; a top-level name brings its sub-benchmarks.
  CHECK(harness_filter("go-test", {"BenchmarkSort/small", "BenchmarkSort/big", "BenchmarkHash"}) ==
        "-bench '^(BenchmarkSort|BenchmarkHash)$'");
  CHECK(harness_filter("pytest-benchmark", {"tests/test_a.py::test_sort", "tests/test_a.py::Cls::test_hash",
                                            "tests/test_b.py::test_sort"}) == "-k 'test_sort or test_hash'");
  // -k takes identifiers: a name it cannot say means no -k, and a cut result.
  CHECK(harness_filter("pytest-benchmark", {"tests/t.py::test-dash"}).empty());
  CHECK(harness_filter("hyperfine", {"a"}).empty());
  CHECK(harness_filter("google-benchmark", {}).empty());
}

TEST_CASE("a shard's run command: the filter appended, or placed where the command says") {
  Suite s;
  s.format = "google-benchmark";
  s.run = "./bench --benchmark_format=json\n";
  CHECK(shard_run_command(s, {"BM_a"}) == "./bench --benchmark_format=json '--benchmark_filter=^(BM_a)$'");
  s.run = "./bench --benchmark_filter=\"$BENCHBOX_SHARD_FILTER\" | tee out.json";
  CHECK(shard_run_command(s, {"BM_a"}) == s.run);
  s.format = "hyperfine";
  s.run = "hyperfine --export-json out.json 'a' 'b'";
  CHECK(shard_run_command(s, {"a"}) == s.run);
}
