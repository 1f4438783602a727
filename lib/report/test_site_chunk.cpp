// The trend chunk's compact encoding (site_chunk.h): what goes in comes
// back, to float32's 7 significant digits, and a malformed chunk is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "report/site_chunk.h"
#include "report/test_chunk_columns.h"
#include "util/text.h"

using namespace bb;
using namespace bb::report;

namespace {

site::ChunkColumns sample() {
  site::ChunkColumns c;
  c.x = {-2, -1, 5, 6, 1030};  // unplaced points first, then a gap
  c.time = {1700000000, 1699990000, 1700000600, 1700000600, 1700100000};
  c.job = {7, 3, 12, 13, 400};
  c.n = {5, 0, 15, 15, 30};
  c.env = {0, 0, 0, 1, 1};
  c.median = {1.234567e-9, std::nan(""), 0.1001, 42.0, 3.0e7};
  c.q1 = {1.2e-9, std::nan(""), 0.1, 41.0, 2.9e7};
  c.q3 = {1.3e-9, std::nan(""), 0.1002, 43.0, 3.1e7};
  c.status = {"ok", "failed", "ok", "ok", "skipped"};
  c.label = {"", "", "v1.0", "", "v2.0-rc1"};
  return c;
}

}  // namespace

TEST_CASE("a chunk round-trips through its compact encoding") {
  const auto in = sample();
  const auto chunk = site::encode_chunk(in, "data/s.0.c.js", "commits/s/0");
  CHECK(chunk["schema"] == site::kChunkSchema);
  CHECK(chunk["x"] == nlohmann::json({-2, 1, 6, 1, 1024}));  // deltas
  CHECK(chunk["median"].contains("f32"));
  CHECK(chunk["status"]["values"] == nlohmann::json({"ok", "failed", "skipped"}));
  CHECK(chunk["commits"]["src"] == "data/s.0.c.js");
  auto out = site::decode_chunk(chunk.dump());
  REQUIRE(out);
  CHECK(out->x == in.x);
  CHECK(out->time == in.time);
  CHECK(out->job == in.job);
  CHECK(out->n == in.n);
  CHECK(out->env == in.env);
  CHECK(out->status == in.status);
  CHECK(out->label == in.label);
  for (size_t i = 0; i < in.x.size(); ++i) {
    INFO("point " << i);
    if (std::isnan(in.median[i])) {
      CHECK(std::isnan(out->median[i]));
      continue;
    }
    CHECK(out->median[i] == Approx(in.median[i]).epsilon(1e-7));
    CHECK(out->q1[i] == Approx(in.q1[i]).epsilon(1e-7));
    CHECK(out->q3[i] == Approx(in.q3[i]).epsilon(1e-7));
  }
}

TEST_CASE("values a float32 cannot hold keep their column in float64") {
  auto in = sample();
  in.median[2] = 1e300;  // a count nothing should overflow
  in.q1[0] = 1e-300;     // below float32's normal range
  const auto chunk = site::encode_chunk(in, "s", "n");
  CHECK(chunk["median"].contains("f64"));
  CHECK(chunk["q1"].contains("f64"));
  CHECK(chunk["q3"].contains("f32"));
  auto out = site::decode_chunk(chunk.dump());
  REQUIRE(out);
  CHECK(out->median[2] == 1e300);
  CHECK(out->q1[0] == 1e-300);
}

TEST_CASE("a malformed chunk is refused with what is wrong") {
  const auto in = sample();
  const auto good = site::encode_chunk(in, "s", "n");
  auto broken = [&](auto edit) {
    nlohmann::json j = good;
    edit(j);
    auto r = site::decode_chunk(j.dump());
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK(broken([](nlohmann::json& j) { j["schema"] = "benchbox.site.chunk/1"; }).find("not a") != std::string::npos);
  CHECK(broken([](nlohmann::json& j) { j["x"].erase(0); }).find("\"x\"") != std::string::npos);
  CHECK(broken([](nlohmann::json& j) { j["median"] = {{"f32", "AAAA"}}; }).find("\"median\"") != std::string::npos);
  CHECK(broken([](nlohmann::json& j) { j["status"]["index"][0] = 9; }).find("status") != std::string::npos);
  CHECK(broken([](nlohmann::json& j) { j["labels"] = {{99, "v"}}; }).find("label") != std::string::npos);
  CHECK(broken([](nlohmann::json& j) { j["n"][2] = "many"; }).find("\"n\"") != std::string::npos);
  CHECK_FALSE(site::decode_chunk("{not json"));
  CHECK_FALSE(site::decode_chunk("[]"));
}

TEST_CASE("a chunk encoded into a tree read back from a file writes each value as a fresh one would") {
  // Parsing gives a number without a sign an unsigned type; a negative
  // delta written over it in place must not keep that type.
  site::ChunkColumns up;
  up.x = {1, 2, 3, 4, 5};
  up.time = {10, 20, 30, 40, 50};
  up.job = {1, 2, 3, 4, 5};
  up.n = {5, 5, 5, 5, 5};
  up.env = {0, 0, 0, 0, 0};
  up.median = up.q1 = up.q3 = {1, 2, 3, 4, 5};
  up.status = {"ok", "ok", "ok", "ok", "ok"};
  up.label = {"", "", "", "", ""};
  nlohmann::json tree = nlohmann::json::parse(site::encode_chunk(up, "s", "n").dump());
  REQUIRE(tree["job"][1].is_number_unsigned());
  const auto down = sample();  // jobs 7, 3, ...: a delta of -4
  site::encode_chunk_into(tree, down, "s", "n");
  CHECK(tree == site::encode_chunk(down, "s", "n"));
  auto back = site::decode_chunk(tree.dump());
  REQUIRE(back);
  CHECK(back->job == down.job);
}

TEST_CASE("a ref chunk's commits are its runs' jobs, delta-encoded, and their ids") {
  const std::vector<std::pair<int64_t, std::string>> commits = {{7, "aa"}, {9, "bb"}, {8, "cc"}};
  CHECK(site::encode_commits(commits) == nlohmann::json{{"schema", site::kCommitsSchema},
                                                         {"points", 3},
                                                         {"job", {7, 2, -1}},
                                                         {"commit", {"aa", "bb", "cc"}}});
  CHECK(site::encode_commits({}) ==
        nlohmann::json{{"schema", site::kCommitsSchema}, {"points", 0}, {"job", nlohmann::json::array()},
                       {"commit", nlohmann::json::array()}});
}

TEST_CASE("an encoder used chunk after chunk writes each as a fresh one would") {
  // Its trees are reused: nothing of a longer chunk, a float64 column or
  // another status may be left in the next.
  site::ChunkColumns big;
  for (int i = 0; i < 1100; ++i) {
    big.x.push_back(2048 + i);
    big.time.push_back(1700000000 + 60 * i);
    big.job.push_back(10 + i);
    big.n.push_back(i % 7);
    big.env.push_back(i % 3);
    big.median.push_back(i == 5 ? 1e300 : 1.0 + i);
    big.q1.push_back(0.5 + i);
    big.q3.push_back(1.5 + i);
    big.status.push_back(i % 50 == 0 ? "failed" : i % 70 == 0 ? "timeout" : "ok");
    big.label.push_back(i % 400 == 0 ? "v" + std::to_string(i) : "");
  }
  site::ChunkColumns small = sample();
  site::ChunkColumns empty;
  site::ChunkEncoder encoder;
  for (const site::ChunkColumns* c : {&big, &small, &empty, &big, &small}) {
    INFO(c->x.size() << " points");
    CHECK(encoder.chunk(*c, "s", "n") == site::encode_chunk(*c, "s", "n"));
    CHECK(encoder.chunk(*c, "s", "n").dump() == site::encode_chunk(*c, "s", "n").dump());
  }
  std::vector<std::pair<int64_t, std::string>> many, few = {{3, "x"}, {4, "y"}};
  for (int i = 0; i < 1100; ++i) many.emplace_back(10 + i, sha256_hex(std::to_string(i)).substr(0, 40));
  for (const auto* c : {&many, &few, &many}) {
    INFO(c->size() << " commits");
    CHECK(encoder.commits(*c) == site::encode_commits(*c));
  }
}

TEST_CASE("a chunk's columns split at a point and join again") {
  const auto whole = sample();
  auto head = whole;
  auto tail = head.split_off(3);
  CHECK(head.size() == 3);
  CHECK(tail.size() == 2);
  CHECK(tail.x == std::vector<int64_t>{6, 1030});
  CHECK(tail.label == std::vector<std::string>{"", "v2.0-rc1"});
  CHECK(head.status == std::vector<std::string>{"ok", "failed", "ok"});
  CHECK(head.split_off(9).size() == 0);  // past the end: nothing
  head.append(std::move(tail));
  report::test::check_same(head, whole);
  CHECK(head.median[4] == whole.median[4]);  // moved, not converted
  // At 0: all of it, and nothing left.
  auto all = head.split_off(0);
  CHECK(head.size() == 0);
  CHECK(head.status.empty());
  report::test::check_same(all, whole);
}
