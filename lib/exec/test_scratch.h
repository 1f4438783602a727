// lib/exec's test helpers: scratch directories (util/test_tempdir.h's),
// a fake /proc and /sys tree, and a check that no child is left.
#pragma once

#include <sys/wait.h>

#include <cerrno>

#include <catch2/catch.hpp>
#include <string>

#include "util/file.h"
#include "util/test_tempdir.h"

namespace bb::exec::test {

struct Scratch {
  bb::test::TempDir tmp;
  std::string dir = tmp.path;
};

// A fake root (for /proc, /sys/fs/cgroup) that a case fills file by file.
struct FakeTree {
  bb::test::TempDir tmp;
  std::string root = tmp.path;
  void put(const std::string& path, const std::string& text) {
    const std::string full = root + path;
    REQUIRE(make_dirs(full.substr(0, full.rfind('/'))).ok());
    REQUIRE(write_file_atomic(full, text).ok());
  }
};

// True when this process has no child left, reaped or not.
inline bool no_children_left() { return ::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD; }

}  // namespace bb::exec::test
