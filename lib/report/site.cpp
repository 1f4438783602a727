#include "report/site.h"

#include <algorithm>
#include <map>

#include "report/site_assets.h"
#include "report/site_paths.h"
#include "util/file.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/version.h"

namespace bb::report {

namespace {

constexpr size_t kRunsListed = 200, kIndexRuns = 10, kPullsListed = 100;
// Written last by render_all: a site stamped with another version is stale.
constexpr const char* kStamp = "data/version.txt";

nlohmann::json run_summary(const JobSummary& j) {
  return {{"job_id", j.job_id},   {"kind", j.kind},         {"ref", j.ref},
          {"commit", j.commit},   {"pr_number", j.pr_number}, {"created", j.created},
          {"overall", j.overall}, {"summary", j.summary},   {"page", site::run_page(j.repository, j.job_id)}};
}

// What a public page shows of a job: not where the box keeps its files,
// who asked for it, or the delivery that brought it.
nlohmann::json public_job(const model::Job& job) {
  return {{"id", job.id},
          {"kind", model::to_string(job.spec.kind)},
          {"repository", job.spec.repository},
          {"ref", job.spec.ref},
          {"pr_number", job.spec.pr_number},
          {"head_sha", job.spec.head_sha},
          {"base_sha", job.spec.base_sha},
          {"suite", job.spec.suite},
          {"state", model::to_string(job.state)},
          {"error", job.error},
          {"created", job.created},
          {"started", job.started},
          {"finished", job.finished}};
}

}  // namespace

SiteWriter::SiteWriter(HistoryStore& history, SiteOptions options, ChangeCache& changes)
    : history_(history), options_(std::move(options)), changes_(changes) {}

Status SiteWriter::write(const std::string& path, const std::string& content) {
  const std::string full = path_join(options_.site_dir, path);
  // A mkdir per path component per file adds up over thousands of files.
  const std::string dir = full.substr(0, full.rfind('/'));
  if (!made_dirs_.count(dir)) {
    if (auto st = make_dirs(dir, 0755); !st) return st;
    made_dirs_.insert(dir);
  }
  ++stats_.files_written;
  auto st = write_file_replace(full, content);
  if (st || st.error().code != Errc::not_found) return st;
  // Someone removed a directory of the site: make it again.
  made_dirs_.clear();
  if (auto made = make_dirs(dir, 0755); !made) return made;
  return write_file_replace(full, content);
}

Status SiteWriter::write_shell(const std::string& path, const std::string& page, const std::string& title,
                               const std::string& src, const std::string& name) {
  // Shells never change once written (only the data they draw does).
  if (path_exists(path_join(options_.site_dir, path))) return {};
  return write(path, site::shell(path, page, title, src, name));
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

Status SiteWriter::job_finished(const JobReport& report, const std::optional<model::JobResult>& result) {
  if (auto st = write_assets(); !st) return st;
  const std::string& repository = report.job.spec.repository;
  if (result) {
    const std::vector<std::string> refs = shown_refs(repository);
    std::map<std::pair<std::string, std::string>, std::set<int64_t>> series;
    for (const auto& t : touched_series(*result))
      if (std::find(refs.begin(), refs.end(), t.ref) != refs.end()) series[{t.ref, t.key}].insert(t.chunk);
    for (const auto& [ref_key, chunks] : series)
      if (auto st = write_series(repository, ref_key.first, ref_key.second, chunks); !st) return st;
  }
  if (auto st = write_run(report, result); !st) return st;
  if (report.job.spec.pr_number > 0)
    if (auto st = write_pull(repository, report.job.spec.pr_number); !st) return st;
  if (auto st = write_repository(repository); !st) return st;
  return write_index();
}

Status SiteWriter::render_all() {
  assets_written_ = false;
  made_dirs_.clear();
  if (auto st = write_assets(); !st) return st;
  auto repos = history_.repositories();
  if (!repos) return repos.error();
  for (const auto& repository : *repos) {
    if (auto st = history_.clear_series_summaries(repository); !st) return st;
    for (const auto& ref : shown_refs(repository)) {
      auto keys = history_.keys(repository, ref);
      if (!keys) return keys.error();
      for (const auto& key : *keys)
        if (auto st = write_series(repository, ref, key, std::nullopt); !st) return st;
    }
    if (auto st = write_missing_runs(repository); !st) return st;
    auto pulls = history_.pull_requests(repository, kPullsListed);
    if (!pulls) return pulls.error();
    for (int64_t pr : *pulls)
      if (auto st = write_pull(repository, pr); !st) return st;
    if (auto st = write_repository(repository); !st) return st;
  }
  if (auto st = write_index(); !st) return st;
  return write(kStamp, std::string(bb::version()) + "\n");
}

Status SiteWriter::write_run(const JobReport& report, const std::optional<model::JobResult>& result) {
  const model::Job& job = report.job;
  const std::string& repository = job.spec.repository;
  nlohmann::json recorded = nlohmann::json::array();
  nlohmann::json trend_pages = nlohmann::json::object();
  std::string env_key, machine, tuning = "unknown", base_commit;
  if (result) {
    const model::ResultSet& head = result->head;
    env_key = head.environment_key;
    machine = head.machine_fingerprint;
    tuning = head.host_drifted ? "drifted" : (machine.empty() ? "unknown" : "held");
    if (result->base) base_commit = result->base->commit;
    else if (report.comparison) base_commit = report.comparison->base_commit;
    for (const auto& b : head.benchmarks) {
      const Spread s = spread_of(b.samples);
      recorded.push_back({{"key", b.key.to_string()},
                          {"unit", b.unit},
                          {"median", b.samples.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.median)},
                          {"samples", b.samples.size()},
                          {"status", model::to_string(b.status)},
                          {"reason", b.reason}});
    }
    // Trend links only where the trend exists: a PR's benchmarks on its base
    // branch, a push's on its branch, a tag's in the release series.
    const std::string ref = result->kind == "tag" ? std::string(kReleaseSeries)
                            : result->base        ? job.spec.base_ref
                                                  : head.ref;
    auto summaries = history_.series_summaries(repository, ref);
    if (!summaries) return summaries.error();
    for (const auto& s : *summaries) trend_pages[s.key] = site::trend_page(repository, s.id);
  }
  // Callgrind profiles kept with the result: copied next to the run (they
  // open in callgrind_annotate and KCachegrind), so the site serves them.
  nlohmann::json profiles = nlohmann::json::array();
  if (result) {
    std::vector<const model::ResultSet*> sides;
    if (result->base) sides.push_back(&*result->base);
    sides.push_back(&result->head);
    for (const model::ResultSet* rs : sides)
      for (const auto& b : rs->benchmarks) {
        auto it = b.extra.find("profiles");
        if (it == b.extra.end() || !it->is_array()) continue;
        nlohmann::json files = nlohmann::json::array();
        for (const auto& f : *it) {
          if (!f.is_string()) continue;
          const std::string from = f.get<std::string>();
          auto bytes = read_file(from, 256 << 20);
          if (!bytes) continue;  // gone from disk: not offered
          const std::string to = site::run_profile(repository, job.id, rs->role.empty() ? "run" : rs->role,
                                                   from.substr(from.rfind('/') + 1));
          if (auto st = write(to, *bytes); !st) return st;
          files.push_back(to);
        }
        if (!files.empty())
          profiles.push_back({{"key", b.key.to_string()}, {"role", rs->role.empty() ? "run" : rs->role}, {"files", files}});
      }
  }
  const nlohmann::json data = {
      {"schema", "benchbox.site.run/1"},
      {"profiles", profiles},
      {"job", public_job(job)},
      {"overall", to_string(report.overall)},
      {"summary", report.summary},
      {"head_commit", report.head_commit},
      {"baseline", report.baseline},
      {"base_commit", base_commit},
      {"environment_key", env_key},
      {"machine_fingerprint", machine},
      {"tuning", tuning},
      {"comparison", report.json.value("comparison", nlohmann::json(nullptr))},
      {"recorded", recorded},
      {"change_points", report.json.value("change_points", nlohmann::json::array())},
      {"trend_pages", trend_pages},
      {"pull_page", job.spec.pr_number > 0 ? nlohmann::json(site::pull_page(repository, job.spec.pr_number))
                                           : nlohmann::json(nullptr)},
      {"repository_page", site::repository_page(repository)},
      {"downloads",
       {{"result", site::run_result_download(repository, job.id)},
        {"report", site::run_report_download(repository, job.id)}}},
      {"reproduce", report.reproduce},
      {"markdown", report.markdown}};
  if (auto st = write(site::run_data(repository, job.id), site::data_file(site::run_name(job.id), data)); !st)
    return st;
  // The raw downloads: plain JSON.
  const nlohmann::json raw = result ? model::to_json(*result) : nlohmann::json(nullptr);
  if (auto st = write(site::run_result_download(repository, job.id), dump_json(raw, 1) + "\n"); !st) return st;
  nlohmann::json public_report = report.json;
  public_report["job"] = public_job(job);
  if (auto st = write(site::run_report_download(repository, job.id), dump_json(public_report, 1) + "\n"); !st)
    return st;
  return write_shell(site::run_page(repository, job.id), "run",
                     "job " + std::to_string(job.id) + " · " + repository + " · benchbox",
                     site::run_data(repository, job.id), site::run_name(job.id));
}

Status SiteWriter::write_missing_runs(const std::string& repository) {
  auto jobs = history_.run_jobs(repository);
  if (!jobs) return jobs.error();
  for (int64_t id : *jobs) {
    if (path_exists(path_join(options_.site_dir, site::run_page(repository, id)))) continue;
    model::JobResult jr;
    jr.job_id = id;
    auto head = history_.run(id, "head");
    if (!head) return head.error();
    if (!*head) head = history_.run(id, "");
    if (!head) return head.error();
    if (!*head) continue;
    jr.head = std::move(**head);
    auto base = history_.run(id, "base");
    if (!base) return base.error();
    if (*base) jr.base = std::move(**base);
    auto summary = history_.job(id);
    if (!summary) return summary.error();
    JobReport r;
    r.job.id = id;
    r.job.state = model::JobState::done;
    r.job.spec.repository = repository;
    r.job.spec.ref = jr.head.ref;
    r.job.spec.head_sha = jr.head.commit;
    r.job.created = jr.head.created;
    r.head_commit = jr.head.commit;
    if (*summary) {
      const JobSummary& s = **summary;
      r.job.spec.kind = model::job_kind_from_string(s.kind).value_or(model::JobKind::push);
      r.job.spec.pr_number = s.pr_number;
      r.summary = s.summary;
      r.overall = s.overall == "regressed" ? Overall::regressed
                  : s.overall == "failed"  ? Overall::failed
                                           : Overall::recorded;
    } else {
      r.job.spec.kind = jr.base ? model::JobKind::pull_request : model::JobKind::push;
      r.summary = "job " + std::to_string(id) + " (recorded before this dashboard kept its report)";
    }
    jr.kind = model::to_string(r.job.spec.kind);
    r.json = {{"job", public_job(r.job)}, {"overall", to_string(r.overall)}, {"summary", r.summary}};
    if (auto st = write_run(r, jr); !st) return st;
  }
  return {};
}

Status SiteWriter::prune_downloads(const std::vector<int64_t>& jobs) {
  for (int64_t id : jobs) {
    auto summary = history_.job(id);
    if (!summary) return summary.error();
    if (!*summary) continue;
    model::JobResult jr;
    jr.job_id = id;
    jr.kind = (*summary)->kind;
    auto head = history_.run(id, "head");
    if (!head) return head.error();
    if (!*head) continue;
    jr.head = std::move(**head);
    auto base = history_.run(id, "base");
    if (!base) return base.error();
    if (*base) jr.base = std::move(**base);
    const std::string path = site::run_result_download((*summary)->repository, id);
    if (!path_exists(path_join(options_.site_dir, path))) continue;
    if (auto st = write(path, dump_json(model::to_json(jr), 1) + "\n"); !st) return st;
  }
  return {};
}

Status SiteWriter::write_pull(const std::string& repository, int64_t number) {
  auto jobs = history_.jobs(repository, kRunsListed, number);
  if (!jobs) return jobs.error();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& j : *jobs) runs.push_back(run_summary(j));
  nlohmann::json latest = nullptr;
  if (!jobs->empty())
    latest = {{"src", site::run_data(repository, jobs->front().job_id)}, {"name", site::run_name(jobs->front().job_id)}};
  const nlohmann::json data = {{"schema", "benchbox.site.pull/1"},
                               {"repository", repository},
                               {"number", number},
                               {"runs", runs},
                               {"latest_run", latest},
                               {"repository_page", site::repository_page(repository)}};
  if (auto st = write(site::pull_data(repository, number), site::data_file(site::pull_name(number), data)); !st)
    return st;
  return write_shell(site::pull_page(repository, number), "pull",
                     "pull request #" + std::to_string(number) + " · " + repository + " · benchbox",
                     site::pull_data(repository, number), site::pull_name(number));
}

namespace {

nlohmann::json regression_json(const Regression& r, const std::string& issue_url) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& b : r.benchmarks) {
    if (!b.resolved_by.empty()) continue;
    const std::string sid = site::series_id(r.ref, b.key);
    benchmarks.push_back({{"key", b.key},
                          {"ratio", b.ratio},
                          {"ci_low", b.ci_low},
                          {"ci_high", b.ci_high},
                          {"direction", b.higher_is_better ? "higher_is_better" : "lower_is_better"},
                          {"trend", site::trend_page(r.repository, sid)}});
  }
  return {{"ref", r.ref},
          {"last_good", r.last_good()},
          {"first_bad", r.first_bad()},
          {"job_id", r.latest_job},
          {"page", site::run_page(r.repository, r.latest_job)},
          {"issue_url", issue_url.empty() ? nlohmann::json(nullptr) : nlohmann::json(issue_url)},
          {"benchmarks", benchmarks}};
}

}  // namespace

Result<nlohmann::json> SiteWriter::open_regressions(const std::string& repository) {
  auto open = history_.open_regressions(repository);
  if (!open) return open.error();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : *open) out.push_back(regression_json(r, options_.issue_url ? options_.issue_url(r) : ""));
  return out;
}

Status SiteWriter::write_repository(const std::string& repository) {
  const std::vector<std::string> refs = shown_refs(repository);
  nlohmann::json ref_list = nlohmann::json::array();
  for (const auto& ref : refs)
    ref_list.push_back({{"ref", ref}, {"name", site::ref_name(ref)}, {"release_series", ref == kReleaseSeries}});

  auto summaries = history_.series_summaries(repository);
  if (!summaries) return summaries.error();
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& s : *summaries) {
    if (std::find(refs.begin(), refs.end(), s.ref) == refs.end()) continue;
    nlohmann::json& b = by_key[s.key];
    if (b.is_null()) {
      b = {{"key", s.key}, {"unit", s.unit}, {"direction", model::to_string(s.direction)},
           {"series", nlohmann::json::object()}};
    }
    nlohmann::json latest = nullptr;
    if (s.latest_job)
      latest = {{"value", s.latest_measured ? nlohmann::json(s.latest_value) : nlohmann::json(nullptr)},
                {"commit", s.latest_commit},
                {"job_id", s.latest_job},
                {"status", s.latest_status}};
    b["series"][s.ref] = {{"id", s.id},
                          {"page", site::trend_page(repository, s.id)},
                          {"points", s.points},
                          {"latest", latest},
                          {"change", s.has_change ? nlohmann::json{{"ratio", s.change_ratio}, {"worse", s.change_worse}}
                                                  : nlohmann::json(nullptr)}};
  }
  nlohmann::json benchmarks = nlohmann::json::array();
  for (auto& [key, b] : by_key) {
    // The key's parts, for the page to group and label.
    const size_t colon = key.rfind(':');
    const std::string bench = colon == std::string::npos ? key : key.substr(0, colon);
    const size_t slash = bench.find('/');
    b["metric"] = colon == std::string::npos ? "" : key.substr(colon + 1);
    b["suite"] = slash == std::string::npos ? "" : bench.substr(0, slash);
    b["name"] = slash == std::string::npos ? bench : bench.substr(slash + 1);
    benchmarks.push_back(std::move(b));
  }

  auto jobs = history_.jobs(repository, kRunsListed);
  if (!jobs) return jobs.error();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& j : *jobs) runs.push_back(run_summary(j));

  auto pulls = history_.pull_requests(repository, kPullsListed);
  if (!pulls) return pulls.error();
  nlohmann::json pull_list = nlohmann::json::array();
  for (int64_t pr : *pulls) {
    auto latest = history_.jobs(repository, 1, pr);
    if (!latest) return latest.error();
    if (latest->empty()) continue;
    pull_list.push_back({{"number", pr}, {"page", site::pull_page(repository, pr)}, {"latest", run_summary(latest->front())}});
  }

  auto regressions = open_regressions(repository);
  if (!regressions) return regressions.error();

  const nlohmann::json data = {{"schema", "benchbox.site.repository/1"},
                               {"repository", repository},
                               {"refs", ref_list},
                               {"benchmarks", benchmarks},
                               {"runs", runs},
                               {"pulls", pull_list},
                               {"open_regressions", *regressions}};
  if (auto st = write(site::repository_data(repository), site::data_file("repo", data)); !st) return st;
  return write_shell(site::repository_page(repository), "repository", repository + " · benchbox",
                     site::repository_data(repository), "repo");
}

Status SiteWriter::write_index() {
  auto repos = history_.repositories();
  if (!repos) return repos.error();
  nlohmann::json list = nlohmann::json::array();
  for (const auto& repository : *repos) {
    auto jobs = history_.jobs(repository, kIndexRuns);
    if (!jobs) return jobs.error();
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& j : *jobs) runs.push_back(run_summary(j));
    auto regressions = open_regressions(repository);
    if (!regressions) return regressions.error();
    list.push_back({{"repository", repository},
                    {"page", site::repository_page(repository)},
                    {"latest_runs", runs},
                    {"open_regressions", *regressions}});
  }
  const nlohmann::json data = {{"schema", "benchbox.site.index/1"},
                               {"generated", options_.clock ? options_.clock->now_unix() : int64_t(0)},
                               {"version", bb::version()},
                               {"repositories", list}};
  if (auto st = write(site::index_data(), site::data_file("index", data)); !st) return st;
  // The index shell is written every time: it is the site's front door,
  // and an older benchbox wrote a different one.
  return write(site::index_page(), site::shell(site::index_page(), "index", "benchbox", site::index_data(), "index"));
}

}  // namespace bb::report
