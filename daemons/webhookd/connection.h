// One accepted TCP connection of benchbox-webhookd, from its first byte to
// its close: read, parse (lib/http), refuse early or hand the request to the
// handler, write the answer, keep alive or close.
//
// Every way a client can misbehave ends in a bounded time with an answer
// where one is possible:
//   - nothing sent:             closed after idle_timeout_seconds;
//   - headers trickled:         408 at header_timeout_seconds after the
//                               request began, however steadily bytes come;
//   - headers too large:        431 the moment the limit is reached;
//   - body stalls:              408 after idle_timeout_seconds without a byte;
//   - body trickled:            408 at request_timeout_seconds;
//   - body too large:           413 the moment the limit is crossed (also
//                               chunked), or at the header for Content-Length;
//   - every in-flight byte cap: 503 with Retry-After.
// A refusal is followed by a lingering close (our side shut, the client's
// remaining bytes read and dropped for a moment) so the client reads the
// answer instead of a reset.
#pragma once

#include <systemd/sd-event.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "bus/handles.h"
#include "http/request_parser.h"
#include "http/response.h"
#include "util/fd.h"
#include "util/result.h"

namespace bb::webhookd {

struct HttpLimits {
  unsigned max_connections = 128;
  uint32_t max_header_bytes = 32 * 1024;
  uint64_t max_body_bytes = 25ull * 1024 * 1024;
  uint64_t max_body_bytes_in_flight = 256ull * 1024 * 1024;
  unsigned header_timeout_seconds = 10;
  unsigned idle_timeout_seconds = 10;
  unsigned request_timeout_seconds = 10;
};

// A complete POST /webhook, as the handler gets it.
struct HttpRequest {
  std::string event;         // X-GitHub-Event ("" when absent)
  std::string delivery_id;   // X-GitHub-Delivery
  std::string signature;     // X-Hub-Signature-256
  std::string content_type;  // the media type, lowercased ("application/json")
  std::string peer;          // "127.0.0.1:50312"
  std::string body;          // the raw body, byte for byte
};

// Answers one request, exactly once; later calls do nothing.
using Responder = std::function<void(http::Response)>;
using RequestHandler = std::function<void(HttpRequest&&, Responder)>;

using Clock = std::chrono::steady_clock;

// What a connection needs from the server that owns it.
class ConnectionHost {
 public:
  virtual const HttpLimits& limits() const = 0;
  virtual sd_event* event() const = 0;
  virtual std::span<char> read_buffer() = 0;
  // Body bytes held by every request in progress: false when `n` more
  // would cross max_body_bytes_in_flight (nothing is reserved then).
  virtual bool reserve_body_bytes(uint64_t n) = 0;
  virtual void release_body_bytes(uint64_t n) = 0;
  virtual void dispatch(HttpRequest&& request, Responder respond) = 0;
  virtual void connection_closed(class Connection* c) = 0;

 protected:
  ~ConnectionHost() = default;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  enum class Phase {
    idle,       // no byte of a request yet (new, or kept alive after an answer)
    reading,    // a request is arriving
    waiting,    // complete, with the handler
    writing,    // the answer is going out
    lingering,  // answered and shut for writing; draining what the client still sends
  };

  // Takes `fd` (non-blocking, accepted). start() before anything else.
  Connection(ConnectionHost& host, UniqueFd fd, std::string peer);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Status start();
  Phase phase() const { return phase_; }
  // When the current request began (accept, or the end of the previous answer).
  Clock::time_point request_started() const { return request_started_; }
  // True while the connection holds a request that is not with the handler:
  // the ones that may give way to a new connection.
  bool evictable() const { return phase_ == Phase::idle || phase_ == Phase::reading || phase_ == Phase::lingering; }

  // Drain and shutdown: one pass of non-blocking reads, writes and deadline
  // checks, without the event loop.
  void poll_once();
  // Gives way to a new connection: a short 503 if it fits, then closed.
  void evict();
  // Answers a request that is with the handler (shutdown's last resort).
  void answer_if_waiting(const http::Response& response);
  void close();

  std::list<std::shared_ptr<Connection>>::iterator position;  // in the server's list

 private:
  static int on_io(sd_event_source*, int, uint32_t revents, void* userdata);
  static int on_timer(sd_event_source*, uint64_t, void* userdata);

  void on_readable();
  void on_writable();
  void process(std::string_view fresh);
  bool check_head();  // false: refused
  void hand_over();
  void respond(http::Response response, bool close_after);
  void flush();
  void finished_writing();
  void on_deadline(Clock::time_point now);
  void rearm();
  void watch(uint32_t events);
  void account_body();
  void release_body();

  ConnectionHost& host_;
  UniqueFd fd_;
  std::string peer_;
  bus::SourcePtr io_;
  bus::SourcePtr timer_;
  http::RequestParser parser_;
  std::string in_;
  std::string out_;
  Phase phase_ = Phase::idle;
  bool close_after_ = false;
  bool head_only_ = false;   // a HEAD request: the answer has no body
  bool head_seen_ = false;   // the current request's header is complete
  bool health_ = false;      // the current request is GET /healthz
  bool in_process_ = false;  // process() is on the stack
  bool closed_ = false;
  uint64_t request_seq_ = 0;  // which request a Responder answers
  uint64_t body_counted_ = 0; // bytes reserved with the host
  Clock::time_point request_started_;
  Clock::time_point last_progress_;
  Clock::time_point linger_until_;
};

}  // namespace bb::webhookd
