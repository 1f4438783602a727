// A pull request's suites it did not affect (`paths:`): runnerd did not run
// them and recorded each as skipped, "not affected: ...". The report lists
// their benchmarks as skipped, never missing, each beside its last value on
// the base branch, marked as not re-measured.
#pragma once

#include <optional>

#include "model/result_set.h"

namespace bb::report {

// Adds a skipped benchmark to head (and base) for every benchmark of a
// not-affected suite in `branch_run`, the base branch's latest run (nullopt:
// the branch has none, and the suite's line says so). Suites with no
// benchmark on the branch stay as they are.
void add_not_affected(model::JobResult& result, const std::optional<model::ResultSet>& branch_run);

// Whether the job skipped any suite as not affected.
bool has_not_affected(const model::JobResult& result);

}  // namespace bb::report
