// What `benchboxctl run` prints for one commit measured alone: per
// benchmark and metric its median, its spread and how many samples, or why
// it has none; and the suites that failed. With --against the comparison
// engine's report is printed instead (compare::render_markdown).
#pragma once

#include <string>

#include "model/result_set.h"

namespace bb::cli {

std::string render_local_summary(const model::ResultSet& rs);
// A suite or a benchmark failed: `run` exits 1, as `compare` does.
bool local_summary_failed(const model::ResultSet& rs);

}  // namespace bb::cli
