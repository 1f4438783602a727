// Canonical measurements. Every harness format is parsed into these; the
// comparison engine, the history store and the reports only ever see these.
// The JSON form is "benchbox canonical JSON" (docs/formats.md, schema in
// docs/resultset.schema.json).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/summary.h"
#include "util/result.h"
#include "util/version.h"

namespace bb::model {

inline constexpr const char* kResultSetSchema = "benchbox.resultset/1";
inline constexpr const char* kJobResultSchema = "benchbox.jobresult/1";

// A benchmark's parameters, by name, in name order (model/flat_map.h says
// why not a std::map).
using Params = FlatMap<std::string>;
// A JSON object of the names and values, in name order.
void to_json(nlohmann::json& j, const Params& p);

// Identity of a benchmark within a repository: suite/name/parameters/metric.
// Only equal keys (and equal environment keys) are ever compared.
struct BenchmarkKey {
  std::string suite;
  std::string name;
  Params params;
  std::string metric = "wall_time";  // wall_time, cpu_time, instructions, memory, or the harness's

  // "suite/name[a=1,b=x]:metric" (parameters sorted), stable for storage.
  std::string to_string() const;
  auto operator<=>(const BenchmarkKey&) const = default;
};

// One byte each (as Direction): a result holds 100,000s of benchmarks.
enum class BenchmarkStatus : uint8_t { ok, failed, skipped };
const char* to_string(BenchmarkStatus s);

// Which way is better. Times, memory and counts: lower; rates (MB/s,
// ops/s, items_per_second, throughput): higher. The parser decides, from the
// harness's own marking where it has one; the engine only reads it.
enum class Direction : uint8_t { lower_is_better, higher_is_better };
const char* to_string(Direction d);
// The direction a unit implies when the harness says nothing: a rate (a
// unit ending in "/s", "per_second", "Hz") is higher-is-better.
Direction direction_for_unit(std::string_view unit);

struct Benchmark {
  BenchmarkKey key;
  // Canonical units: time metrics in seconds ("s"); counts "count"; memory
  // "bytes". A harness's own metric keeps its own unit.
  std::string unit = "s";
  // The three small members side by side, a byte each: one padding instead
  // of three (a result holds 100,000s of benchmarks, and a parse writes
  // each whole).
  Direction direction = Direction::lower_is_better;
  BenchmarkStatus status = BenchmarkStatus::ok;
  bool summary_only = false;     // the harness gave only summaries (see `summary`)
  std::vector<double> samples;   // raw samples, one per measurement, in `unit`
  std::vector<int64_t> rounds;   // round of each sample: base/head samples with the
                                 // same round ran adjacent (pairing); empty = unknown
  std::vector<double> iterations;  // iterations behind each sample, where the format says
  Summary summary;               // mean/median/stddev/min/max as the harness reported
  std::string reason;            // why failed/skipped (status)
  // Format-specific (counters, exit codes): null until something is put in
  // (operator[] makes it an object), so a result of 100,000s of benchmarks
  // does not hold as many empty maps.
  nlohmann::json extra;
};

// How a suite's skip reason starts when a pull request changed none of its
// `paths:` (the reporter then shows its benchmarks' last base-branch values).
inline constexpr const char* kNotAffected = "not affected";
// How it starts when the job handed the suite to a group of shard jobs
// (config/shard.h): measured there, not here.
inline constexpr const char* kSharded = "sharded";

// How a suite went on one commit, and what it declares: what tells a
// benchmark that was removed from one that went missing.
struct SuiteOutcome {
  BenchmarkStatus status = BenchmarkStatus::ok;  // failed: its build, a round or its output failed
  std::string reason;                            // why it failed
  // The benchmarks the suite declares on this commit, when known: from the
  // harness's own listing (`list:`), or the suite's `benchmarks:`.
  std::optional<std::vector<std::string>> declared;
  std::string declared_by;   // "list command" or ".benchbox.yml"
  std::string list_error;    // the listing was asked for and could not be had
  // The metrics its reports judge and show (`metrics:`); empty = all.
  // Every metric is recorded either way, as raw samples.
  std::vector<std::string> metrics;

  // True when `declared` names the benchmark: its name, its family's parent
  // (go -list prints "BenchmarkFib", results say "BenchmarkFib/n=5"), or a
  // parametrised id of it ("test_sort[10]" for test_sort with params).
  bool declares(const BenchmarkKey& key) const;
};

// The measured commit as history and the dashboard place it: trends run in
// a branch's first-parent order (not in the order jobs ran, so a backfilled
// commit lands where it belongs), dated by the commit.
struct CommitInfo {
  int64_t time = 0;                    // committer date, unix seconds; 0 = unknown
  std::string author;                  // "Name <email>"
  std::string subject;                 // the message's first line
  // Commits before it on its first-parent chain (0 = a root commit); -1 =
  // unknown (result sets from before it was kept).
  int64_t first_parent_position = -1;
  bool known() const { return first_parent_position >= 0; }
};

struct ResultSet {
  std::string repository;
  std::string commit;
  CommitInfo commit_info;
  std::string ref;
  int64_t job_id = 0;
  std::string role;              // "" (a plain run), "base" or "head" (a PR comparison)
  std::string benchbox_version = bb::version();
  std::string config_sha256;     // of the .benchbox.yml used
  std::string config_text;
  std::string environment_key;   // what must match for results to be comparable
  nlohmann::json environment;    // the inputs behind it (model::Environment::to_json), or null
  std::string machine_fingerprint;  // tunerd's fingerprint (hardware + tuning)
  bool host_drifted = false;     // tuning drifted while this ran
  // tunerd's State when the job began: tuned, partial, untuned or drifted;
  // "" when tunerd did not answer (or the result predates the field).
  std::string tuning;
  std::string build_cache;       // "hit" (restored, not built), "miss" (built), "" (no build or no cache)
  std::string isolation;         // how processes were pinned ("scope+AllowedCPUs", "affinity")
  // Whose rights the build and benchmark processes had: "job-identity: uid
  // N, gid N (the job's own), ..." or "runner's own user (...)" where
  // runnerd cannot change identity. "" in results from before it was kept.
  std::string containment;
  std::vector<int> cpus;         // benchmark cores used
  int64_t created = 0;
  // Each suite's `thresholds:` from .benchbox.yml (suite -> metric ->
  // relative threshold): what every comparison of this run judges with.
  std::map<std::string, std::map<std::string, double>> thresholds;
  std::map<std::string, SuiteOutcome> suites;  // per suite measured; empty in files from before 0.2
  std::vector<Benchmark> benchmarks;
};

// What runnerd writes for a job: a plain run has only `head`; a PR has base
// (the merge-base) and head, measured interleaved on the same cores.
// A commit of a compare job's range, with what naming it needs.
struct RangeCommit {
  std::string commit;
  CommitInfo info;
};

struct JobResult {
  int64_t job_id = 0;
  std::string kind;
  ResultSet head;
  std::optional<ResultSet> base;
  int64_t seed = 0;              // seed of the interleaving order
  // compare jobs: the first-parent commits after base up to head (head
  // last), oldest first: what a bisection of this pair chooses among.
  std::vector<RangeCommit> range;
};

// True when the benchmark's suite shows its metric (SuiteOutcome::metrics);
// a suite the set knows nothing about shows everything.
bool shown(const ResultSet& rs, const BenchmarkKey& key);

// How the runner describes a job it could not contain (runnerd's
// containment.cpp writes it; reports flag it).
inline constexpr const char* kUncontainedPrefix = "runner's own user";

// True when the build and benchmark ran with the runner's own rights.
bool uncontained(const ResultSet& rs);

// The result set's containment as one line for a report or a page:
// "Containment: ...", a warning when the code ran with the runner's own
// rights, or "not recorded" for results from before it was kept or from
// outside benchbox's runner.
std::string containment_line(const ResultSet& rs);

nlohmann::json to_json(const BenchmarkKey& k);
nlohmann::json to_json(const CommitInfo& c);
nlohmann::json to_json(const SuiteOutcome& s);
nlohmann::json to_json(const Benchmark& b);
nlohmann::json to_json(const ResultSet& rs);
nlohmann::json to_json(const JobResult& jr);

// Strict readers: every error names the JSON pointer of the bad value.
Result<BenchmarkKey> benchmark_key_from_json(const nlohmann::json& j, const std::string& where);
Result<Benchmark> benchmark_from_json(const nlohmann::json& j, const std::string& where);
Result<SuiteOutcome> suite_outcome_from_json(const nlohmann::json& j, const std::string& where);
Result<ResultSet> result_set_from_json(const nlohmann::json& j);
Result<JobResult> job_result_from_json(const nlohmann::json& j);

}  // namespace bb::model
