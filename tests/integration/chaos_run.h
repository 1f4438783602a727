// A seeded chaos run through the real daemons: webhookd, queued, runnerd,
// reporterd (and tunerd) on a private bus, the fake GitHub, real jobs of a
// real repository. Signed deliveries (pushes, pull requests, blessing
// comments, redeliveries) arrive all along while daemons are killed with
// SIGKILL and restarted, and GitHub answers bursts of 502s and secondary
// rate limits. Then it counts what was lost, doubled or left stuck.
//
// Shared by integration-chaos (the size the test command can afford) and
// bench/chaos (a longer run beside a calm one of the same size).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bb::test {

struct ChaosSize {
  int commits = 30;      // pushes to main, one job each
  int pulls = 6;         // pull requests, one blessed job each
  int deliveries = 520;  // signed deliveries, redeliveries included
  int kills = 52;        // SIGKILLs of a daemon, each followed by a restart
};

struct ChaosOutcome {
  int deliveries = 0;
  int kills = 0;
  int lost = 0;        // a delivery answered with a job whose job is gone
  int duplicated = 0;  // a second job for one piece of work, a second check run or comment
  int stuck = 0;       // a job not done, a check run not completed
  size_t answered = 0;  // deliveries that got their job
  size_t jobs = 0;      // jobs in the queue at the end
  int refused_connections = 0;
  int unavailable = 0;  // answered 503
  bool quiet = false;   // every job finished and has a completed check run
  std::string unsettled;  // why not quiet
  std::string kept;       // where the daemons' logs were kept when not quiet
  std::string logs;       // the daemons' last log lines
  double seconds = 0;         // the whole run, set-up included
  double deliver_seconds = 0;  // from the first delivery to the last (resends included)
  double settle_seconds = 0;   // from the last delivery to quiet
};

// With faults=false the same deliveries arrive at the same pace with no
// kill and no GitHub failure: the calm run bench/chaos compares against.
// Throws std::runtime_error when the box cannot be set up.
ChaosOutcome run_chaos(const ChaosSize& size, uint64_t seed, bool faults);

}  // namespace bb::test
