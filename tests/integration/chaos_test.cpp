// integration-chaos: the chaos run of chaos_run.h at the size the test
// command affords (520 signed deliveries, 52 SIGKILLs, about 70 s). Every
// delivery answered with a job has that job, finished; every job has exactly
// one check run, completed; nothing is left queued or running; no comment
// was posted twice. One `chaos:` line. bench/chaos runs a longer one.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "chaos_run.h"

using namespace bb::test;

TEST_CASE("chaos: deliveries, SIGKILLs and GitHub's bad moments lose nothing and double nothing") {
  const char* seed_text = std::getenv("BENCHBOX_CHAOS_SEED");
  const uint64_t seed = seed_text && *seed_text ? std::strtoull(seed_text, nullptr, 10) : 20261205;
  const ChaosSize size;
  const ChaosOutcome r = run_chaos(size, seed, true);
  INFO("seed " << seed << " after " << r.seconds << " s: " << r.unsettled << "\n(logs kept in " << r.kept << ")\n"
               << r.logs);
  REQUIRE(r.quiet);
  CHECK(r.answered == size_t(size.commits + size.pulls));  // every push and every blessing has its job
  CHECK(r.jobs == size_t(size.commits + size.pulls));
  CHECK(r.lost == 0);
  CHECK(r.duplicated == 0);
  CHECK(r.stuck == 0);
  std::printf("chaos: %d deliveries, %d kills, %d lost, %d duplicated, %d stuck (seed %llu; %d refused "
              "connections, %d answered 503; %.0f s)\n",
              r.deliveries, r.kills, r.lost, r.duplicated, r.stuck, (unsigned long long)seed,
              r.refused_connections, r.unavailable, r.seconds);
}
