#include "enqueue_batch.h"

#include "bus/errors.h"
#include "daemon/log.h"

namespace bb::queued {

namespace {

// The bus is attached at SD_EVENT_PRIORITY_NORMAL (daemon::Service), and
// sd-event runs the most urgent pending source first: a source one step
// less urgent runs only once every call that has arrived has been read.
constexpr int64_t kAfterTheBus = SD_EVENT_PRIORITY_NORMAL + 1;

void answer(sd_bus_message* call, const Result<store::EnqueueResult>& result) {
  int r;
  if (result) {
    r = sd_bus_reply_method_return(call, "xb", result->job.id, static_cast<int>(result->created));
  } else {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    bus::set_error(&error, result.error());
    r = sd_bus_reply_method_error(call, &error);
    sd_bus_error_free(&error);
  }
  // The caller may have gone (its connection closed): nothing to answer.
  if (r < 0 && r != -ENOTCONN && r != -ECONNRESET)
    daemon::log_warning("cannot answer Queue1.Enqueue: " + errno_error("reply", -r).message);
}

}  // namespace

Result<std::unique_ptr<EnqueueBatch>> EnqueueBatch::create(sd_event* event, Store store) {
  std::unique_ptr<EnqueueBatch> batch(new EnqueueBatch(std::move(store)));
  sd_event_source* raw = nullptr;
  int r = sd_event_add_defer(event, &raw, on_idle, batch.get());
  if (r < 0) return errno_error("add the Enqueue batch's event source", -r);
  batch->source_.reset(raw);
  if ((r = sd_event_source_set_priority(raw, kAfterTheBus)) < 0 ||
      (r = sd_event_source_set_enabled(raw, SD_EVENT_OFF)) < 0)
    return errno_error("set up the Enqueue batch's event source", -r);
  return batch;
}

EnqueueBatch::~EnqueueBatch() {
  if (!waiting_.empty()) commit();
}

void EnqueueBatch::add(sd_bus_message* call, model::JobSpec spec) {
  waiting_.emplace_back(bus::MessagePtr(sd_bus_message_ref(call)), std::move(spec));
  if (waiting_.size() >= kMaxCalls) return commit();
  if (int r = sd_event_source_set_enabled(source_.get(), SD_EVENT_ONESHOT); r < 0) {
    daemon::log_warning("cannot wait for more Enqueue calls: " + errno_error("enable", -r).message);
    commit();
  }
}

int EnqueueBatch::on_idle(sd_event_source*, void* userdata) {
  try {
    static_cast<EnqueueBatch*>(userdata)->commit();
  } catch (const std::exception& e) {  // memory, while answering: never into sd-event
    daemon::log_error(std::string("Enqueue batch failed: ") + e.what());
  }
  return 0;
}

// The store's answers, one per spec. Its own failures are answers already
// (a refused spec, a database that failed); what it throws (memory) is
// every spec's error: the calls were taken from the waiting list, and a
// caller left without an answer would wait for the bus's timeout.
std::vector<Result<store::EnqueueResult>> EnqueueBatch::stored(const std::vector<model::JobSpec>& specs) {
  std::vector<Result<store::EnqueueResult>> results;
  std::string failed;
  try {
    results = store_(specs);
  } catch (const std::exception& e) {
    failed = e.what();
  }
  if (failed.empty() && results.size() == specs.size()) return results;
  if (failed.empty()) failed = "the store answered " + std::to_string(results.size()) + " of " +
                               std::to_string(specs.size()) + " specs";
  daemon::log_error("Enqueue batch failed: " + failed);
  results.clear();
  for (size_t i = 0; i < specs.size(); ++i)
    results.emplace_back(make_error(Errc::internal, "the queue could not store the job: " + failed));
  return results;
}

void EnqueueBatch::commit() {
  sd_event_source_set_enabled(source_.get(), SD_EVENT_OFF);
  auto calls = std::move(waiting_);
  waiting_.clear();
  std::vector<model::JobSpec> specs;
  specs.reserve(calls.size());
  for (auto& [call, spec] : calls) specs.push_back(std::move(spec));
  const auto results = stored(specs);
  for (size_t i = 0; i < calls.size(); ++i) answer(calls[i].first.get(), results[i]);
}

}  // namespace bb::queued
