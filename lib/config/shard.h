// Sharding a suite across jobs (`shards:` and `shard_by:` in .benchbox.yml,
// docs/benchbox-yml.md): which of the suite's declared benchmarks a shard
// measures, and how its harness is told to run only those. Pure: runnerd
// plans the shards and runs one; reporterd merges what they measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/suite.h"
#include "model/job.h"

namespace bb::config {

// More would be a fleet no one runs, and a manifest no check run shows.
inline constexpr uint64_t kMaxShards = model::kMaxShards;
// runnerd gives a shard's commands BENCHBOX_SHARD, BENCHBOX_SHARDS,
// BENCHBOX_SHARD_FILTER (names_regex of its names) and
// BENCHBOX_SHARD_BENCHMARKS (its names, one a line). A run command that
// names any of them places the filter itself and gets nothing appended.
inline constexpr const char* kShardVariablePrefix = "BENCHBOX_SHARD";

// The shard (0-based) a benchmark falls in when no shard_by entry claims
// it: FNV-1a of its name modulo the count. Stable across boxes, builds and
// releases, so a benchmark stays in its shard from run to run.
uint32_t hashed_shard(const std::string& name, uint64_t shards);

// Every name's shard: the first shard_by entry with a pattern (a shell
// pattern, as in `paths:`) that matches it, else hashed_shard. Result i
// lists shard i's names in the order given, each once; a shard may be
// empty (few benchmarks, or shard_by claiming them all elsewhere).
std::vector<std::vector<std::string>> assign_shards(const Suite& suite, const std::vector<std::string>& names);

// `^(a|b)$` with each name's regular-expression metacharacters escaped:
// the same text means the same to POSIX ERE, RE2 and Python's re.
std::string names_regex(const std::vector<std::string>& names);

// The arguments (shell words) that make the suite's harness run only
// `names`, in the harness's own filter syntax: Google Benchmark's
// --benchmark_filter, pytest's -k, asv's -b, go test's -bench. "" for a
// format with no filter benchbox knows, or names its syntax cannot say
// (pytest -k takes identifiers only): the shard then runs more than its
// benchmarks and its result is cut to them.
std::string harness_filter(const std::string& format, const std::vector<std::string>& names);

// A shard's run command: the suite's, with harness_filter appended, unless
// the command uses the shard's variables itself (a pipeline, a wrapper
// script, a harness benchbox has no filter for):
//   ./bench --benchmark_filter="$BENCHBOX_SHARD_FILTER" | tee out.json
std::string shard_run_command(const Suite& suite, const std::vector<std::string>& names);

}  // namespace bb::config
