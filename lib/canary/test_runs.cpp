// The canary's run files: named by their time, listed oldest first, and
// nothing else taken for one.
#include <catch2/catch.hpp>

#include <fstream>

#include "canary/runs.h"
#include "util/test_tempdir.h"

using namespace bb::canary;

TEST_CASE("canary runs: <time>.json files, oldest first, newer than asked") {
  bb::test::TempDir dir;
  CHECK(run_files(dir.path + "/missing").empty());
  for (const char* name : {"300.json", "100.json", "200.json", "state.json", "12a.json", "100.json.tmp",
                           "1234567890123.json", ".json"})
    std::ofstream(dir.path + "/" + name) << "{}";
  auto all = run_files(dir.path);
  REQUIRE(all.size() == 3);
  CHECK(all[0].time == 100);
  CHECK(all[0].path == run_file(dir.path, 100));
  CHECK(all[2].time == 300);
  auto newer = run_files(dir.path, 100);
  REQUIRE(newer.size() == 2);
  CHECK(newer[0].time == 200);
  CHECK(run_file("/r/canary", 7) == "/r/canary/7.json");
}
