// The dashboard's lists: a pull request's runs, a repository's benchmarks,
// runs and open regressions, and the index of every repository.
#include "report/site.h"

#include <algorithm>
#include <map>
#include <set>

#include "report/site_paths.h"
#include "util/file.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/version.h"

namespace bb::report {

namespace {

nlohmann::json run_summary(const JobSummary& j) {
  return {{"job_id", j.job_id},   {"kind", j.kind},         {"ref", j.ref},
          {"commit", j.commit},   {"base_commit", j.base_commit}, {"pr_number", j.pr_number},
          {"created", j.created}, {"commit_time", j.commit_time}, {"overall", j.overall},   {"summary", j.summary},
          {"backfill", j.backfill}, {"page", site::run_page(j.repository, j.job_id)}};
}

}  // namespace

Status SiteWriter::write_pull(const std::string& repository, int64_t number) {
  auto jobs = history_.jobs(repository, kRunsListed, number);
  if (!jobs) return jobs.error();
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& j : *jobs) runs.push_back(run_summary(j));
  nlohmann::json latest = nullptr;
  if (!jobs->empty())
    latest = {{"src", site::run_data(repository, jobs->front().job_id)}, {"name", site::run_name(jobs->front().job_id)}};
  // Its title and author, from the queue's record of the pull request.
  std::optional<model::PullRequest> pr;
  if (options_.pull_request) pr = options_.pull_request(repository, number);
  const nlohmann::json data = {{"schema", "benchbox.site.pull/1"},
                               {"repository", repository},
                               {"number", number},
                               {"title", pr ? pr->title : ""},
                               {"author", pr ? pr->author : ""},
                               {"state", pr ? pr->state : ""},
                               {"head_ref", pr ? pr->head_ref : ""},
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

nlohmann::json regression_json(const Regression& r, const std::string& issue_url, const std::optional<Bisection>& b) {
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
  // The runs that found it: a push's run page shows what came of it.
  std::set<int64_t> found_by;
  for (const auto& b : r.benchmarks)
    if (b.resolved_by.empty() && b.first_bad_job) found_by.insert(b.first_bad_job);
  return {{"ref", r.ref},
          {"first_bad_jobs", found_by},
          {"last_good", r.last_good()},
          {"first_bad", r.first_bad()},
          {"job_id", r.latest_job},
          {"page", site::run_page(r.repository, r.latest_job)},
          {"issue_url", issue_url.empty() ? nlohmann::json(nullptr) : nlohmann::json(issue_url)},
          {"confirmation", r.confirmation},
          {"investigation", b ? site_json(*b) : nlohmann::json(nullptr)},
          {"benchmarks", benchmarks}};
}

}  // namespace

Result<nlohmann::json> SiteWriter::open_regressions(const std::string& repository) {
  auto open = history_.open_regressions(repository);
  if (!open) return open.error();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : *open) {
    auto b = history_.bisection_of_regression(r.id);
    if (!b) return b.error();
    out.push_back(regression_json(r, options_.issue_url ? options_.issue_url(r) : "", *b));
  }
  return out;
}

Status SiteWriter::write_repository(const std::string& repository) {
  const std::vector<std::string> refs = shown_refs(repository);
  nlohmann::json ref_list = nlohmann::json::array();
  for (const auto& ref : refs)
    ref_list.push_back({{"ref", ref}, {"name", site::ref_name(ref)}, {"release_series", ref == kReleaseSeries}});

  // The summaries as this writer keeps them (load_summaries), not parsed
  // from history again for every job.
  if (auto st = load_summaries(repository); !st) return st;
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& [ref_key, s] : summaries_) {
    if (std::find(refs.begin(), refs.end(), s.ref) == refs.end()) continue;
    // Member by member: an initializer list builds each object as arrays
    // of pairs first, and this runs for every series on every job.
    nlohmann::json& b = by_key[s.key];
    if (b.is_null()) {
      b = nlohmann::json::object();
      b["key"] = s.key;
      b["unit"] = s.unit;
      b["direction"] = model::to_string(s.direction);
      b["series"] = nlohmann::json::object();
    }
    nlohmann::json& series = b["series"][s.ref];
    series = nlohmann::json::object();
    series["id"] = s.id;
    series["page"] = site::trend_page(repository, s.id);
    series["points"] = s.points;
    nlohmann::json& latest = series["latest"];
    if (s.latest_job) {
      latest["value"] = s.latest_measured ? nlohmann::json(s.latest_value) : nlohmann::json(nullptr);
      latest["commit"] = s.latest_commit;
      latest["job_id"] = s.latest_job;
      latest["status"] = s.latest_status;
    }
    nlohmann::json& change = series["change"];
    if (s.has_change) {
      change["ratio"] = s.change_ratio;
      change["worse"] = s.change_worse;
    }
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
                               {"refs", std::move(ref_list)},
                               {"benchmarks", std::move(benchmarks)},
                               {"runs", std::move(runs)},
                               {"pulls", std::move(pull_list)},
                               {"open_regressions", std::move(*regressions)}};
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
