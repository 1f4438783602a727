// Whether a .benchbox.yml's suites can run on a runner, beyond what parsing
// checks: each `format:` is one bb::formats reads, each counter one perf
// names. runnerd fails a job with this message before anything runs, and
// `benchboxctl check` says the same before anything is pushed.
#pragma once

#include <vector>

#include "config/suite.h"
#include "util/result.h"

namespace bb::exec {

Status check_suites(const std::vector<config::Suite>& suites);

}  // namespace bb::exec
