// Group commit of Queue1.Enqueue: the calls that arrive together wait for
// the bus to have nothing more to hand over, then go to the store in one
// transaction (QueueStore::enqueue_batch) and share its commit. Each caller
// is answered once its job is durable, as before; a lone call waits for
// nothing, since the bus then has nothing more.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "bus/handles.h"
#include "model/job.h"
#include "store/queue_store.h"
#include "util/result.h"

namespace bb::queued {

class EnqueueBatch {
 public:
  // At most this many calls share a commit: a steady stream of callers
  // would otherwise keep the first of them waiting.
  static constexpr size_t kMaxCalls = 64;

  // Stores a batch in one transaction: one answer per spec, in order
  // (the Manager's enqueue_batch; a test's own).
  using Store = std::function<std::vector<Result<store::EnqueueResult>>(const std::vector<model::JobSpec>&)>;

  static Result<std::unique_ptr<EnqueueBatch>> create(sd_event* event, Store store);
  // Calls still waiting are enqueued and answered: a stopping daemon
  // answers what it took (its bus is flushed after).
  ~EnqueueBatch();
  EnqueueBatch(const EnqueueBatch&) = delete;
  EnqueueBatch& operator=(const EnqueueBatch&) = delete;

  // Holds `call` (a Queue1.Enqueue) until its batch is committed, then
  // answers it with (id, created) or the spec's own error; every call is
  // answered, also when storing the batch throws.
  void add(sd_bus_message* call, model::JobSpec spec);

 private:
  explicit EnqueueBatch(Store store) : store_(std::move(store)) {}
  static int on_idle(sd_event_source* source, void* userdata);
  void commit();
  std::vector<Result<store::EnqueueResult>> stored(const std::vector<model::JobSpec>& specs);

  Store store_;
  bus::SourcePtr source_;
  std::vector<std::pair<bus::MessagePtr, model::JobSpec>> waiting_;
};

}  // namespace bb::queued
