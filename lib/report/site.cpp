#include "report/site.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "report/box_page.h"
#include "report/site_assets.h"
#include "report/site_paths.h"
#include "util/file.h"
#include "util/text.h"
#include "util/version.h"

namespace bb::report {

namespace {

// Written last by render_all: a site stamped with another version is stale.
constexpr const char* kStamp = "data/version.txt";

// What a writer killed mid-job left beside the files it replaced
// (util/file.h, is_write_leftover): nothing links to them, and they would
// stay for good. Run pages' profiles keep the names a harness gave them,
// so their directories are not looked into.
void remove_write_leftovers(const std::string& site_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(site_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name.ends_with(".profiles")) it.disable_recursion_pending();
    } else if (is_write_leftover(name)) {
      ::unlink(it->path().c_str());
    }
  }
}

}  // namespace

SiteWriter::SiteWriter(HistoryStore& history, SiteOptions options, ChangeCache& changes)
    : history_(history),
      options_(std::move(options)),
      changes_(changes),
      recent_(options_.site_dir, [this](const std::string& path, const std::string& text) { return write(path, text); }) {}

Status SiteWriter::write(const std::string& path, const std::string& content) {
  const std::string full = path_join(options_.site_dir, path);
  // A mkdir per path component per file adds up over thousands of files.
  const std::string dir = full.substr(0, full.rfind('/'));
  if (!made_dirs_.count(dir)) {
    if (auto st = make_dirs(dir, 0755); !st) return st;
    made_dirs_.insert(dir);
  }
  ++stats_.files_written;
  auto st = write_file_replace(full, content, 0644, &old_files_);
  if (st || st.error().code != Errc::not_found) return st;
  // Someone removed a directory of the site: make it again.
  made_dirs_.clear();
  if (auto made = make_dirs(dir, 0755); !made) return made;
  return write_file_replace(full, content, 0644, &old_files_);
}

bool SiteWriter::site_has(const std::string& path) const {
  return ::access(path_join(options_.site_dir, path).c_str(), F_OK) == 0;
}

Status SiteWriter::write_shell(const std::string& path, const std::string& page, const std::string& title,
                               const std::string& src, const std::string& name,
                               const std::vector<std::string>& preload) {
  // A shell changes only with what it preloads (a trend's chunk list, a
  // new chunk per 1,024 points); the data it draws changes with every job.
  std::string text = site::shell(path, page, title, src, name, preload);
  if (auto old = read_file(path_join(options_.site_dir, path), 1 << 20); old && *old == text) return {};
  return write(path, text);
}

Status SiteWriter::write_assets() {
  // Once per writer: the assets are this binary's, and only an operator
  // (or a lost disk) changes the copies.
  if (assets_written_) return {};
  for (const auto& a : site::assets()) {
    const std::string full = path_join(options_.site_dir, a.path);
    auto old = read_file(full, 16 << 20);
    if (old && *old == a.bytes) continue;
    if (auto st = make_dirs(full.substr(0, full.rfind('/')), 0755); !st) return st;
    if (auto st = write_file_replace(full, std::string(a.bytes)); !st) return st;
  }
  assets_written_ = true;
  return {};
}

bool SiteWriter::stale() const {
  auto stamp = read_file(path_join(options_.site_dir, kStamp), 4096);
  return !stamp || trim(*stamp) != bb::version();
}

std::vector<std::string> SiteWriter::shown_refs(const std::string& repository) {
  std::vector<std::string> refs;
  auto branches = history_.branches(repository);
  const std::vector<std::string> globs = options_.branch_globs ? options_.branch_globs(repository)
                                                               : std::vector<std::string>{};
  if (branches)
    for (const auto& ref : *branches) {
      const std::string name = ref.substr(11);  // refs/heads/
      const bool wanted = globs.empty() || std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
                            return glob_match(g, name);
                          });
      if (wanted) refs.push_back(ref);
    }
  auto releases = history_.has_releases(repository);
  if (releases && *releases) refs.push_back(kReleaseSeries);
  return refs;
}

Status SiteWriter::job_finished(JobReport& report, const std::optional<model::JobResult>& result) {
  const std::string& repository = report.job.spec.repository;
  // Its trends first, unless write_job_series drew them just now.
  const bool drawn = result && series_of_job_ == result->job_id;
  if (result && !drawn) {
    if (auto st = write_job_series(repository, *result); !st) return st;
  } else if (!result) {
    investigated_.clear();  // the job may have opened, moved or closed a regression
  }
  series_of_job_.reset();
  if (auto st = write_assets(); !st) return st;
  if (auto st = write_run(report, result); !st) return st;
  if (report.job.spec.pr_number > 0)
    if (auto st = write_pull(repository, report.job.spec.pr_number); !st) return st;
  if (auto st = write_repository(repository); !st) return st;
  if (auto st = write_index(); !st) return st;
  // What the box resolves, and the tuning it ran under, on the box page.
  const std::string tuning = result ? tuning_of(result->head) : "";
  const std::string page = site::run_page(repository, report.job.id);
  const int64_t now = options_.clock ? options_.clock->now_unix() : int64_t(0);
  return write_box([&](nlohmann::json& data) { add_box_job(data, report, tuning, page, now); });
}

Status SiteWriter::write_job_series(const std::string& repository, const model::JobResult& result) {
  series_of_job_.reset();
  investigated_.clear();  // the job may have opened, moved or closed a regression
  if (auto st = write_assets(); !st) return st;
  const std::vector<std::string> refs = shown_refs(repository);
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> series;
  for (const auto& t : touched_series(result))
    if (std::find(refs.begin(), refs.end(), t.ref) != refs.end()) series[{t.ref, t.key}].insert(t.chunk);
  // A push's points at its commit, read for all its series at once, and
  // for this write only.
  struct Forget {
    std::map<std::string, Pushed>& pushed;
    ~Forget() { pushed.clear(); }
  } forget{pushed_};
  const model::ResultSet& head = result.head;
  if (!series.empty() && result.kind != "tag" && head.commit_info.known())
    pushed_[head.ref].position = head.commit_info.first_parent_position;
  if (auto st = write_all_series(repository, series); !st) return st;
  series_of_job_ = result.job_id;
  return {};
}

Status SiteWriter::add_change_points(JobReport& report, const model::JobResult& result) {
  const model::ResultSet& head = result.head;
  // Windows read here stay put while the list points into them.
  std::vector<Series> read;
  read.reserve(head.benchmarks.size());
  std::vector<const Series*> windows;
  for (const auto& b : head.benchmarks) {
    const std::string key = b.key.to_string();
    // Kept and ending at this job's point: drawn by this job, after it went
    // into history. Any other (a branch not drawn, a backfilled commit's
    // point before the window's end) is read as history has it.
    auto kept = windows_.find(std::make_tuple(head.repository, head.ref, key, head.environment_key));
    if (kept != windows_.end() && !kept->second.points.empty() && kept->second.points.back().job_id == result.job_id) {
      windows.push_back(&kept->second);
      continue;
    }
    auto s = history_.recent(head.repository, head.ref, key, head.environment_key, ChangeOptions{}.max_points);
    if (!s) return s.error();
    read.push_back(std::move(*s));
    windows.push_back(&read.back());
  }
  report::add_change_points(report, windows, changes_);
  return {};
}

Status SiteWriter::write_all_series(const std::string& repository,
                                    const std::map<std::pair<std::string, std::string>, std::set<int64_t>>& series) {
  // Their summaries in one transaction: one commit (and its sync) per job,
  // not one per series. On a failure the summaries kept in memory are
  // dropped, to be read again as history has them; a chunk written without
  // its summary is then not trusted to append to (its count differs).
  auto tx = store::Transaction::begin(history_.database());
  if (!tx) return tx.error();
  commits_written_.clear();  // history may have more runs since
  Status st;
  for (const auto& [ref_key, chunks] : series)
    if (st = write_series(repository, ref_key.first, ref_key.second, chunks); !st) break;
  if (st) st = flush_recent(repository);
  if (st) st = tx->commit();
  if (!st) {
    summaries_repository_.clear();
    windows_.clear();
    tails_.clear();
    recent_.forget();
    series_texts_.clear();
  }
  return st;
}

Status SiteWriter::shards_changed(JobReport& report, const std::optional<model::JobResult>& result,
                                  int64_t group_id) {
  if (auto st = write_assets(); !st) return st;
  return write_run(report, result, site::group_run_id(group_id));
}

void SiteWriter::begin_render_all() {
  investigated_.clear();
  assets_written_ = false;
  made_dirs_.clear();
  commits_written_.clear();
  tails_.clear();
  series_texts_.clear();
  recent_.forget();  // read again, and checked against the series rendered
  plan_.clear();
  plan_.push_back({RenderTask::Kind::start, "", "", "", 0});
}

Result<bool> SiteWriter::render_some(size_t budget) {
  for (; budget > 0 && !plan_.empty(); --budget) {
    const RenderTask task = plan_.front();
    plan_.pop_front();
    switch (task.kind) {
      case RenderTask::Kind::start: {
        remove_write_leftovers(options_.site_dir);
        if (auto st = write_assets(); !st) return st.error();
        auto repos = history_.repositories();
        if (!repos) return repos.error();
        std::vector<RenderTask> tasks;
        for (const auto& r : *repos) tasks.push_back({RenderTask::Kind::repository, r, "", "", 0});
        tasks.push_back({RenderTask::Kind::finish, "", "", "", 0});
        plan_.insert(plan_.begin(), tasks.begin(), tasks.end());
        break;
      }
      case RenderTask::Kind::repository: {
        // Every series from scratch: its summary goes, and is written anew.
        if (auto st = history_.clear_series_summaries(task.repository); !st) return st.error();
        summaries_.clear();
        summaries_repository_ = task.repository;
        std::vector<RenderTask> tasks;
        for (const auto& ref : shown_refs(task.repository)) {
          auto keys = history_.keys(task.repository, ref);
          if (!keys) return keys.error();
          for (const auto& key : *keys) tasks.push_back({RenderTask::Kind::series, task.repository, ref, key, 0});
        }
        auto jobs = history_.run_jobs(task.repository);
        if (!jobs) return jobs.error();
        for (int64_t id : *jobs) tasks.push_back({RenderTask::Kind::run, task.repository, "", "", id});
        tasks.push_back({RenderTask::Kind::lists, task.repository, "", "", 0});
        plan_.insert(plan_.begin(), tasks.begin(), tasks.end());
        break;
      }
      case RenderTask::Kind::series:
        if (auto st = write_series(task.repository, task.ref, task.key, std::nullopt); !st) return st.error();
        // Its page reads the recent file its series file names: written
        // now, not when the repository's last series is (a site of a
        // thousand benchmarks renders over minutes, a little a turn).
        if (auto st = flush_recent(task.repository); !st) return st.error();
        break;
      case RenderTask::Kind::run:
        if (auto st = write_missing_run(task.repository, task.job); !st) return st.error();
        break;
      case RenderTask::Kind::lists: {
        auto pulls = history_.pull_requests(task.repository, kPullsListed);
        if (!pulls) return pulls.error();
        for (int64_t pr : *pulls)
          if (auto st = write_pull(task.repository, pr); !st) return st.error();
        if (auto st = write_repository(task.repository); !st) return st.error();
        break;
      }
      case RenderTask::Kind::finish:
        if (auto st = write_index(); !st) return st.error();
        if (auto st = write_box(); !st) return st.error();
        if (auto st = write(kStamp, std::string(bb::version()) + "\n"); !st) return st.error();
        break;
    }
  }
  return plan_.empty();
}

Status SiteWriter::render_all() {
  begin_render_all();
  for (;;) {
    auto done = render_some(SIZE_MAX);
    if (!done) return done.error();
    if (*done) return {};
  }
}

}  // namespace bb::report
