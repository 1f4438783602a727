// The canary's workloads: the same work on every box and every build,
// and a walk that really goes through the whole buffer.
#include <catch2/catch.hpp>

#include "canary/workload.h"

using namespace bb::canary;

TEST_CASE("the core-bound workload computes the same checksum everywhere") {
  // Computed once (-O0 and -O2 agree); a change here is a change of the
  // workload, which must be a new canary version (kVersion), not an edit.
  CHECK(cpu(1000) == 0x3ff0018542dcc16full);
  CHECK(cpu(Sizes{}.cpu_steps) == 0x3f68ece86ce2804bull);
  CHECK(kVersion == 1);
  CHECK(cpu(1001) != cpu(1000));
}

TEST_CASE("the memory walk is one cycle through every line of the buffer") {
  for (uint64_t bytes : {uint64_t(128), uint64_t(64 << 10), uint64_t(1 << 20) + 4096}) {
    PointerChase chase(bytes);
    const uint64_t n = chase.lines();
    CHECK(n == (bytes / 64 < 2 ? 2 : bytes / 64));
    // Every line once: the indices visited in n hops sum to 0 + 1 + ... + n-1,
    // and the walk is back where it began.
    CHECK(chase.run(n) == n * (n - 1) / 2);
    CHECK(chase.run(n) == n * (n - 1) / 2);
    // Fewer hops visit fewer lines: it is not a short cycle repeated.
    PointerChase other(bytes);
    if (n >= 4) CHECK(other.run(n / 2) < n * (n - 1) / 2);
  }
}
