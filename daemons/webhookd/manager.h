// benchbox-webhookd's state and logic: verify, parse, decide, then drive the
// queue; spool what the queue could not take and replay it later.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bus.h"
#include "bus/handles.h"
#include "conf.h"
#include "github/policy.h"
#include "http/response.h"
#include "http_server.h"
#include "spool.h"

namespace bb::webhookd {

// What became of one delivery, for the HTTP answer and the spool replay.
struct Outcome {
  enum class Kind {
    pong,         // ping
    queued,       // job_id, created
    recorded,     // a pull request was recorded
    ignored,      // the policy or the event says nothing to do
    unavailable,  // the queue did not answer: spool and retry
    rejected,     // the delivery itself is wrong (400); retrying cannot help
    failed,       // something else went wrong (500)
  };
  Kind kind = Kind::failed;
  int64_t job_id = 0;
  bool created = false;
  std::string message;  // ignored: the reason; errors: what went wrong; else a summary
};

class Manager {
 public:
  Manager(sd_event* event, sd_bus* bus, Conf conf, std::string secret);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Serves HTTP on `listen_fd`, watches the queue's name and replays what
  // an earlier run left in the spool.
  Status start(int listen_fd);
  // SIGHUP: re-reads the config (policy, limits, timeouts) and the secret.
  Status reload();
  // When the loop exits (from its exit handler, while the bus is still
  // open): stop accepting, finish the requests in flight (each bounded by the
  // queue timeout). Idempotent.
  void drain();

  std::string status_line() const;
  // The listening socket, for the liveness probe (-1 once draining).
  int listen_fd() const { return http_ ? http_->listen_fd() : -1; }

 private:
  void on_request(HttpRequest&& request, Responder respond);
  // Parses, decides and drives the queue; `done` runs exactly once.
  // `replay_key` (the body's HMAC) goes with every job and record.
  void process(const std::string& event, const std::string& delivery_id, const std::string& body,
               const std::string& replay_key, std::function<void(Outcome)> done);
  void execute(github::Decision decision, const std::string& replay_key, std::function<void(Outcome)> done);
  void enqueue(const model::JobSpec& job, const std::string& summary, std::function<void(Outcome)> done);
  static http::Response answer_for(const Outcome& outcome);

  void schedule_replay(uint64_t delay_usec);
  void replay();
  void replay_next(std::shared_ptr<std::vector<std::string>> files, size_t index);
  static int on_replay_timer(sd_event_source*, uint64_t, void* userdata);
  // The counts changed: the STATUS= line follows within kStatusDelayUsec,
  // once for however many deliveries came meanwhile.
  void status_changed();
  static int on_status_timer(sd_event_source*, uint64_t, void* userdata);
  static int on_exit(sd_event_source*, void* userdata);

  sd_event* event_;
  sd_bus* bus_;
  Conf conf_;
  std::string secret_;
  Spool spool_;
  QueueClient queue_;
  std::unique_ptr<HttpServer> http_;
  bus::SourcePtr replay_timer_;
  bus::SourcePtr exit_source_;
  bus::SourcePtr status_timer_;  // armed while a STATUS= line is due
  bool replaying_ = false;
  uint64_t accepted_ = 0, ignored_ = 0, refused_ = 0, spooled_ = 0, replayed_ = 0;
  // Callbacks in flight hold this; they do nothing once the manager is gone.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace bb::webhookd
