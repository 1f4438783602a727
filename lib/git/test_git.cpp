// lib/git against real repositories made with the git CLI: an "upstream"
// work repo, a bare "origin" it pushes to (what GitHub would be), and the
// benchbox cache fetched from origin by path or file:// URL.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "git/repository.h"
#include "git/test_git_fixture.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::git;

using namespace bb::git::test;

TEST_CASE("fetch branches from a local bare repository and resolve them") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  auto main = repo->resolve("refs/heads/main");
  REQUIRE(main);
  CHECK(*main == f.wgit("rev-parse main"));
  CHECK(repo->has_commit(*main));
  CHECK_FALSE(repo->has_commit("0123456789012345678901234567890123456789"));
  CHECK_FALSE(repo->has_commit("not-a-sha"));

  SECTION("new commits arrive with the next fetch, and a force-push wins") {
    std::string b = f.commit("src/a.c", "int a;\n", "B");
    f.push("main");
    REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
    CHECK(*repo->resolve("refs/heads/main") == b);

    f.wgit("reset -q --hard HEAD~1");
    std::string c = f.commit("src/c.c", "int c;\n", "C");
    f.push("main");
    REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
    CHECK(*repo->resolve("refs/heads/main") == c);
    CHECK(repo->has_commit(b));  // still in the cache's objects, just unreferenced
  }

  SECTION("reopening the cache finds what was fetched") {
    auto again = Repository::open_or_init_bare(f.cache);
    REQUIRE(again);
    CHECK(*again->resolve("refs/heads/main") == *main);
  }
}

TEST_CASE("tags, lightweight and annotated, resolve to their commit") {
  Fixture f;
  std::string a = f.wgit("rev-parse HEAD");
  f.wgit("tag v1");
  f.wgit("tag -a -m release v2");
  f.push("--tags");
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch("file://" + f.origin, fetch_refspecs(0)));
  CHECK(*repo->resolve("refs/tags/v1") == a);
  CHECK(*repo->resolve("refs/tags/v2") == a);
  CHECK(*repo->resolve(a) == a);
}

TEST_CASE("pull request heads come only through their explicit refspec") {
  Fixture f;
  std::string base = f.wgit("rev-parse HEAD");
  std::string main2 = f.commit("main.txt", "m\n", "M");
  f.push("main");
  f.wgit("checkout -q -b feature " + base);
  std::string pr = f.commit("feature.txt", "f\n", "F");
  // GitHub keeps PR heads under refs/pull/N/head; make one the same way:
  // the objects arrive on a scratch branch that is deleted again.
  f.push("feature:refs/heads/scratch");
  f.git("-C " + f.origin + " update-ref refs/pull/1/head " + pr);
  f.git("-C " + f.origin + " update-ref -d refs/heads/scratch");
  f.git("-C " + f.origin + " update-ref refs/pull/2/head " + main2);

  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  // Only branches and tags: the PR commit is not in any of them.
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  auto missing = repo->resolve("refs/pull/1/head");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == Errc::not_found);

  REQUIRE(repo->fetch(f.origin, fetch_refspecs(1)));
  CHECK(*repo->resolve("refs/pull/1/head") == pr);
  CHECK_FALSE(repo->resolve("refs/pull/2/head"));

  REQUIRE(repo->fetch(f.origin, fetch_refspecs(-1)));
  CHECK(*repo->resolve("refs/pull/2/head") == main2);

  SECTION("merge-base of the PR head and the base branch tip") {
    auto mb = repo->merge_base(pr, "refs/heads/main");
    REQUIRE(mb);
    CHECK(*mb == base);
    CHECK(*mb == f.wgit("merge-base " + pr + " " + main2));
  }
}

TEST_CASE("read a file straight from a commit's tree") {
  Fixture f;
  std::string with = f.commit(".benchbox.yml", "version: 1\nsuites: []\n", "config");
  std::string changed = f.commit(".benchbox.yml", "version: 1\n# changed\n", "config2");
  f.push("main");
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  CHECK(*repo->read_file(with, ".benchbox.yml") == "version: 1\nsuites: []\n");
  CHECK(*repo->read_file("refs/heads/main", ".benchbox.yml") == "version: 1\n# changed\n");

  std::string first = f.wgit("rev-list --max-parents=0 HEAD");
  auto none = repo->read_file(first, ".benchbox.yml");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == Errc::not_found);
  CHECK(none.error().message == "no .benchbox.yml in commit " + first);

  auto big = repo->read_file(with, ".benchbox.yml", 4);
  REQUIRE_FALSE(big);
  CHECK(big.error().message.find("larger than 4 bytes") != std::string::npos);
}

TEST_CASE("export a commit's tree into an empty directory") {
  Fixture f;
  f.commit("src/deep/file.txt", "deep\n", "deep");
  REQUIRE(write_file_atomic(f.work + "/bench.sh", "#!/bin/sh\necho hi\n", 0755));
  f.wgit("add bench.sh");
  f.wgit("commit -q -m script");
  std::string head = f.wgit("rev-parse HEAD");
  f.push("main");
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  // The cache's HEAD names the very commit we export: the baseline must
  // not make checkout think the (empty) directory is up to date.
  f.git("--git-dir=" + f.cache + " symbolic-ref HEAD refs/heads/main");

  std::string dir = f.root + "/tree-" + head.substr(0, 8);
  REQUIRE(repo->export_tree(head, dir));
  CHECK(*read_file(dir + "/README") == "hello\n");
  CHECK(*read_file(dir + "/src/deep/file.txt") == "deep\n");
  struct stat st {};
  REQUIRE(::stat((dir + "/bench.sh").c_str(), &st) == 0);
  CHECK((st.st_mode & 0100) != 0);
  CHECK_FALSE(path_exists(dir + "/.git"));
  CHECK_FALSE(path_exists(f.cache + "/index"));

  auto again = repo->export_tree(head, dir);
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("is not an empty directory") != std::string::npos);

  auto bad = repo->export_tree("refs/heads/nope", f.root + "/x");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("resolve 'refs/heads/nope'") == 0);
}

TEST_CASE("a fetch from a missing path fails with libgit2's message") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  auto st = repo->fetch(f.root + "/does-not-exist.git", fetch_refspecs(0));
  REQUIRE_FALSE(st);
  INFO(st.error().message);
  CHECK(st.error().message.rfind("fetch " + f.root + "/does-not-exist.git: ", 0) == 0);
  CHECK(st.error().message.size() > ("fetch " + f.root + "/does-not-exist.git: ").size());
}

TEST_CASE("stale lock files of a killed fetch are removed") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  std::string b = f.commit("b", "b\n", "B");
  f.push("main");
  REQUIRE(write_file_atomic(f.cache + "/refs/heads/main.lock", ""));
  auto blocked = repo->fetch(f.origin, fetch_refspecs(0));
  REQUIRE_FALSE(blocked);
  CHECK(blocked.error().message.find("lock") != std::string::npos);
  REQUIRE(repo->remove_stale_locks());
  CHECK_FALSE(path_exists(f.cache + "/refs/heads/main.lock"));
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  CHECK(*repo->resolve("refs/heads/main") == b);
}

TEST_CASE("cache paths are readable and do not collide") {
  CHECK(cache_path("/c", "acme/widget").rfind("/c/acme_widget-", 0) == 0);
  CHECK(cache_path("/c", "acme/widget").size() == std::string("/c/acme_widget-12345678.git").size());
  CHECK(cache_path("/c", "a_b/c") != cache_path("/c", "a/b_c"));
  CHECK(cache_path("/c", "../x").find("/../") == std::string::npos);
}

TEST_CASE("commit metadata: date, author, subject and the first-parent position across a merge") {
  Fixture f;  // main: A
  f.commit("x", "1\n", "B");
  f.wgit("checkout -q -b feature");
  f.commit("y", "1\n", "F1");
  f.commit("y", "2\n", "F2");
  f.commit("y", "3\n", "F3");
  f.wgit("checkout -q main");
  f.commit("x", "2\n", "C");
  f.wgit("merge -q --no-ff -m 'Merge feature' feature");
  std::string merge = f.wgit("rev-parse HEAD");
  std::string feature_tip = f.wgit("rev-parse feature");
  f.push("main");
  f.push("feature");
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));

  auto m = repo->commit_meta(merge);
  REQUIRE(m);
  // A, B, C before the merge on main's first-parent chain; the feature's
  // three commits are not on it.
  CHECK(m->first_parent_position == 3);
  CHECK(m->subject == "Merge feature");
  CHECK(m->author == "t <t@example.com>");
  CHECK(std::to_string(m->time) == f.wgit("show -s --format=%ct " + merge));
  auto ft = repo->commit_meta(feature_tip);
  REQUIRE(ft);
  CHECK(ft->first_parent_position == 4);  // A, B, F1, F2 before F3
  auto root = repo->commit_meta(f.wgit("rev-list --max-parents=0 HEAD"));
  REQUIRE(root);
  CHECK(root->first_parent_position == 0);
  CHECK_FALSE(repo->commit_meta(std::string(40, 'e')));
}

TEST_CASE("the paths two commits' trees differ in") {
  Fixture f;
  std::string a = f.commit("src/parser/lexer.c", "int x;\n", "lexer");
  f.commit("README", "docs\n", "readme");
  f.wgit("mv src/parser/lexer.c src/parser/scan.c");
  f.wgit("commit -q -m rename");
  std::string b = f.commit("include/p.h", "#pragma once\n", "header");
  f.push("main");
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  REQUIRE(repo->fetch(f.origin, fetch_refspecs(0)));
  auto changed = repo->changed_paths(a, b);
  REQUIRE(changed);
  CHECK(*changed == std::vector<std::string>{"README", "include/p.h", "src/parser/lexer.c", "src/parser/scan.c"});
  CHECK(repo->changed_paths(b, b)->empty());
  CHECK_FALSE(repo->changed_paths(a, std::string(40, 'f')));
}
