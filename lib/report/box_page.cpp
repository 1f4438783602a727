#include "report/box_page.h"

#include <algorithm>
#include <cmath>

#include "stats/describe.h"

namespace bb::report {

std::map<std::string, double> suite_resolutions(const JobReport& report) {
  std::map<std::string, double> out;
  if (!report.comparison) return out;
  std::map<std::string, std::vector<double>> by_suite;
  for (const auto& row : report.comparison->rows)
    if (std::isfinite(row.min_detectable) && row.min_detectable > 0)
      by_suite[row.key.suite].push_back(row.min_detectable);
  for (const auto& [suite, values] : by_suite) out[suite] = stats::median(values);
  return out;
}

nlohmann::json box_canary_json(const canary::Health& health, const std::vector<canary::Run>& runs,
                               const std::string& environment_key, size_t keep) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = runs.size() > keep ? runs.size() - keep : 0; i < runs.size(); ++i)
    list.push_back({{"time", runs[i].time}, {"medians", runs[i].medians}, {"cv", runs[i].cv}});
  // The canary series' change points: each run at which the level it
  // judges began (learning, steady, shifted, or steady at a new level), as
  // health.h judges the runs up to it, in one pass.
  nlohmann::json changes = nlohmann::json::array();
  int64_t since = -1;
  (void)canary::judge(runs, {}, [&](const canary::Health& at) {
    if (at.since == since) return;
    since = at.since;
    changes.push_back({{"time", at.since}, {"level", canary::to_string(at.level)}, {"new_level", at.new_level},
                       {"describe", at.describe()}});
  });
  nlohmann::json h = nullptr;
  if (health.runs > 0)
    h = {{"level", canary::to_string(health.level)},
         {"since", health.since},
         {"workload", health.workload},
         {"ratio", health.ratio},
         {"band", health.band},
         {"runs", health.runs},
         {"new_level", health.new_level},
         {"describe", health.describe()}};
  return {{"health", h}, {"canary", {{"environment_key", environment_key}, {"runs", list}, {"changes", changes}}}};
}

void add_box_job(nlohmann::json& data, const JobReport& report, const std::string& tuning, const std::string& run_page,
                 int64_t now) {
  const model::Job& job = report.job;
  if (!tuning.empty() && tuning != "unknown")
    data["tuning"] = {{"state", tuning}, {"job", job.id}, {"repository", job.spec.repository},
                      {"run_page", run_page}, {"time", now}};
  const auto resolved = suite_resolutions(report);
  if (resolved.empty()) return;
  nlohmann::json suites = data.contains("suites") && data["suites"].is_array() ? data["suites"] : nlohmann::json::array();
  for (const auto& [suite, mdc] : resolved) {
    const nlohmann::json entry = {{"repository", job.spec.repository}, {"suite", suite}, {"min_detectable", mdc},
                                  {"job", job.id}, {"run_page", run_page}, {"time", now}};
    auto same = std::find_if(suites.begin(), suites.end(), [&](const nlohmann::json& s) {
      return s.value("repository", "") == job.spec.repository && s.value("suite", "") == suite;
    });
    if (same != suites.end()) *same = entry;
    else suites.push_back(entry);
  }
  std::sort(suites.begin(), suites.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return std::make_pair(a.value("repository", ""), a.value("suite", "")) <
           std::make_pair(b.value("repository", ""), b.value("suite", ""));
  });
  data["suites"] = suites;
}

}  // namespace bb::report
