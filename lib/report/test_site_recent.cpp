// A branch's recent files (site_recent.h): what is set is what the next
// writer finds, only changed groups are written, and entries of series
// that went are left out.
#include <catch2/catch.hpp>

#include <set>

#include "report/site_paths.h"
#include "report/site_recent.h"
#include "util/file.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::report;

namespace {

const std::string kRepo = "octo/widgets", kMain = "refs/heads/main";

struct Site {
  bb::test::TempDir dir;
  std::vector<std::string> written;
  RecentFiles::Writer writer() {
    return [this](const std::string& path, const std::string& text) -> Status {
      written.push_back(path);
      const std::string full = path_join(dir.path, path);
      if (auto st = make_dirs(full.substr(0, full.rfind('/'))); !st) return st;
      return write_file_replace(full, text);
    };
  }
  nlohmann::json file(const std::string& path) {
    auto text = read_file(path_join(dir.path, path));
    REQUIRE(text);
    return nlohmann::json::parse(site::data_file_json(*text));
  }
};

bool all_live(const std::string&, const std::string&) { return true; }

// Two series ids of one group and one of another.
const std::string kA = "00aa000000000000", kB = "01bb000000000000", kC = "f0cc000000000000";

}  // namespace

TEST_CASE("recent groups: a series' group comes from its id, the same for the page and the writer") {
  CHECK(site::recent_group(kA) == 0);
  CHECK(site::recent_group(kB) == 0);
  CHECK(site::recent_group(kC) == 60);
  CHECK(site::recent_group("ffffffffffffffff") == site::kRecentGroups - 1);
  std::set<int> groups;
  for (int i = 0; i < 256; ++i) {
    const char hex[] = "0123456789abcdef";
    groups.insert(site::recent_group(std::string{hex[i / 16], hex[i % 16]} + "00000000000000"));
  }
  CHECK(groups.size() == size_t(site::kRecentGroups));
  CHECK(site::recent_data(kRepo, kMain, 7).rfind("data/r/octo/widgets/recent/", 0) == 0);
  CHECK(site::recent_data(kRepo, kMain, 7).substr(site::recent_data(kRepo, kMain, 7).size() - 5) == ".7.js");
  CHECK(site::recent_name(kMain, 7).rfind("recent/", 0) == 0);
  CHECK(site::recent_name(kMain, 7) != site::recent_name("refs/heads/dev", 7));
}

TEST_CASE("recent files: set entries are written per group, and a later writer finds them") {
  Site s;
  {
    RecentFiles recent(s.dir.path, s.writer());
    CHECK(recent.find(kRepo, kMain, kA) == nullptr);
    recent.entry(kRepo, kMain, kA) = {{"points", 3}};
    recent.entry(kRepo, kMain, kB) = {{"points", 4}};
    recent.entry(kRepo, kMain, kC) = {{"points", 5}};
    REQUIRE(recent.flush(kRepo, all_live));
    CHECK(s.written.size() == 2);  // groups 0 and 60
    const auto g0 = s.file(site::recent_data(kRepo, kMain, 0));
    CHECK(g0["schema"] == site::kRecentSchema);
    CHECK(g0["series"].size() == 2);
    CHECK(g0["series"][kA]["points"] == 3);
    CHECK(g0["series"][kB]["points"] == 4);
    auto text = read_file(path_join(s.dir.path, site::recent_data(kRepo, kMain, 0)));
    REQUIRE(text);
    CHECK(text->rfind("benchbox.receive(\"" + site::recent_name(kMain, 0) + "\", ", 0) == 0);
    // What it holds is still there after the flush, and nothing is
    // written again when nothing changed.
    REQUIRE(recent.find(kRepo, kMain, kA));
    CHECK((*recent.find(kRepo, kMain, kA))["points"] == 3);
    REQUIRE(recent.flush(kRepo, all_live));
    CHECK(s.written.size() == 2);
  }
  s.written.clear();
  RecentFiles again(s.dir.path, s.writer());
  const nlohmann::json* b = again.find(kRepo, kMain, kB);
  REQUIRE(b);
  CHECK((*b)["points"] == 4);
  // One entry changed: only its group is written, the other series of
  // the group as the file had them.
  again.entry(kRepo, kMain, kB) = {{"points", 6}};
  REQUIRE(again.flush(kRepo, all_live));
  REQUIRE(s.written == std::vector<std::string>{site::recent_data(kRepo, kMain, 0)});
  const auto g0 = s.file(site::recent_data(kRepo, kMain, 0));
  CHECK(g0["series"][kA]["points"] == 3);
  CHECK(g0["series"][kB]["points"] == 6);
}

TEST_CASE("recent files: series that went are left out, by erase or by the caller's word") {
  Site s;
  RecentFiles recent(s.dir.path, s.writer());
  recent.entry(kRepo, kMain, kA) = {{"points", 1}};
  recent.entry(kRepo, kMain, kB) = {{"points", 2}};
  recent.entry(kRepo, "refs/heads/dev", kA) = {{"points", 9}};
  REQUIRE(recent.flush(kRepo, all_live));

  SECTION("erase") {
    recent.erase(kRepo, kMain, kA);
    REQUIRE(recent.flush(kRepo, all_live));
    CHECK(s.file(site::recent_data(kRepo, kMain, 0))["series"].size() == 1);
    CHECK(s.file(site::recent_data(kRepo, "refs/heads/dev", 0))["series"].size() == 1);
  }
  SECTION("a series the caller no longer knows, in a group written for another") {
    RecentFiles later(s.dir.path, s.writer());
    later.entry(kRepo, kMain, kB) = {{"points", 3}};
    REQUIRE(later.flush(kRepo, [](const std::string& ref, const std::string& sid) {
      return !(ref == kMain && sid == kA);
    }));
    const auto g0 = s.file(site::recent_data(kRepo, kMain, 0));
    CHECK(g0["series"].size() == 1);
    CHECK(g0["series"][kB]["points"] == 3);
    CHECK(later.find(kRepo, kMain, kA) == nullptr);
  }
}

TEST_CASE("recent files: a file that is not one is written again whole; another repository waits for its own flush") {
  Site s;
  REQUIRE(make_dirs(path_join(s.dir.path, "data/r/octo/widgets/recent")));
  REQUIRE(write_file_replace(path_join(s.dir.path, site::recent_data(kRepo, kMain, 0)), "not a data file"));
  RecentFiles recent(s.dir.path, s.writer());
  CHECK(recent.find(kRepo, kMain, kA) == nullptr);
  recent.entry(kRepo, kMain, kA) = {{"points", 1}};
  recent.entry("octo/other", kMain, kA) = {{"points", 2}};
  REQUIRE(recent.flush(kRepo, all_live));
  CHECK(s.written == std::vector<std::string>{site::recent_data(kRepo, kMain, 0)});
  CHECK(s.file(site::recent_data(kRepo, kMain, 0))["series"][kA]["points"] == 1);
  REQUIRE(recent.flush("octo/other", all_live));
  CHECK(s.written.size() == 2);
  CHECK(s.file(site::recent_data("octo/other", kMain, 0))["series"][kA]["points"] == 2);
}

TEST_CASE("recent files: a write that fails is said, and the group stays to be written") {
  Site s;
  bool fail = true;
  auto inner = s.writer();
  RecentFiles recent(s.dir.path, [&](const std::string& path, const std::string& text) -> Status {
    if (fail) return make_error(Errc::io, "disk full");
    return inner(path, text);
  });
  recent.entry(kRepo, kMain, kA) = {{"points", 1}};
  auto st = recent.flush(kRepo, all_live);
  REQUIRE(!st);
  CHECK(st.error().message == "disk full");
  fail = false;
  REQUIRE(recent.flush(kRepo, all_live));
  CHECK(s.file(site::recent_data(kRepo, kMain, 0))["series"][kA]["points"] == 1);
}

TEST_CASE("recent files: past the bound, groups are dropped after their flush and read again when asked for") {
  Site s;
  RecentFiles recent(s.dir.path, s.writer(), 2);
  recent.entry(kRepo, kMain, kA) = {{"points", 1}};
  recent.entry(kRepo, kMain, kB) = {{"points", 2}};
  recent.entry(kRepo, kMain, kC) = {{"points", 3}};
  REQUIRE(recent.flush(kRepo, all_live));
  // Dropped: a file edited since is what the next find sees.
  auto edited = s.file(site::recent_data(kRepo, kMain, 0));
  edited["series"][kA]["points"] = 7;
  REQUIRE(write_file_replace(path_join(s.dir.path, site::recent_data(kRepo, kMain, 0)),
                             site::data_file(site::recent_name(kMain, 0), edited)));
  REQUIRE(recent.find(kRepo, kMain, kA));
  CHECK((*recent.find(kRepo, kMain, kA))["points"] == 7);
  CHECK((*recent.find(kRepo, kMain, kC))["points"] == 3);

  // Within the bound they stay: the same edit is not seen.
  RecentFiles roomy(s.dir.path, s.writer());
  roomy.entry(kRepo, kMain, kB) = {{"points", 5}};
  REQUIRE(roomy.flush(kRepo, all_live));
  edited["series"][kA]["points"] = 8;
  REQUIRE(write_file_replace(path_join(s.dir.path, site::recent_data(kRepo, kMain, 0)),
                             site::data_file(site::recent_name(kMain, 0), edited)));
  CHECK((*roomy.find(kRepo, kMain, kA))["points"] == 7);
}
