#include "http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "daemon/log.h"

namespace bb::webhookd {

namespace {

constexpr int kAcceptsPerWakeup = 64;            // then let the connections run
constexpr uint64_t kAcceptRetryUsec = 100'000;  // after EMFILE and the like

std::string peer_name(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "local";
}

// Which connection gives way first: one already answered, then the oldest
// request not yet complete, counted from when it began, whether it has sent
// bytes or not. Age, not silence, decides: a connection accepted a moment
// ago has sent nothing yet either, and it is the one most likely to be a
// real delivery.
int eviction_rank(const Connection& c) {
  switch (c.phase()) {
    case Connection::Phase::lingering: return 0;
    case Connection::Phase::idle:
    case Connection::Phase::reading: return 1;
    default: return -1;  // with the handler or being answered: never
  }
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::start(sd_event* event, int listen_fd, HttpLimits limits,
                                                      RequestHandler handler) {
  std::unique_ptr<HttpServer> s(new HttpServer());
  s->event_ = event;
  s->listen_fd_.reset(listen_fd);
  s->limits_ = limits;
  s->handler_ = std::move(handler);
  int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return errno_error("make the listening socket non-blocking", errno);
  sd_event_source* src = nullptr;
  int r = sd_event_add_io(event, &src, listen_fd, EPOLLIN, on_listen, s.get());
  if (r < 0) return errno_error("watch the listening socket", -r);
  s->listen_source_.reset(src);
  // Accepting waits for the connections' reads: a connection accepted in
  // one wakeup has its request read before the next wakeup's accepts may
  // need room (make_room). Without it the listening socket, still ready,
  // could come first, and the crowded-wakeup case of
  // integration-webhookd-door fails.
  r = sd_event_source_set_priority(src, SD_EVENT_PRIORITY_NORMAL + 1);
  if (r < 0) return errno_error("order the listening socket after the connections", -r);
  r = sd_event_add_time(event, &src, CLOCK_MONOTONIC, UINT64_MAX, 10'000, on_resume, s.get());
  if (r < 0) return errno_error("add the accept timer", -r);
  s->resume_timer_.reset(src);
  sd_event_source_set_enabled(src, SD_EVENT_OFF);
  return s;
}

HttpServer::~HttpServer() {
  stopping_ = true;
  answer_all_waiting(http::error(503, "benchbox-webhookd is shutting down"));
  for (auto& c : snapshot()) c->close();
}

int HttpServer::on_listen(sd_event_source*, int, uint32_t, void* userdata) {
  try {
    static_cast<HttpServer*>(userdata)->accept_ready();
  } catch (const std::exception& e) {  // an sd-event callback: nothing may escape
    daemon::log_error(std::string("accepting a connection failed: ") + e.what());
  } catch (...) {
    daemon::log_error("accepting a connection failed");
  }
  return 0;
}

int HttpServer::on_resume(sd_event_source*, uint64_t, void* userdata) {
  static_cast<HttpServer*>(userdata)->resume_accepting();
  return 0;
}

void HttpServer::accept_ready() {
  for (int i = 0; i < kAcceptsPerWakeup && listen_fd_.valid(); ++i) {
    if (connections_.size() >= limits_.max_connections) {
      Room room = make_room(static_cast<size_t>(i));
      // Only this wakeup's connections could give way: the listening
      // socket is ready again once they have been read.
      if (room == Room::after_reads) return;
      // Everyone holds a request the queue is working on; the backlog waits
      // until one of them closes (connection_closed resumes).
      if (room == Room::none) return pause_accepting(0);
    }
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = ::accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      // Out of descriptors or memory, or the socket itself broke: try again
      // shortly (the liveness probe notices if it never recovers). Logged
      // once per kind of failure, not once per retry.
      if (errno != last_accept_errno_) {
        last_accept_errno_ = errno;
        daemon::log_warning(std::string("cannot accept connections for now: ") + std::strerror(errno),
                            {{"CONNECTIONS", std::to_string(connections_.size())}});
      }
      return pause_accepting(kAcceptRetryUsec);
    }
    last_accept_errno_ = 0;
    auto c = std::make_shared<Connection>(*this, UniqueFd(fd), peer_name(addr));
    connections_.push_back(c);
    c->position = std::prev(connections_.end());
    ++accepted_;
    if (auto st = c->start(); !st) {
      daemon::log_error("cannot serve a connection: " + st.error().message);
      c->close();
    }
  }
}

HttpServer::Room HttpServer::make_room(size_t unread) {
  std::shared_ptr<Connection> victim;
  const size_t candidates = connections_.size() - std::min(unread, connections_.size());
  bool any_unread = false;
  size_t index = 0;
  for (const auto& c : connections_) {
    const bool accepted_now = index++ >= candidates;
    int rank = eviction_rank(*c);
    if (rank < 0) continue;
    if (accepted_now) {
      any_unread = true;
      continue;
    }
    if (!victim || rank < eviction_rank(*victim) ||
        (rank == eviction_rank(*victim) && c->request_started() < victim->request_started()))
      victim = c;
  }
  if (!victim) return any_unread ? Room::after_reads : Room::none;
  ++evicted_;
  victim->evict();
  return Room::made;
}

void HttpServer::pause_accepting(uint64_t for_usec) {
  paused_ = true;
  sd_event_source_set_enabled(listen_source_.get(), SD_EVENT_OFF);
  if (for_usec == 0) return;
  uint64_t now = 0;
  sd_event_now(event_, CLOCK_MONOTONIC, &now);
  sd_event_source_set_time(resume_timer_.get(), now + for_usec);
  sd_event_source_set_enabled(resume_timer_.get(), SD_EVENT_ONESHOT);
}

void HttpServer::resume_accepting() {
  if (!paused_ || stopping_ || !listen_source_) return;
  paused_ = false;
  sd_event_source_set_enabled(listen_source_.get(), SD_EVENT_ON);
}

void HttpServer::stop_accepting() {
  if (stopping_) return;
  stopping_ = true;
  listen_source_.reset();
  resume_timer_.reset();
  listen_fd_.reset();
  // Idle connections stay: one accepted just before the signal may not have
  // sent its request yet. The drain gives them a moment, then closes them.
}

size_t HttpServer::open_requests() const {
  size_t n = 0;
  for (const auto& c : connections_) {
    auto p = c->phase();
    n += (p == Connection::Phase::reading || p == Connection::Phase::waiting || p == Connection::Phase::writing);
  }
  return n;
}

std::vector<std::shared_ptr<Connection>> HttpServer::snapshot() const {
  return {connections_.begin(), connections_.end()};
}

void HttpServer::run_once() {
  for (auto& c : snapshot()) c->poll_once();
}

void HttpServer::answer_all_waiting(const http::Response& response) {
  for (auto& c : snapshot()) c->answer_if_waiting(response);
}

HttpServer::Stats HttpServer::stats() const { return {connections_.size(), accepted_, evicted_, in_flight_}; }

bool HttpServer::reserve_body_bytes(uint64_t n) {
  if (in_flight_ + n > limits_.max_body_bytes_in_flight) return false;
  in_flight_ += n;
  return true;
}

void HttpServer::release_body_bytes(uint64_t n) { in_flight_ -= std::min(n, in_flight_); }

void HttpServer::dispatch(HttpRequest&& request, Responder respond) {
  handler_(std::move(request), std::move(respond));
}

void HttpServer::connection_closed(Connection* c) {
  // Whoever called close() holds a reference (callbacks hold `self`,
  // server loops a snapshot), so erasing here does not destroy `c` under it.
  connections_.erase(c->position);
  // A slot (or, after EMFILE, a descriptor) is free again.
  resume_accepting();
}

}  // namespace bb::webhookd
