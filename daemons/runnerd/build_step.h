// Step 3 of a job: each target's tree built for every suite's distinct
// build command, in suite order, or restored from the build cache when
// the same tree was built the same way in the same environment before.
#pragma once

#include <string>
#include <vector>

#include "cache/build_cache.h"
#include "config/suite.h"
#include "measure.h"

namespace bb::runnerd {

struct BuildInputs {
  cache::BuildCache* cache = nullptr;  // null: always build
  std::string tree_id;                 // the target commit's tree
  std::string environment_key;
};

// "" when the tree is ready, else the job's failure reason (the build's
// last lines). Sets target.result.build_cache to "hit" or "miss" when the
// cache was asked. A cache that fails is logged and bypassed: it never
// fails a job. `cancelled` is set when the job was cancelled.
std::string build_target(const std::vector<config::Suite>& suites, Target& target, const MeasureContext& ctx,
                         const BuildInputs& inputs, bool& cancelled);

}  // namespace bb::runnerd
