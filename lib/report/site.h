// The static dashboard (docs/dashboard.md): data files that say what
// history.db knows, small page shells, and the front-end (web/, compiled in)
// that draws them. Relative links only: the site works from file:// and
// behind any static web server.
//
// Incremental: a finished job rewrites its run's files, the tail (or the
// chunk) of each series it added a point to in its group's recent file
// (site_recent.h), a series file only when what it says changed, its pull
// request's file, its repository's file and the index; shells and assets
// only when missing or changed.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "canary/health.h"
#include "model/pull_request.h"
#include "report/change_points.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/site_chunk.h"
#include "report/site_recent.h"
#include "util/clock.h"
#include "util/remover.h"
#include "util/result.h"

namespace bb::report {

struct SiteOptions {
  std::string site_dir;
  const Clock* clock = nullptr;  // the index's "generated"; null = 0
  // The branches a repository's page offers (its configured globs:
  // "main", "release/*"); no globs = every branch with runs.
  std::function<std::vector<std::string>(const std::string& repository)> branch_globs;
  // The URL of a regression's issue on GitHub, "" when not (yet) known.
  std::function<std::string(const Regression&)> issue_url;
  // A pull request as the queue recorded it (its title, author, state),
  // nullopt when not known; unset = never asked.
  std::function<std::optional<model::PullRequest>(const std::string& repository, int64_t number)> pull_request;
};

struct SiteStats {
  size_t files_written = 0;  // data files and shells written (assets not counted)
  size_t series_written = 0;
};

class SiteWriter {
 public:
  // `changes` (the reporter keeps one) spares detecting change points again
  // on series that did not change.
  SiteWriter(HistoryStore& history, SiteOptions options, ChangeCache& changes);

  // What a finished job changed (its report, its result when it has one,
  // already ingested into history). The report is lent, not copied: its
  // JSON's members move into the run page's data and back (write_run), so
  // it is as it was when this returns.
  Status job_finished(JobReport& report, const std::optional<model::JobResult>& result);
  // The trends a job's result changed, drawn before the rest of
  // job_finished (which then leaves them as they are, for the same job):
  // reporterd draws them before it finishes the report, whose change
  // points (add_change_points) come from the windows they were drawn with.
  Status write_job_series(const std::string& repository, const model::JobResult& result);
  // A push's report's change points (report::add_change_points), on each
  // of its series' newest points: the window this writer keeps for the
  // trend, current once write_job_series drew it, else read from history
  // (a branch the dashboard does not show, a window not kept). Reading
  // them all from history cost a push on 1,000 benchmarks about 0.2 s.
  Status add_change_points(JobReport& report, const model::JobResult& result);
  // A sharded suite's merged report as it stands (report/shard_merge.h), on
  // its own run page (site_paths.h, group_run_id); the shards' trends are
  // written as each shard job finishes.
  Status shards_changed(JobReport& report, const std::optional<model::JobResult>& result, int64_t group_id);
  // A regression's bisection moved (its culprit named): the trends of the
  // benchmarks it followed show the culprit, so their series files again
  // (no chunk). The index and the repository page follow with the job.
  Status investigation_changed(const std::string& repository, const std::string& ref,
                               const std::vector<std::string>& keys);
  // Every page and data file of every repository again (after an upgrade,
  // or when the site was lost); the run files of earlier jobs are kept.
  Status render_all();
  // The same a little at a time, so a daemon's loop (and its watchdog)
  // keeps turning through a history of millions of points: plan it, then
  // call render_some until it says it is done. A job finished in between
  // is written as usual.
  void begin_render_all();
  // Up to `budget` steps (a series, a run page, ...); true when all is done.
  Result<bool> render_some(size_t budget);
  bool rendering() const { return !plan_.empty(); }
  // True when the site was written by another version of benchbox (or
  // never): render_all() brings it up to date.
  bool stale() const;
  // The box health page (box_page.h) after the canary's history or its
  // judgement changed: the runs of its newest environment, oldest first.
  Status box_canary(const canary::Health& health, const std::vector<canary::Run>& runs,
                    const std::string& environment_key);

  // Rewrites the result downloads of these jobs from history (after their
  // raw samples were dropped: the site keeps no more than history does).
  Status prune_downloads(const std::vector<int64_t>& jobs);

  const SiteStats& stats() const { return stats_; }
  // Returns once the files this writer replaced are gone: they are removed
  // on a thread of their own (util/remover.h), after the write returned.
  // For whoever lists the site's directories; a reader of a page or data
  // file never meets them.
  void settle() { old_files_.wait(); }

 private:
  Status write_assets();
  // `chunks`: which chunks to rewrite; nullopt = every chunk.
  Status write_series(const std::string& repository, const std::string& ref, const std::string& key,
                      const std::optional<std::set<int64_t>>& chunks);
  // write_series for each (ref, key) -> chunks, in one transaction.
  Status write_all_series(const std::string& repository,
                          const std::map<std::pair<std::string, std::string>, std::set<int64_t>>& series);
  // `run_id`: the page's name; "" = the job's id. `report` is lent (as
  // job_finished says).
  Status write_run(JobReport& report, const std::optional<model::JobResult>& result,
                   const std::string& run_id = "");
  // The differential flame graphs of a run's callgrind regressions (the
  // report's profile_diffs): each tree as a data file and both sides'
  // folded stacks; what the run page lists of them.
  Result<nlohmann::json> write_flames(const JobReport& report, const std::string& run_id);
  // A run page for a job in history that has none (from before the
  // dashboard had them): what history kept of it, so no trend links nowhere.
  Status write_missing_run(const std::string& repository, int64_t job_id);
  Status write_pull(const std::string& repository, int64_t number);
  Status write_repository(const std::string& repository);
  Status write_index();
  // The box health page: its data as it stands (data/box.js is where the
  // page keeps what it learned from jobs and the canary), changed by
  // `change`, with the held regressions read again from history.
  Status write_box(const std::function<void(nlohmann::json&)>& change = {});
  // The culprits the bisection of the ref's open regression named, where
  // it concerns `key`, for the trend's marker.
  Result<nlohmann::json> culprits(const std::string& repository, const std::string& ref, const std::string& key);
  // A ref's open regression and its bisection, read once per job (a job
  // writes hundreds of series of one ref), dropped when the next one
  // begins (job_finished, investigation_changed, begin_render_all).
  struct Investigated {
    std::optional<Regression> regression;
    std::optional<Bisection> bisection;
  };
  std::map<std::pair<std::string, std::string>, Investigated> investigated_;  // (repository, ref)
  // The open regressions of a repository as the index and its page list them.
  Result<nlohmann::json> open_regressions(const std::string& repository);
  Status write_shell(const std::string& path, const std::string& page, const std::string& title,
                     const std::string& src, const std::string& name, const std::vector<std::string>& preload = {});
  Status write(const std::string& path, const std::string& content);
  std::vector<std::string> shown_refs(const std::string& repository);

  // How much the lists hold (newest first).
  static constexpr size_t kRunsListed = 200, kIndexRuns = 10, kPullsListed = 100;

  HistoryStore& history_;
  SiteOptions options_;
  ChangeCache& changes_;
  SiteStats stats_;
  bool assets_written_ = false;
  std::set<std::string> made_dirs_;
  // What render_some has left to do.
  struct RenderTask {
    enum class Kind { start, repository, series, run, lists, finish } kind;
    std::string repository, ref, key;
    int64_t job = 0;
  };
  std::deque<RenderTask> plan_;
  // The newest points of one environment of a series, as change points are
  // detected on (HistoryStore::recent), kept between jobs: a push that
  // only appended points (`appended`, from the chunk it appended to) adds
  // them to the window kept; anything else reads it from history again.
  Result<const Series*> change_window(const std::string& repository, const std::string& ref, const std::string& key,
                                      const std::string& environment,
                                      const std::optional<std::vector<SeriesPoint>>& appended);
  // About 27 KB each (100 points); all dropped when full, so a repository
  // with more series-environments than this reads them every job.
  static constexpr size_t kWindowsKept = 2048;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Series> windows_;
  // The job whose trends write_job_series drew, for job_finished.
  std::optional<int64_t> series_of_job_;
  // The tail of each series' newest chunk as this writer last wrote it,
  // by (repository, series id): a push appends to it without reading the
  // file back and decoding it. Dropped with the windows on a failed job.
  struct KeptTail {
    int64_t chunk = 0;
    site::ChunkColumns columns;
  };
  static constexpr size_t kTailsKept = 2048;  // about 8 KB each (64 points)
  std::map<std::pair<std::string, std::string>, KeptTail> tails_;
  // What a push added to each series of a branch, by ref: the job's
  // position there (write_job_series sets it while it writes the job's
  // series, and drops it after), and the points at it, read for all of the ref's
  // series (HistoryStore::points_at) the first time one of them appends.
  // 1,000 series were 1,000 trend_chunk reads a push.
  struct Pushed {
    int64_t position = -1;
    std::optional<std::map<std::string, std::vector<SeriesPoint>>> points;  // by key
  };
  std::map<std::string, Pushed> pushed_;
  // The points of a series' branch chunk at positions from `from` on, as
  // history has them; when `from` is the push's position, the pushed ones
  // at it. A point after it as well (a job at a later commit, written
  // before this one) is then not among them: appended_chunk's count of the
  // chunk sees it, and the chunk is read whole.
  Result<std::vector<SeriesPoint>> added_points(const std::string& repository, const std::string& ref,
                                                const std::string& key, int64_t chunk, int64_t from);
  // The series summaries of one repository, read once and kept current.
  Status load_summaries(const std::string& repository);
  std::string summaries_repository_;
  std::map<std::pair<std::string, std::string>, SeriesSummary> summaries_;  // (ref, key)
  Status write_trend_shell(const std::string& repository, const std::string& ref, const std::string& key,
                           const std::string& sid, const SeriesSummary& summary);
  // What a branch's trends change with every push, by group of series
  // (site_recent.h): written once per job for all its series, where each
  // series file was written before.
  RecentFiles recent_;
  // Writes the recent files of `repository` that changed, without entries
  // of series it no longer has.
  Status flush_recent(const std::string& repository);
  // The tail of a series' branch chunk as the site holds it, for a series
  // whose tail this writer did not keep: in its recent entry, else inside
  // its series file (a site from before); nullopt when neither has it.
  std::optional<site::ChunkColumns> site_tail(const std::string& repository, const std::string& ref,
                                              const std::string& sid, int64_t chunk);
  // Whether the site holds this file (a path under the site's directory).
  bool site_has(const std::string& path) const;
  // A series file, unless `always` is false and it says what this writer
  // last wrote there: a branch's series file changes once per kTailPoints
  // pushes, when its tail folds into its chunk.
  Status write_series_file(const std::string& repository, const std::string& sid, std::string text, bool always);
  static constexpr size_t kSeriesTextsKept = 4096;  // about 2 KB each
  std::map<std::pair<std::string, std::string>, std::string> series_texts_;  // (repository, sid)
  Status write_packs(const std::string& repository, const std::string& sid, const SeriesSummary& summary,
                     int64_t packs_before, int64_t packs, bool all,
                     const std::map<int64_t, std::string>& written);
  std::vector<std::pair<std::pair<std::string, std::string>, const SeriesSummary*>> siblings(
      const std::string& ref, const std::string& benchmark) const;
  site::ChunkEncoder chunk_encoder_;  // its trees reused, chunk after chunk
  // A ref chunk's commits file, once per job (or render_all): the chunks
  // already written are in commits_written_, (repository, ref, chunk).
  Status write_commits(const std::string& repository, const std::string& ref, int64_t chunk);
  std::set<std::tuple<std::string, std::string, int64_t>> commits_written_;
  // The files each write replaced, removed off the writer's path: a push
  // replaces a file for each series it touched (1,000 on the issue-size
  // history), and removing them once they were written back cost it
  // about a sixth of its time here (docs/dashboard.md).
  BackgroundRemover old_files_;
};

// The series keys a finished job touched: (ref or kReleaseSeries, key, the
// chunk its point went into).
struct TouchedSeries {
  std::string ref, key;
  int64_t chunk = 0;
};
std::vector<TouchedSeries> touched_series(const model::JobResult& result);

}  // namespace bb::report
