// A scratch directory for lib/exec's tests, removed with everything in it.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

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

}  // namespace bb::exec::test
