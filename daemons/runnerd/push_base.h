// A push measured as a pull request is (config::Suite::push_baseline): the
// branch's previous head, the push's `before`, measured again in the same
// job, its rounds interleaved with the pushed commit's on the same cores.
// Two runs of one job are compared, not two jobs that an hour, another
// load and another clock apart.
#pragma once

#include <string>
#include <vector>

#include "config/suite.h"
#include "git/repository.h"
#include "measure.h"
#include "model/job.h"

namespace bb::runnerd {

// For a push job with one target (role ""): when every suite asks for an
// interleaved baseline and the previous head can be measured, puts it in
// front as the "base" target and returns "". Otherwise leaves the targets
// as they are and returns why the push is measured alone; reporterd then
// compares it with the branch's previous run, and its report says so.
std::string add_push_base(const git::Repository& repo, const model::JobSpec& spec,
                          const std::vector<config::Suite>& suites, std::vector<Target>& targets);

}  // namespace bb::runnerd
