// The HTTP side of benchbox-webhookd: libmicrohttpd on an already-listening
// socket, driven by the daemon's sd-event loop.
//
// Why MHD's external epoll mode inside sd-event rather than MHD's internal
// polling thread: everything a request needs after its body arrived is an
// asynchronous D-Bus call (Queue1) with its own timeout, and sd-bus objects
// are not thread-safe. With one loop there is one thread, no locks, and the
// spool, its replay timer and the bus all share it. A request waiting for the
// queue is suspended (MHD_suspend_connection), not blocking a thread, so many
// can wait at once. The work per request in this thread (HMAC, JSON) is
// microseconds next to the queue's fsync, so one thread is not the limit.
//
// The server answers routing and limits itself (404, 405, 413, 408) and hands
// complete POST /webhook bodies to the handler, which answers later through
// the Responder, exactly once. No exception crosses an MHD callback.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bus/handles.h"
#include "util/result.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace bb::webhookd {

struct HttpLimits {
  uint64_t max_body_bytes = 25ull * 1024 * 1024;
  // Idle time before MHD cuts a connection, and the most a request's headers
  // and body may take in total before it is answered 408.
  unsigned request_timeout_seconds = 10;
};

struct HttpRequest {
  std::string event;        // X-GitHub-Event ("" when absent)
  std::string delivery_id;  // X-GitHub-Delivery
  std::string signature;    // X-Hub-Signature-256
  std::string body;
};

struct HttpAnswer {
  unsigned status = 500;
  std::string json;  // the response body (application/json)
};

using Responder = std::function<void(HttpAnswer)>;
using RequestHandler = std::function<void(HttpRequest&&, Responder)>;

class HttpServer {
 public:
  // Serves on `listen_fd` (bound and listening). The server owns the fd from
  // now on; closing a copy that came from systemd is fine, systemd keeps its own.
  static Result<std::unique_ptr<HttpServer>> start(sd_event* event, int listen_fd,
                                                   HttpLimits limits, RequestHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void set_limits(HttpLimits limits) { limits_ = limits; }

  // Stops accepting connections (a socket from systemd keeps queueing new
  // ones for the next instance). Requests already in progress continue.
  void stop_accepting();
  // Requests received but not yet fully answered.
  size_t open_requests() const { return open_requests_; }
  // Lets MHD make progress outside the event loop (draining at shutdown).
  void run_once();
  // Shutdown's last resort: answers every request still waiting for its
  // handler (MHD must not be stopped with suspended connections).
  void answer_all_waiting(const HttpAnswer& answer);

 private:
  struct Request;
  friend struct HttpCallbacks;
  HttpServer() = default;

  Status arm();
  void wake();  // MHD_run soon, from the loop
  static int on_epoll(sd_event_source*, int, uint32_t, void* userdata);
  static int on_timer(sd_event_source*, uint64_t, void* userdata);

  MHD_Daemon* daemon_ = nullptr;
  sd_event* event_ = nullptr;
  bus::SourcePtr io_source_;
  bus::SourcePtr timer_source_;
  HttpLimits limits_;
  RequestHandler handler_;
  size_t open_requests_ = 0;
  bool quiesced_ = false;
  std::vector<std::weak_ptr<Request>> suspended_;
};

}  // namespace bb::webhookd
