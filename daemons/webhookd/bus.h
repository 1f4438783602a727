// benchbox-webhookd is a bus client only: it owns no name and exports no
// interface. This is its side of org.benchbox.Queue1: asynchronous calls
// with the configured timeout (so a hung queue costs a request
// queue_timeout_ms, never the event loop), and a watch on the queue's name
// so spooled deliveries are replayed as soon as queued is back.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "bus/handles.h"
#include "github/policy.h"
#include "model/job.h"
#include "util/result.h"

namespace bb::webhookd {

struct Enqueued {
  int64_t id = 0;
  bool created = false;  // false: the queue already had this delivery (or the same work)
};

class QueueClient {
 public:
  // `bus` must outlive the client. Each reply callback runs exactly once,
  // from the event loop, with Errc::timeout when the queue did not answer
  // within `timeout_ms` and Errc::unavailable when it is not on the bus.
  QueueClient(sd_bus* bus, unsigned timeout_ms) : bus_(bus), timeout_ms_(timeout_ms) {}
  void set_timeout_ms(unsigned ms) { timeout_ms_ = ms; }

  void enqueue(const model::JobSpec& spec, std::function<void(Result<Enqueued>)> done);
  // true: recorded; false: the queue had accepted this body before (a replay).
  void record_pull_request(const model::PullRequest& pr, std::function<void(Result<bool>)> done);
  // An empty optional when the queue never recorded that pull request.
  void get_pull_request(const std::string& repository, int64_t number,
                        std::function<void(Result<std::optional<model::PullRequest>>)> done);

  // Calls `appeared` whenever org.benchbox.Queue1 gets a new owner.
  Status watch_queue(std::function<void()> appeared);

 private:
  using Reply = std::function<void(sd_bus_message* reply, const Error* error)>;
  // Sends `m` asynchronously; `on_reply` gets the reply or the error.
  void call(bus::MessagePtr m, Reply on_reply);
  Result<bus::MessagePtr> new_call(const char* member);
  static int on_reply(sd_bus_message* m, void* userdata, sd_bus_error* ret_error);
  static int on_name_owner_changed(sd_bus_message* m, void* userdata, sd_bus_error* ret_error);

  sd_bus* bus_;
  unsigned timeout_ms_;
  bus::SlotPtr name_watch_;
  std::function<void()> appeared_;
};

}  // namespace bb::webhookd
