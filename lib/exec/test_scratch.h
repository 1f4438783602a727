// lib/exec's test helpers: scratch directories removed with everything in
// them, a fake /proc and /sys tree, and a check that no child is left.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cerrno>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "util/file.h"

namespace bb::exec::test {

struct Scratch {
  std::string dir;
  Scratch() {
    char tmpl[] = "/tmp/bb-exec-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    dir = tmpl;
  }
  ~Scratch() { std::system(("rm -rf '" + dir + "'").c_str()); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// A fake root (for /proc, /sys/fs/cgroup) that a case fills file by file.
struct FakeTree {
  std::string root;
  FakeTree() {
    char t[] = "/tmp/bb-tree-XXXXXX";
    REQUIRE(::mkdtemp(t));
    root = t;
  }
  ~FakeTree() { std::system(("rm -rf '" + root + "'").c_str()); }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;
  void put(const std::string& path, const std::string& text) {
    const std::string full = root + path;
    REQUIRE(make_dirs(full.substr(0, full.rfind('/'))).ok());
    REQUIRE(write_file_atomic(full, text).ok());
  }
};

// True when this process has no child left, reaped or not.
inline bool no_children_left() { return ::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD; }

}  // namespace bb::exec::test
