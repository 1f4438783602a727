// Group commit of Queue1.Enqueue: the calls that arrive together wait for
// the bus to have nothing more to hand over, then go to the store in one
// transaction (QueueStore::enqueue_batch) and share its commit. Each caller
// is answered once its job is durable, as before; a lone call waits for
// nothing, since the bus then has nothing more.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "bus/handles.h"
#include "model/job.h"
#include "util/result.h"

namespace bb::queued {

class Manager;

class EnqueueBatch {
 public:
  // At most this many calls share a commit: a steady stream of callers
  // would otherwise keep the first of them waiting.
  static constexpr size_t kMaxCalls = 64;

  static Result<std::unique_ptr<EnqueueBatch>> create(sd_event* event, Manager* manager);
  // Calls still waiting are enqueued and answered: a stopping daemon
  // answers what it took (its bus is flushed after).
  ~EnqueueBatch();
  EnqueueBatch(const EnqueueBatch&) = delete;
  EnqueueBatch& operator=(const EnqueueBatch&) = delete;

  // Holds `call` (a Queue1.Enqueue) until its batch is committed, then
  // answers it with (id, created) or the spec's own error.
  void add(sd_bus_message* call, model::JobSpec spec);

 private:
  explicit EnqueueBatch(Manager* manager) : manager_(manager) {}
  static int on_idle(sd_event_source* source, void* userdata);
  void commit();

  Manager* manager_;
  bus::SourcePtr source_;
  std::vector<std::pair<bus::MessagePtr, model::JobSpec>> waiting_;
};

}  // namespace bb::queued
