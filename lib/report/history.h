// history.db: every ingested result set, kept with its raw samples, so the
// reporter can compare a run with the one before it and the dashboard can
// draw trends; what each job's report said (the jobs table); and the
// main-branch regressions still open.
//
// A branch's runs are ordered by their commits' first-parent position
// (model::CommitInfo), not by when they ran, so a backfilled commit lands
// where it belongs; the release series (every tag) by commit date. Points
// of different environments are kept apart: a Series (what change points
// and comparisons read) is one environment key; a Trend (what the
// dashboard draws) is every environment of one benchmark on one ref, with
// the breaks between them marked.
#pragma once

#include <cstdint>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/result_set.h"
#include "report/bisection.h"
#include "store/database.h"
#include "util/result.h"

namespace bb::report {

// The ref name of the release series: every tag run of a repository.
inline constexpr const char* kReleaseSeries = "tags";

struct SeriesPoint {
  int64_t job_id = 0;
  std::string commit;
  int64_t created = 0;
  double median = 0;
  double q1 = 0, q3 = 0;       // quartiles of the raw samples (the spread)
  size_t samples = 0;
  std::string status;
  std::vector<std::string> profiles;  // callgrind profiles kept with it (measure: callgrind)
  int64_t position = -1;       // first-parent position; -1 = unknown
  int64_t commit_time = 0;
  std::string label;           // the tag, in the release series
  std::string environment_key;
  std::string machine;         // the machine fingerprint (hardware + tuning)
};

struct Series {
  std::string repository;
  std::string key;             // BenchmarkKey::to_string()
  std::string environment_key;
  std::string unit;
  std::vector<SeriesPoint> points;  // in order
  model::Direction direction = model::Direction::lower_is_better;  // as its first point recorded it
};

// One benchmark key on one ref (or kReleaseSeries), all environments, in
// order: what a trend page draws.
struct Trend {
  std::string repository, ref, key, unit;
  model::Direction direction = model::Direction::lower_is_better;
  std::vector<SeriesPoint> points;
};

// A finished job as the dashboard lists it.
struct JobSummary {
  int64_t job_id = 0;
  std::string repository, kind, ref;
  int64_t pr_number = 0;
  std::string commit, base_commit;
  int64_t created = 0, finished = 0;
  std::string state, overall, summary;
  int64_t commit_time = 0;  // the head commit's date; 0 = unknown
  // A push or tag job of a backfill group (benchboxctl backfill): history
  // measured later, listed apart from the branch's own pushes.
  bool backfill = false;
};

// A benchmark of an open regression, with the range it regressed in.
struct RegressedBenchmark {
  std::string key, unit, metric;
  bool higher_is_better = false;
  double ratio = 1, ci_low = 1, ci_high = 1;  // first bad / last good
  std::string last_good, first_bad;           // commits
  int64_t last_good_job = 0, first_bad_job = 0;
  // Which run of last_good_job holds last_good: "" (the branch's point, a
  // push measured alone) or "base" (the previous head, measured beside
  // first_bad in one job: then the two jobs are the same).
  std::string last_good_role;
  std::string resolved_by;                    // the commit that brought it back; "" = still regressed
  // Its differential flame graph on the first bad run's page (callgrind
  // suites, report profile_diffs' flame_page); "" = none.
  std::string flame_page;
};

// A regression on a branch, from the run that found it until a run shows
// every benchmark of it back (then closed, `fixed_by` that commit).
struct Regression {
  int64_t id = 0;              // 0 = not stored yet
  std::string repository, ref;
  bool open = true;
  int64_t opened = 0, closed = 0;
  std::vector<RegressedBenchmark> benchmarks;
  int64_t latest_job = 0;      // the newest run that looked at it
  std::string latest_commit;
  std::string latest_status;   // what that run said, in words
  std::string fixed_by;        // the commit that closed it
  int64_t fixed_by_job = 0;
  // Before an issue is filed, a compare job of the last good and first bad
  // commits confirms it (reporter.confirm_regressions): "" = not asked
  // (confirmation off), "pending", "confirmed", "refuted" (closed, never
  // filed), "unconfirmed" (the confirmation could not run; not filed).
  std::string confirmation;
  // What the confirmation and the bisection found, as Markdown for the
  // issue (report/bisection.h writes it).
  std::string investigation;
  // Whether GitHub should hear of it.
  bool fileable() const { return confirmation.empty() || confirmation == "confirmed"; }

  // The marker (github_api::IssueWant::marker): one issue per regression.
  std::string marker() const;
  // The earliest last good and latest first bad commit of its benchmarks.
  std::string last_good() const;
  std::string first_bad() const;
};

// An environment of a series, in the order it first appeared: an index
// into this list (what chunks store) stays valid as history grows.
struct SeriesEnvironment {
  std::string key, machine;
  int64_t first_job = 0;
  int64_t first_position = -1;  // where it starts on a branch (-1: unplaced)
  std::string first_commit;
};

// What one chunk of a series holds: its points, and how many of each
// environment, so a job that rewrites one chunk knows the series' totals
// without reading the others.
struct SeriesChunk {
  int64_t points = 0;
  int64_t tail = 0;  // of `points`, those in the chunk's tail file (site_paths.h, kTailPoints)
  std::map<size_t, int64_t> per_environment;  // index into environments
};

// What the dashboard keeps of a series between jobs (site.h writes it).
struct SeriesSummary {
  std::string repository, ref, key;
  std::string id;              // the series id (site_paths.h)
  std::string unit;
  model::Direction direction = model::Direction::lower_is_better;
  int64_t points = 0;
  double latest_value = 0;
  bool latest_measured = false;  // false: the latest point failed or was skipped
  std::string latest_commit, latest_status;
  int64_t latest_job = 0;
  bool has_change = false;     // a change point within the last points
  double change_ratio = 1;
  bool change_worse = false;
  std::vector<SeriesEnvironment> environments;
  std::map<int64_t, SeriesChunk> chunks;  // chunk -> what it holds
};

struct HistorySizes {
  int64_t database_bytes = 0;  // history.db with its WAL
  int64_t runs = 0, runs_with_samples = 0, points = 0, jobs = 0;
};

class HistoryStore {
 public:
  static Result<HistoryStore> open(const store::Location& where);
  // A SQLite file.
  static Result<HistoryStore> open(const std::string& path);

  // ---- runs and points (history.cpp)
  // Records one result set of a job (a PR job records base and head under
  // their roles). Re-ingesting the same job and role replaces it.
  Status ingest(const model::ResultSet& rs, const std::string& kind);
  bool has_job(int64_t job_id);

  // What a plain run of `kind` is compared against: the run before it with
  // the same environment key. On a branch, the nearest run earlier in
  // first-parent order (job order where positions are unknown); for a tag,
  // the newest earlier tag run (by commit date), whichever tag it was.
  // `with_key` (a BenchmarkKey::to_string()): only a run that measured
  // it, so a shard job is compared with the run of its own shard, not with
  // another shard's run of the same suite (report/shard_merge.h).
  Result<std::optional<model::ResultSet>> previous_run(const model::ResultSet& rs, const std::string& kind,
                                                       const std::string& with_key = "");
  // The same, whatever the environment: what a first run in a new
  // environment names as changed.
  Result<std::optional<model::ResultSet>> latest_run(const model::ResultSet& rs, const std::string& kind);
  // Whether the branch has a plain run after this one in first-parent
  // order (job order where positions are unknown): a backfilled commit
  // is history, and must not open or close the branch's regression.
  Result<bool> has_later_run(const model::ResultSet& rs);
  // Every job with a run in history for a repository, oldest first.
  Result<std::vector<int64_t>> run_jobs(const std::string& repository);
  // A stored result set (role "" for a plain run).
  Result<std::optional<model::ResultSet>> run(int64_t job_id, const std::string& role);
  Result<std::vector<std::string>> repositories();

  // ---- trends (history_trends.cpp)
  // Every series of plain runs on `ref` (a branch, or kReleaseSeries), one
  // per benchmark key and environment, in order.
  Result<std::vector<Series>> series(const std::string& repository, const std::string& ref);
  // Branches with plain runs, and whether any tag was measured.
  Result<std::vector<std::string>> branches(const std::string& repository);
  Result<bool> has_releases(const std::string& repository);
  // Benchmark keys with points on `ref`.
  Result<std::vector<std::string>> keys(const std::string& repository, const std::string& ref);
  // The keys a job measured, per ref it measured them on (plain runs only).
  Result<std::vector<std::pair<std::string, std::string>>> keys_of_job(int64_t job_id);
  // One whole trend.
  Result<Trend> trend(const std::string& repository, const std::string& ref, const std::string& key);
  // One chunk of it: on a branch the points with position in
  // [chunk × chunk_size, (chunk + 1) × chunk_size), chunk -1 those without
  // a position; the release series is all chunk 0. `from_position`: only
  // the branch chunk's points from that position on (what was added after
  // a point the caller holds).
  Result<Trend> trend_chunk(const std::string& repository, const std::string& ref, const std::string& key,
                            int64_t chunk, int64_t chunk_size, int64_t from_position = 0);
  // Every point of a branch ref's plain runs at first-parent position
  // `position`, by benchmark key, each key's in trend_chunk's order: what a
  // push added to each series of the ref, read once for all of them (the
  // runs by runs_by_position, their points by points_by_job) instead of a
  // trend_chunk for each.
  Result<std::map<std::string, std::vector<SeriesPoint>>> points_at(const std::string& repository,
                                                                    const std::string& ref, int64_t position);
  // The commit of each plain run whose points fall in a chunk (as
  // trend_chunk counts chunks), as (job, commit) in drawing order: every
  // series of the ref shares them, so the dashboard keeps one list per
  // chunk of a ref, not one per series (site_series.cpp).
  Result<std::vector<std::pair<int64_t, std::string>>> chunk_commits(const std::string& repository,
                                                                     const std::string& ref, int64_t chunk,
                                                                     int64_t chunk_size);
  // How many points a branch chunk (chunk >= 0) holds at positions from
  // `from` on (-1: all of it), along points_by_trend (SQLite 3.40 still
  // reads each row for its role: the partial index's WHERE does not make it
  // covering there, so a narrower range costs fewer rows).
  Result<int64_t> chunk_count(const std::string& repository, const std::string& ref, const std::string& key,
                              int64_t chunk, int64_t chunk_size, int64_t from = -1);
  // The newest `limit` points of one environment of a trend, in order: what
  // change points are detected on.
  Result<Series> recent(const std::string& repository, const std::string& ref, const std::string& key,
                        const std::string& environment_key, size_t limit);
  // Points per chunk of a branch trend (chunk = position / chunk_size; -1
  // for unplaced points); the release series is one chunk 0.
  Result<std::vector<std::pair<int64_t, int64_t>>> chunk_counts(const std::string& repository,
                                                                const std::string& ref, const std::string& key,
                                                                int64_t chunk_size);

  // ---- jobs, regressions, retention (history_jobs.cpp)
  Status record_job(const JobSummary& job);
  Result<std::optional<JobSummary>> job(int64_t job_id);
  // Newest first; pr_number 0 = every job of the repository.
  Result<std::vector<JobSummary>> jobs(const std::string& repository, size_t limit, int64_t pr_number = 0);
  // Pull requests with jobs, newest job first.
  Result<std::vector<int64_t>> pull_requests(const std::string& repository, size_t limit);

  // ---- bisections (history_bisections.cpp)
  // Inserts (id 0, then sets it) or replaces; stamps `updated`.
  Status save_bisection(Bisection& b, int64_t now);
  Result<std::optional<Bisection>> bisection(int64_t id);
  Result<std::optional<Bisection>> bisection_by_group(int64_t group_id);
  // The newest bisection of a regression (its confirmation, its culprit).
  Result<std::optional<Bisection>> bisection_of_regression(int64_t regression_id);
  // Confirming or bisecting, oldest first.
  Result<std::vector<Bisection>> active_bisections();
  Result<std::optional<Regression>> regression(int64_t id);

  Result<std::optional<Regression>> open_regression(const std::string& repository, const std::string& ref);
  Result<std::vector<Regression>> open_regressions(const std::string& repository);
  Status save_regression(Regression& regression);  // sets id when new

  // Drops the raw samples of pull-request runs created before `before`
  // (unix seconds), keeping their summaries (points, medians, quartiles),
  // at most about `max_runs` of them (in batches of 200, a transaction
  // each); returns the jobs whose runs lost them. Fewer than max_runs
  // pruned: none is left.
  Result<std::vector<int64_t>> prune_pull_request_samples(int64_t before, size_t max_runs = SIZE_MAX);
  Result<HistorySizes> sizes();

  // ---- the dashboard's own state (history_site.cpp)
  Status save_series_summary(const SeriesSummary& summary);
  // Of a repository; of one ref ("" = every ref).
  Result<std::vector<SeriesSummary>> series_summaries(const std::string& repository, const std::string& ref = "");
  Status clear_series_summaries(const std::string& repository);

  HistoryStore(HistoryStore&&) = default;
  HistoryStore& operator=(HistoryStore&&) = default;
  store::Database& database() { return db_; }

 private:
  explicit HistoryStore(store::Database db) : db_(std::move(db)) {}
  store::Database db_;
};

// A run's median and quartiles of its samples (the dashboard's spread).
struct Spread {
  double median = 0, q1 = 0, q3 = 0;
};
Spread spread_of(std::vector<double> samples);

}  // namespace bb::report
