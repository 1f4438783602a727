// A git playground for lib/git's tests: an "upstream" work repository
// made with the git CLI, a bare "origin" it pushes to (what GitHub would
// be), and where benchbox's cache of it goes.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "util/file.h"
#include "util/text.h"

namespace bb::git::test {

inline std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(("set -e; " + cmd + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  if (st != 0) FAIL("command failed: " << cmd << "\n" << out);
  return trim(out);
}

struct Fixture {
  std::string root, work, origin, cache;
  Fixture() {
    char tmpl[] = "/tmp/bb-git-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    root = tmpl;
    work = root + "/work";
    origin = root + "/origin.git";
    cache = root + "/cache/acme_widget.git";
    git("init -q -b main " + work);
    commit("README", "hello\n", "A");
    sh("git clone -q --bare " + work + " " + origin);
    sh("git -C " + work + " remote add origin " + origin);
  }
  ~Fixture() { std::system(("rm -rf '" + root + "'").c_str()); }

  std::string git(const std::string& args) {
    return sh("git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main " + args);
  }
  std::string wgit(const std::string& args) { return git("-C " + work + " " + args); }
  // Writes a file in the work repo and commits it; returns the new sha.
  std::string commit(const std::string& file, const std::string& content, const std::string& msg) {
    std::string dir = work + "/" + file;
    REQUIRE(make_dirs(dir.substr(0, dir.rfind('/'))));
    REQUIRE(write_file_atomic(dir, content));
    wgit("add -A");
    wgit("commit -q -m " + msg);
    return wgit("rev-parse HEAD");
  }
  void push(const std::string& refspec) { wgit("push -q -f origin " + refspec); }
};


}  // namespace bb::git::test
