// What the transient service's containment needs of runnerd's side: the
// job's directory shared with the job user's group, the harness output
// prepared without following a symlink out of the tree, and the per-job
// bounds the pinned child applies (a file too large is the failure reason).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "exec/identity.h"
#include "exec/pinned_runner.h"
#include "exec/test_scratch.h"
#include "util/file.h"

using namespace bb;
using namespace bb::exec;
using bb::exec::test::Scratch;

namespace {

struct stat stat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

}  // namespace

TEST_CASE("a job's directory is shared with its group: group-writable, executables stay executable") {
  Scratch s;
  REQUIRE(make_dirs(s.dir + "/job/tree/sub", 0700));
  REQUIRE(write_file_atomic(s.dir + "/job/tree/sub/a.txt", "x", 0600));
  REQUIRE(write_file_atomic(s.dir + "/job/tree/run.sh", "#!/bin/sh\n", 0700));
  REQUIRE(::symlink("/etc/passwd", (s.dir + "/job/tree/link").c_str()) == 0);
  // A group this process may give files to: its own (root may give any).
  const gid_t gid = ::getegid();
  REQUIRE(share_with_group(s.dir + "/job", gid));
  for (const char* p : {"/job", "/job/tree", "/job/tree/sub"}) {
    auto st = stat_of(s.dir + p);
    CHECK(st.st_gid == gid);
    CHECK((st.st_mode & 0070) == 0070);
  }
  auto data = stat_of(s.dir + "/job/tree/sub/a.txt");
  CHECK((data.st_mode & 0777) == 0660);
  auto script = stat_of(s.dir + "/job/tree/run.sh");
  CHECK((script.st_mode & 0777) == 0770);
  // The symlink itself is left alone, and so is what it points at.
  CHECK((stat_of("/etc/passwd").st_mode & 0777) == 0644);

  SECTION("a directory the job's user must pass through is named when it cannot") {
    REQUIRE(::chmod(s.dir.c_str(), 0700) == 0);
    auto st = reachable_by_group(s.dir + "/job/tree", gid + 1);
    REQUIRE_FALSE(st);
    CHECK(st.error().message.find(s.dir + " is mode 0700") != std::string::npos);
    REQUIRE(::chmod(s.dir.c_str(), 0750) == 0);
    CHECK(reachable_by_group(s.dir + "/job/tree", stat_of(s.dir).st_gid));
  }
}

TEST_CASE("the harness output is prepared inside the tree only: a planted symlink sends runnerd nowhere") {
  Scratch s;
  const std::string tree = s.dir + "/tree", outside = s.dir + "/outside";
  REQUIRE(make_dirs(tree));
  REQUIRE(make_dirs(outside));
  REQUIRE(write_file_atomic(outside + "/result.json", "precious", 0644));
  SECTION("a fresh tree: the directories are made, in the job's group") {
    REQUIRE(prepare_output(tree, "out/deep/result.json", std::nullopt, ::getegid()));
    auto st = stat_of(tree + "/out/deep");
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0770);
  }
  SECTION("the output's directory is a symlink out of the tree") {
    REQUIRE(::symlink(outside.c_str(), (tree + "/out").c_str()) == 0);
    auto st = prepare_output(tree, "out/result.json", std::nullopt);
    REQUIRE_FALSE(st);
    CHECK(path_exists(outside + "/result.json"));
    CHECK_FALSE(prepare_output(tree, "out/more/result.json", std::nullopt));
    CHECK_FALSE(path_exists(outside + "/more"));
  }
  SECTION("the output itself is a symlink: only the link goes") {
    REQUIRE(::symlink((outside + "/result.json").c_str(), (tree + "/result.json").c_str()) == 0);
    REQUIRE(prepare_output(tree, "result.json", std::nullopt));
    CHECK(path_exists(outside + "/result.json"));
  }
}

TEST_CASE("a file larger than the job's bound stops the command with that reason") {
  Scratch s;
  PinnedChildRunner runner;
  Command c;
  // The shell reports the child SIGXFSZ killed as 128 + 25.
  c.shell = "head -c 200000 /dev/zero > big || exit $?";
  c.cwd = s.dir;
  c.limits.file_size_max_bytes = 65536;
  auto o = runner.run(c, nullptr);
  REQUIRE(o);
  CHECK_FALSE(o->success());
  CHECK(o->limit_hit.find("file size: a file reached 65536 bytes") != std::string::npos);
  CHECK(o->describe().find("stopped by a per-job bound") != std::string::npos);
  c.limits.file_size_max_bytes = 0;
  auto free_run = runner.run(c, nullptr);
  REQUIRE(free_run);
  CHECK(free_run->success());
  CHECK(free_run->limit_hit.empty());
}
