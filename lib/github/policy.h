// The trigger policy: what, if anything, a verified delivery makes benchbox
// do. Pure: it reads the appliance config's repositories (branches and tag
// globs, blessers, bless command and label) and never touches the bus, so
// every rule is unit-tested. Commits that are not on an allowed branch or
// tag and not a blessed pull request are never run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>


#include "config/appliance.h"
#include "github/payload.h"
#include "model/job.h"
#include "model/pull_request.h"
#include "util/result.h"

namespace bb::github {

// A blessing that needs the recorded pull request before it becomes a job.
struct BlessRequest {
  std::string repository;
  int64_t number = 0;
  std::string requested_by;
  std::string delivery_id;
  std::string clone_url;  // the delivery's repository.clone_url, used when the config has none
};

struct Decision {
  enum class Action {
    pong,     // ping: answer 200
    ignore,   // nothing to do; `reason` says why
    record,   // store `record` (Queue1.RecordPullRequest)
    enqueue,  // store `record` first if set, then Queue1.Enqueue(`job`)
    bless,    // Queue1.GetPullRequest(bless.repository, bless.number), then bless_job()
  };
  Action action = Action::ignore;
  std::string reason;  // ignore: why; otherwise a short summary for the log
  std::optional<model::PullRequest> record;
  model::JobSpec job;
  BlessRequest bless;
};

const char* to_string(Decision::Action a);

// Decides for one parsed delivery. Fails (Errc::invalid_argument) only when
// the payload names a commit that cannot be one ("after" not a hex id).
Result<Decision> decide(const config::ApplianceConfig& config, const Event& event,
                        const std::string& delivery_id);

// Completes a `bless` decision once the queue answered GetPullRequest:
// `recorded` is empty when the pull request was never recorded, and then
// the job names refs/pull/N/head with no head_sha (the runner resolves it)
// against refs/heads/<first branch of the policy>. Blessing a closed pull
// request is ignored.
Decision bless_job(const config::ApplianceConfig& config, const BlessRequest& request,
                   const std::optional<model::PullRequest>& recorded);

// True when a line of `body` starts with `command` followed by the end of the
// line or whitespace ("/benchbox run" and "/benchbox run please", not
// "/benchbox running" nor a quoted "> /benchbox run").
bool has_command(const std::string& body, const std::string& command);

}  // namespace bb::github
