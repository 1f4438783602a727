// Backfill's commit selection on real repositories made with the git CLI.
#include <catch2/catch.hpp>

#include "git/select.h"
#include "git/test_git_fixture.h"

using namespace bb;
using namespace bb::git;
using namespace bb::git::test;

TEST_CASE("tags are matched by glob and sorted in version order") {
  Fixture f;
  std::string a = f.wgit("rev-parse HEAD");
  std::string b = f.commit("x", "1\n", "B");
  f.wgit("tag v1.9.0 " + a);
  f.wgit("tag -a -m release v1.10.0 " + b);  // annotated: peeled to its commit
  f.wgit("tag v1.2.0 " + a);
  f.wgit("tag nightly " + b);
  std::string tree = f.wgit("rev-parse HEAD^{tree}");
  f.wgit("tag v9.tree " + tree);  // names a tree, not a commit
  auto repo = Repository::open_any(f.work);
  REQUIRE(repo);
  auto tags = tags_matching(*repo, "v*");
  REQUIRE(tags);
  REQUIRE(tags->size() == 3);
  CHECK((*tags)[0].tag == "v1.2.0");
  CHECK((*tags)[1].tag == "v1.9.0");
  CHECK((*tags)[2].tag == "v1.10.0");
  CHECK((*tags)[2].commit == b);
  CHECK((*tags)[0].commit == a);
  auto none = tags_matching(*repo, "release-*");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("a range walks the first-parent chain, oldest first, as git rev-list does") {
  Fixture f;
  std::string root = f.wgit("rev-parse HEAD");
  std::string c1 = f.commit("a", "1\n", "C1");
  f.wgit("checkout -q -b topic");
  std::string t1 = f.commit("t", "1\n", "T1");
  std::string t2 = f.commit("t", "2\n", "T2");
  f.wgit("checkout -q main");
  std::string c2 = f.commit("b", "1\n", "C2");
  f.wgit("merge -q --no-ff -m merge topic");
  std::string m = f.wgit("rev-parse HEAD");
  std::string c3 = f.commit("c", "1\n", "C3");
  auto repo = Repository::open_any(f.work);
  REQUIRE(repo);

  auto all = first_parent_commits(*repo, "main", "");
  REQUIRE(all);
  CHECK(*all == std::vector<std::string>{root, c1, c2, m, c3});
  CHECK(f.wgit("rev-list --first-parent --reverse main") ==
        root + "\n" + c1 + "\n" + c2 + "\n" + m + "\n" + c3);

  auto range = first_parent_commits(*repo, c3, c1);
  REQUIRE(range);
  CHECK(*range == std::vector<std::string>{c2, m, c3});  // not t1, t2: inside the merged branch

  auto newest = first_parent_commits(*repo, "main", "", 2);
  REQUIRE(newest);
  CHECK(*newest == std::vector<std::string>{m, c3});

  auto bad = first_parent_commits(*repo, "no-such-branch", "");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("no-such-branch") != std::string::npos);
  (void)t1;
  (void)t2;
}

TEST_CASE("every n-th keeps the newest and counts back from it") {
  std::vector<std::string> c{"1", "2", "3", "4", "5", "6", "7"};
  CHECK(every_nth(c, 3) == std::vector<std::string>{"1", "4", "7"});
  CHECK(every_nth(c, 2) == std::vector<std::string>{"1", "3", "5", "7"});
  CHECK(every_nth(c, 10) == std::vector<std::string>{"7"});
  CHECK(every_nth(c, 1) == c);
  CHECK(every_nth(c, 0) == c);
  CHECK(every_nth({}, 3).empty());
}
