// The dashboard's run pages: a finished job's report, its result and
// profiles to download; run pages for jobs from before the dashboard kept
// them; and the downloads retention thins out.
#include "report/site.h"

#include <algorithm>
#include <map>

#include "report/flame.h"
#include "report/site_paths.h"
#include "util/file.h"
#include "util/json_text.h"
#include "util/text.h"

namespace bb::report {

namespace {

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

// Members of a report's JSON lent out, each given back when the loan goes
// out of scope, on every return. The run page's data and the report
// download are written from the report itself: on 1,000 benchmarks its
// comparison is most of both files, and each push copied it twice, wrote
// the copies and freed them. The owner is an object, or null (a report
// without JSON), which it is again afterwards.
class Loan {
 public:
  explicit Loan(nlohmann::json& owner) : owner_(owner), was_null_(owner.is_null()) {}
  Loan(const Loan&) = delete;
  Loan& operator=(const Loan&) = delete;
  ~Loan() {
    for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
      if (it->had) owner_[it->key] = std::move(it->place ? *it->place : it->kept);
      else if (owner_.is_object()) owner_.erase(it->key);
    }
    if (was_null_) owner_ = nullptr;
  }
  // The owner's member `key` (`absent` if it has none) moves to `place`,
  // which must outlive the loan.
  void into(const char* key, nlohmann::json& place, nlohmann::json absent = nullptr) {
    auto it = owner_.find(key);
    const bool had = it != owner_.end();
    place = had ? std::move(*it) : std::move(absent);
    items_.push_back({key, had, &place, nullptr});
  }
  // The owner's member `key` is `stand_in` until the loan ends.
  void replace(const char* key, nlohmann::json stand_in) {
    auto it = owner_.find(key);
    Item item{key, it != owner_.end(), nullptr, nullptr};
    if (item.had) item.kept = std::move(*it);
    owner_[key] = std::move(stand_in);
    items_.push_back(std::move(item));
  }

 private:
  struct Item {
    std::string key;
    bool had;
    nlohmann::json* place;  // where the member is; null: in `kept`
    nlohmann::json kept;
  };
  nlohmann::json& owner_;
  bool was_null_;
  std::vector<Item> items_;
};

}  // namespace

Status SiteWriter::write_run(JobReport& report, const std::optional<model::JobResult>& result,
                             const std::string& run_id) {
  const model::Job& job = report.job;
  const std::string id = run_id.empty() ? std::to_string(job.id) : run_id;
  const std::string& repository = job.spec.repository;
  nlohmann::json recorded = nlohmann::json::array();
  nlohmann::json trend_pages = nlohmann::json::object();
  std::string env_key, machine, tuning = "unknown", base_commit;
  nlohmann::json containment = nullptr, contained = nullptr;
  if (result) {
    const model::ResultSet& head = result->head;
    env_key = head.environment_key;
    if (!head.containment.empty()) {
      containment = head.containment;
      contained = !model::uncontained(head);
    }
    machine = head.machine_fingerprint;
    tuning = tuning_of(head);
    if (result->base) base_commit = result->base->commit;
    else if (report.comparison) base_commit = report.comparison->base_commit;
    recorded.get_ref<nlohmann::json::array_t&>().reserve(head.benchmarks.size());
    for (const auto& b : head.benchmarks) {
      nlohmann::json& r = recorded.emplace_back(nlohmann::json::object());
      r["key"] = b.key.to_string();
      r["unit"] = b.unit;
      r["median"] = b.samples.empty() ? nlohmann::json(nullptr) : nlohmann::json(spread_of(b.samples).median);
      r["samples"] = b.samples.size();
      r["status"] = model::to_string(b.status);
      r["reason"] = b.reason;
    }
    // Trend links only where the trend exists: a PR's benchmarks on its base
    // branch, a push's on its branch, a tag's in the release series.
    const std::string ref = result->kind == "tag" ? std::string(kReleaseSeries)
                            : result->base        ? job.spec.base_ref
                                                  : head.ref;
    if (auto st = load_summaries(repository); !st) return st;
    for (const auto& [ref_key, s] : summaries_)
      if (s.ref == ref) trend_pages[s.key] = site::trend_page(repository, s.id);
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
          const std::string to = site::run_profile(repository, id, rs->role.empty() ? "run" : rs->role,
                                                   from.substr(from.rfind('/') + 1));
          if (auto st = write(to, *bytes); !st) return st;
          files.push_back(to);
        }
        if (!files.empty())
          profiles.push_back({{"key", b.key.to_string()}, {"role", rs->role.empty() ? "run" : rs->role}, {"files", files}});
      }
  }
  auto flames = write_flames(report, id);
  if (!flames) return flames.error();
  {
    nlohmann::json data = {
        {"schema", "benchbox.site.run/1"},
        {"profiles", std::move(profiles)},
        {"flames", std::move(*flames)},
        {"job", public_job(job)},
        {"overall", to_string(report.overall)},
        {"summary", report.summary},
        {"head_commit", report.head_commit},
        {"baseline", report.baseline},
        {"base_commit", base_commit},
        {"environment_key", env_key},
        {"machine_fingerprint", machine},
        {"tuning", tuning},
        {"containment", containment},
        {"contained", contained},
        {"recorded", std::move(recorded)},
        {"trend_pages", std::move(trend_pages)},
        {"pull_page", job.spec.pr_number > 0 ? nlohmann::json(site::pull_page(repository, job.spec.pr_number))
                                             : nlohmann::json(nullptr)},
        {"repository_page", site::repository_page(repository)},
        {"downloads",
         {{"result", site::run_result_download(repository, id)},
          {"report", site::run_report_download(repository, id)}}},
        {"reproduce", report.reproduce},
        {"markdown", report.markdown}};
    Loan loan(report.json);
    loan.into("comparison", data["comparison"]);
    loan.into("change_points", data["change_points"], nlohmann::json::array());
    loan.into("bisection", data["bisection"]);
    loan.into("shards", data["shards"]);
    if (auto st = write(site::run_data(repository, id), site::data_file(site::run_name(id), data)); !st) return st;
  }
  // The raw downloads: plain JSON.
  const nlohmann::json raw = result ? model::to_json(*result) : nlohmann::json(nullptr);
  if (auto st = write(site::run_result_download(repository, id), dump_json(raw, 1) + "\n"); !st) return st;
  {
    Loan loan(report.json);
    loan.replace("job", public_job(job));
    if (auto st = write(site::run_report_download(repository, id), dump_json(report.json, 1) + "\n"); !st)
      return st;
  }
  return write_shell(site::run_page(repository, id), "run",
                     (run_id.empty() ? "job " + id : id) + " · " + repository + " · benchbox",
                     site::run_data(repository, id), site::run_name(id));
}

Result<nlohmann::json> SiteWriter::write_flames(const JobReport& report, const std::string& id) {
  const std::string& repository = report.job.spec.repository;
  nlohmann::json flames = nlohmann::json::array();
  auto diffs = report.json.find("profile_diffs");
  if (diffs == report.json.end() || !diffs->is_array()) return flames;
  for (size_t i = 0; i < diffs->size(); ++i) {
    const nlohmann::json& d = (*diffs)[i];
    auto tree = d.find("flame");
    if (tree == d.end() || !tree->is_object()) continue;
    const std::string benchmark = d.value("benchmark", "");
    const std::string data = site::run_flame_data(repository, id, i);
    if (auto st = write(data, site::data_file(site::run_flame_name(id, i), {{"benchmark", benchmark}, {"flame", *tree}}));
        !st)
      return st.error();
    nlohmann::json folded = nlohmann::json::object();
    for (const char* role : {"base", "head"}) {
      const std::string path = site::run_flame_folded(repository, id, i, role);
      if (auto st = write(path, folded_of(*tree, std::string(role) == "head")); !st) return st.error();
      folded[role] = path;
    }
    flames.push_back({{"benchmark", benchmark},
                      {"anchor", site::flame_anchor(i)},
                      {"data", data},
                      {"name", site::run_flame_name(id, i)},
                      {"folded", folded}});
  }
  return flames;
}

Status SiteWriter::write_missing_run(const std::string& repository, int64_t id) {
  if (path_exists(path_join(options_.site_dir, site::run_page(repository, id)))) return {};
  model::JobResult jr;
  jr.job_id = id;
  auto head = history_.run(id, "head");
  if (!head) return head.error();
  if (!*head) head = history_.run(id, "");
  if (!head) return head.error();
  if (!*head) return {};
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
  return write_run(r, jr);
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


}  // namespace bb::report
