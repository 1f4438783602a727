// The differential profile of a callgrind regression: for each benchmark
// the comparison calls regressed and whose base and head both kept their
// callgrind profiles (extra.profiles, written by runnerd), the functions
// whose self and inclusive instruction counts changed most, base -> head,
// with their share of the change. No peer shows this; it turns "0.3 % more
// instructions" into "parse_header: +41 % of the change".
#pragma once

#include "model/result_set.h"
#include "report/job_report.h"

namespace bb::report {

// Appends a "Differential profile" section per such benchmark to the
// report's Markdown, and json["profile_diffs"]. A profile that cannot be
// read is named in the section instead; the report is never lost for it.
// The profiles are named where the dashboard serves them (at links.site_url
// when there is one), never by the box's own paths.
void add_profile_diffs(JobReport& report, const model::ResultSet& base, const model::ResultSet& head,
                       const ReportLinks& links = {});

}  // namespace bb::report
