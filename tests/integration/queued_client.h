// A plain sd-bus client of org.benchbox.Queue1 for the queued integration
// tests: one connection to the private bus, one method per bus member, and
// a signal recorder. Errors come back as the D-Bus error name + message so
// tests can assert on both.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bus/handles.h"

namespace bb::test {

struct CallError {
  std::string name;     // "org.benchbox.Error.NotFound", "" on success
  std::string message;
  explicit operator bool() const { return !name.empty(); }
};

struct QueueSignal {
  std::string member;   // "JobQueued", "JobFinished", "PropertiesChanged"
  int64_t id = 0;
  std::string text;     // repository / state / changed property names (comma-joined)
  std::string result_path;
};

struct EnqueueAnswer {
  CallError error;
  int64_t id = 0;
  bool created = false;
};

class QueueClient {
 public:
  explicit QueueClient(const std::string& address);
  QueueClient(const QueueClient&) = delete;
  QueueClient& operator=(const QueueClient&) = delete;

  // Each returns an empty CallError on success.
  CallError enqueue(const nlohmann::json& spec, int64_t* id, bool* created, uint64_t timeout_usec = 0);
  // Sends every spec's Queue1.Enqueue before reading any answer, as
  // webhookd's callers do; the answers in the specs' order.
  std::vector<EnqueueAnswer> enqueue_together(const std::vector<nlohmann::json>& specs);
  // Queue1.EnqueueGroup: the group's id and its jobs' ids, in order.
  CallError enqueue_group(const nlohmann::json& group, const std::vector<nlohmann::json>& specs, int64_t* group_id,
                          std::vector<int64_t>* ids);
  CallError claim(const std::string& runner, uint32_t lease, int64_t* id, nlohmann::json* job);
  CallError heartbeat(int64_t id, const std::string& runner, int64_t* lease_expires);
  CallError complete(int64_t id, const std::string& runner, const std::string& result_path);
  CallError fail(int64_t id, const std::string& runner, const std::string& reason);
  CallError cancel(int64_t id, const std::string& reason);
  CallError get(int64_t id, nlohmann::json* job);
  CallError list(const std::string& state, uint32_t limit, std::vector<nlohmann::json>* jobs);
  CallError record_pull_request(const nlohmann::json& pr);
  CallError get_pull_request(const std::string& repository, int64_t number, nlohmann::json* pr);
  CallError count(const char* property, uint32_t* value);
  CallError version(std::string* value);

  // Subscribes to JobQueued, JobFinished and the queue's PropertiesChanged.
  void watch_signals();
  // Processes incoming messages until pred() holds or the timeout passes.
  bool wait_for(const std::function<bool()>& pred, uint64_t timeout_usec = 10'000'000);
  const std::vector<QueueSignal>& signals() const { return signals_; }
  size_t count_signals(const std::string& member, int64_t id) const;

 private:
  CallError call(const char* member, const char* types, bus::MessagePtr* reply, uint64_t timeout_usec,
                 const std::function<int(sd_bus_message*)>& append);
  static int on_signal(sd_bus_message* m, void* userdata, sd_bus_error* error);

  bus::BusPtr bus_;
  std::vector<bus::SlotPtr> matches_;
  std::vector<QueueSignal> signals_;
};

}  // namespace bb::test
