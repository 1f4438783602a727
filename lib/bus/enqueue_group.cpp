#include "bus/enqueue_group.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "bus/dict.h"
#include "bus/errors.h"
#include "bus/handles.h"
#include "bus/names.h"

namespace bb::bus {

namespace {

Error failed(int r, const char* what, const char* method = "EnqueueGroup") {
  return make_error(Errc::internal, std::string("Queue1.") + method + ": " + what + ": " + std::strerror(-r));
}

Result<MessagePtr> new_group_call(sd_bus* bus, const char* method, const nlohmann::json& group,
                                  const std::vector<nlohmann::json>& specs) {
  sd_bus_message* raw = nullptr;
  int r = sd_bus_message_new_method_call(bus, &raw, kQueueName, kQueuePath, kQueueInterface, method);
  if (r < 0) return failed(r, "cannot make the call", method);
  MessagePtr call(raw);
  if ((r = append_dict(raw, group)) < 0) return failed(r, "the group", method);
  if ((r = sd_bus_message_open_container(raw, 'a', "a{sv}")) < 0) return failed(r, "the jobs", method);
  for (const auto& spec : specs) {
    nlohmann::json j = spec;
    j.erase("replay_key");
    if ((r = append_dict(raw, j)) < 0) return failed(r, "a job", method);
  }
  if ((r = sd_bus_message_close_container(raw)) < 0) return failed(r, "the jobs", method);
  return call;
}

}  // namespace

Result<MessagePtr> new_enqueue_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs) {
  return new_group_call(bus, "EnqueueGroup", group, specs);
}

Result<GroupEnqueued> read_group_enqueued(sd_bus_message* reply) {
  GroupEnqueued out;
  int r = sd_bus_message_read(reply, "x", &out.group_id);
  if (r < 0) return failed(r, "the answer");
  if ((r = sd_bus_message_enter_container(reply, 'a', "(xb)")) < 0) return failed(r, "the answer");
  int64_t id = 0;
  int created = 0;
  while ((r = sd_bus_message_read(reply, "(xb)", &id, &created)) > 0) out.jobs.push_back({id, created != 0});
  if (r < 0) return failed(r, "the answer");
  return out;
}

Result<GroupEnqueued> enqueue_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs) {
  auto call = new_enqueue_group(bus, group, specs);
  if (!call) return call.error();
  BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call(bus, call->get(), 0, error.get(), &reply_raw);
  MessagePtr reply(reply_raw);
  if (r < 0) return from_bus_error(error.get(), r, "Queue1.EnqueueGroup");
  return read_group_enqueued(reply_raw);
}

Result<GroupPlanned> plan_group(sd_bus* bus, const nlohmann::json& group, const std::vector<nlohmann::json>& specs) {
  auto call = new_group_call(bus, "PlanGroup", group, specs);
  if (!call) return call.error();
  BusError error;
  sd_bus_message* reply_raw = nullptr;
  int r = sd_bus_call(bus, call->get(), 0, error.get(), &reply_raw);
  MessagePtr reply(reply_raw);
  if (r < 0) return from_bus_error(error.get(), r, "Queue1.PlanGroup");
  GroupPlanned out;
  if ((r = sd_bus_message_enter_container(reply_raw, 'a', "(xs)")) < 0) return failed(r, "the answer", "PlanGroup");
  int64_t id = 0;
  const char* state = nullptr;
  while ((r = sd_bus_message_read(reply_raw, "(xs)", &id, &state)) > 0) out.jobs.push_back({id, state});
  if (r < 0) return failed(r, "the answer", "PlanGroup");
  return out;
}

}  // namespace bb::bus
