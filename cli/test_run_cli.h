// The CLI tests' one way to run the real benchboxctl (BENCHBOXCTL): a
// shell command line, its output (stdout and stderr) and its exit status.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

namespace bb::test {

struct CliRun {
  int status;
  std::string out;
};

// Runs `prefix` + benchboxctl + " " + `args`, e.g. prefix "cd DIR && ".
inline CliRun run_benchboxctl(const std::string& args, const std::string& prefix = "") {
  const char* bin = std::getenv("BENCHBOXCTL");
  REQUIRE(bin);
  FILE* p = popen((prefix + bin + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace bb::test
