// The HTTP side of benchbox-webhookd: the listening socket and the
// connections on it, all in the daemon's sd-event loop (one thread: the
// bus, the spool and HTTP share it, and a request waiting for the queue is
// just a connection with nothing to read).
//
// Why webhookd accepts and owns its connections rather than letting a
// server library do it: GitHub never redelivers on its own, so the door must
// not be closable by a crowd. When max_connections are open, the oldest
// connection that is not yet a complete request (idle, trickling, or
// lingering after its answer) gives way to the new one, so tricklers cannot
// keep a real delivery out. Only when every open connection holds a request
// that is with the queue does webhookd stop accepting, and it starts again
// as soon as one closes: new connections wait in the kernel's backlog
// (systemd's, across restarts) meanwhile. Parsing is lib/http (Beast);
// per-connection deadlines and answers are connection.h.
#pragma once

#include <systemd/sd-event.h>

#include <list>
#include <memory>
#include <vector>

#include "bus/handles.h"
#include "connection.h"
#include "util/result.h"

namespace bb::webhookd {

class HttpServer final : public ConnectionHost {
 public:
  // Serves on `listen_fd` (bound and listening); the server owns it from now
  // on (closing a copy that came from systemd is fine, systemd keeps its own).
  static Result<std::unique_ptr<HttpServer>> start(sd_event* event, int listen_fd, HttpLimits limits,
                                                   RequestHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // New connections get the new limits; open ones keep theirs.
  void set_limits(HttpLimits limits) { limits_ = limits; }

  // Stops accepting and closes the listening socket (a socket from systemd
  // keeps queueing new connections for the next instance). Open connections
  // continue; the destructor closes what is left.
  void stop_accepting();
  // Connections with a request in progress (bytes arrived, with the
  // handler, or being answered).
  size_t open_requests() const;
  // Progress outside the event loop (draining at shutdown): non-blocking
  // reads and writes on every connection and their deadlines.
  void run_once();
  // Shutdown's last resort: answers every request still with the handler.
  void answer_all_waiting(const http::Response& response);

  // The listening socket's address, for the liveness probe (-1 once stopped).
  int listen_fd() const { return listen_fd_.get(); }

  struct Stats {
    size_t connections = 0;
    uint64_t accepted = 0;
    uint64_t evicted = 0;
    uint64_t body_bytes_in_flight = 0;
  };
  Stats stats() const;

  // ConnectionHost
  const HttpLimits& limits() const override { return limits_; }
  sd_event* event() const override { return event_; }
  std::span<char> read_buffer() override { return read_buffer_; }
  bool reserve_body_bytes(uint64_t n) override;
  void release_body_bytes(uint64_t n) override;
  void dispatch(HttpRequest&& request, Responder respond) override;
  void connection_closed(Connection* c) override;

 private:
  HttpServer() = default;

  static int on_listen(sd_event_source*, int, uint32_t, void* userdata);
  static int on_resume(sd_event_source*, uint64_t, void* userdata);
  void accept_ready();
  // Closes the connection that should give way, if there is one, but never
  // one of the `unread` newest: accepted in this wakeup, they have not had
  // their first read yet, and a delivery's request may be waiting in one.
  enum class Room { made, after_reads, none };
  Room make_room(size_t unread);
  void pause_accepting(uint64_t for_usec);
  void resume_accepting();
  std::vector<std::shared_ptr<Connection>> snapshot() const;

  sd_event* event_ = nullptr;
  UniqueFd listen_fd_;
  bus::SourcePtr listen_source_;
  bus::SourcePtr resume_timer_;
  HttpLimits limits_;
  RequestHandler handler_;
  std::list<std::shared_ptr<Connection>> connections_;  // oldest first
  std::vector<char> read_buffer_ = std::vector<char>(256 * 1024);
  uint64_t in_flight_ = 0;
  uint64_t accepted_ = 0, evicted_ = 0;
  int last_accept_errno_ = 0;
  bool paused_ = false;
  bool stopping_ = false;
};

}  // namespace bb::webhookd
