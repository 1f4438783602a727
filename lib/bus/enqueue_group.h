// Queue1.EnqueueGroup from a client: benchboxctl backfill, reporterd's
// bisections and runnerd's shards all queue a group the same way. And
// Queue1.PlanGroup, the same call that stores nothing (a dry run).
#pragma once

#include <systemd/sd-bus.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bus/handles.h"
#include "util/result.h"

namespace bb::bus {

struct GroupEnqueued {
  int64_t group_id = 0;  // 0: nothing new was needed, no group was made
  struct Job {
    int64_t id = 0;
    bool created = false;
  };
  std::vector<Job> jobs;  // one per spec, in order
};

// The call, to send as the caller sends (benchboxctl names a queue that
// is not running), and its answer read.
Result<MessagePtr> new_enqueue_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs);
Result<GroupEnqueued> read_group_enqueued(sd_bus_message* reply);

// Calls EnqueueGroup(group, specs) on the queue and waits for its answer.
// `group` and each spec are the JSON of model::GroupSpec and
// model::JobSpec; a spec's replay_key is left out (a group's jobs come from
// no delivery). A refusal is the queue's error, with its message.
Result<GroupEnqueued> enqueue_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs);

// Queue1.PlanGroup: what EnqueueGroup would do with the same arguments,
// per spec the job that already has its work and its state ("queued",
// "running", "done"), or id 0 and "new". Nothing is stored.
struct GroupPlanned {
  struct Job {
    int64_t id = 0;
    std::string state;
  };
  std::vector<Job> jobs;  // one per spec, in order
};
Result<GroupPlanned> plan_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs);

}  // namespace bb::bus
