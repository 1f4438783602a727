// The box health page's data (docs/dashboard.md, "box"): what this box's
// own measurements say about it. The canary's level and its runs
// (lib/canary/health.h), the tuning the newest job ran under, what each
// suite resolves in its newest comparison, and the regressions held while
// the canary said the box had shifted. Pure: site_box.cpp writes it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "canary/health.h"
#include "report/job_report.h"

namespace bb::report {

// Per suite of the report's comparison: the median of its benchmarks'
// smallest detectable change (a fraction: 0.012 = 1.2 %). Empty without a
// comparison.
std::map<std::string, double> suite_resolutions(const JobReport& report);

// The page's canary part, {"health": {...} or null, "canary":
// {"environment_key", "runs": [{"time", "medians", "cv"}], "changes":
// [{"time", "level", "new_level", "describe"}]}}: `runs` oldest first, the
// newest `keep` of them; `changes` the series' change points, each run at
// which the level health.h judges began.
nlohmann::json box_canary_json(const canary::Health& health, const std::vector<canary::Run>& runs,
                               const std::string& environment_key, size_t keep = 200);

// What a finished job tells the page, into `data` (the page's data as it
// stands): its tuning as the box's newest, and each suite it compared
// (replacing that repository's entry for the suite). `run_page` is the
// job's run page on the site.
void add_box_job(nlohmann::json& data, const JobReport& report, const std::string& tuning, const std::string& run_page,
                 int64_t now);

}  // namespace bb::report
