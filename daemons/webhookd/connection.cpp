#include "connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "http/form.h"

namespace bb::webhookd {

namespace {

using std::chrono::seconds;

constexpr const char* kWebhookPath = "/webhook";
constexpr const char* kHealthPath = "/healthz";
// After a refusal, what the client still sends is read and dropped this
// long, so it reads our answer rather than a reset (nginx's lingering close).
constexpr auto kLinger = std::chrono::seconds(2);
// Never expected: the handler always answers within its queue timeouts.
// A request it forgot must still not hold a connection slot for ever.
constexpr auto kHandlerDeadline = std::chrono::seconds(120);
constexpr size_t kReadBudgetPerWakeup = 1 << 20;  // then let other connections run
constexpr const char* kRetryAfterSeconds = "5";

uint64_t monotonic_usec(Clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

http::Response with_header(http::Response r, std::string name, std::string value) {
  r.headers.emplace_back(std::move(name), std::move(value));
  return r;
}

}  // namespace

Connection::Connection(ConnectionHost& host, UniqueFd fd, std::string peer)
    : host_(host), fd_(std::move(fd)), peer_(std::move(peer)),
      parser_({host.limits().max_header_bytes, host.limits().max_body_bytes}) {
  request_started_ = last_progress_ = Clock::now();
}

Connection::~Connection() = default;

Status Connection::start() {
  sd_event_source* src = nullptr;
  int r = sd_event_add_io(host_.event(), &src, fd_.get(), EPOLLIN, on_io, this);
  if (r < 0) return errno_error("watch a connection", -r);
  io_.reset(src);
  r = sd_event_add_time(host_.event(), &src, CLOCK_MONOTONIC, UINT64_MAX, 10'000, on_timer, this);
  if (r < 0) return errno_error("add a connection timer", -r);
  timer_.reset(src);
  rearm();
  return {};
}

int Connection::on_io(sd_event_source*, int, uint32_t revents, void* userdata) {
  auto self = static_cast<Connection*>(userdata)->shared_from_this();
  try {
    if ((revents & EPOLLOUT) && self->phase_ != Phase::lingering) self->on_writable();
    if (!self->closed_ && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))) self->on_readable();
    if (!self->closed_) self->rearm();
  } catch (...) {  // an sd-event callback: nothing may escape
    self->close();
  }
  return 0;
}

int Connection::on_timer(sd_event_source*, uint64_t, void* userdata) {
  auto self = static_cast<Connection*>(userdata)->shared_from_this();
  try {
    self->on_deadline(Clock::now());
    if (!self->closed_) self->rearm();
  } catch (...) {
    self->close();
  }
  return 0;
}

void Connection::poll_once() {
  auto self = shared_from_this();
  if (phase_ == Phase::writing) flush();
  if (!closed_ && phase_ != Phase::waiting && phase_ != Phase::writing) on_readable();
  if (!closed_) on_deadline(Clock::now());
  if (!closed_) rearm();
}

void Connection::on_readable() {
  std::span<char> buf = host_.read_buffer();
  size_t budget = kReadBudgetPerWakeup;
  while (!closed_ && budget > 0) {
    ssize_t n = ::recv(fd_.get(), buf.data(), buf.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return close();
    }
    if (n == 0) {  // the client is done sending
      if (phase_ == Phase::reading) process({});  // what it sent may be a whole request
      if (phase_ == Phase::waiting || phase_ == Phase::writing) return;  // still answered
      return close();
    }
    last_progress_ = Clock::now();
    budget -= std::min(budget, static_cast<size_t>(n));
    if (phase_ == Phase::lingering) continue;  // dropped
    process(std::string_view(buf.data(), static_cast<size_t>(n)));
    if (phase_ == Phase::waiting || phase_ == Phase::writing) break;
  }
}

void Connection::on_writable() { flush(); }

// `fresh` is what was just read. It is parsed where it lies when nothing
// is buffered (a body streams from the read buffer into the request with
// one copy); whatever is left is kept in in_.
void Connection::process(std::string_view fresh) {
  if (closed_) return;
  if (in_process_ || !in_.empty()) {
    in_.append(fresh);
    fresh = {};
    if (in_process_) return;
  }
  in_process_ = true;
  auto pending = [&] { return !in_.empty() || !fresh.empty(); };
  while (!closed_ && ((phase_ == Phase::idle && pending()) || phase_ == Phase::reading)) {
    phase_ = Phase::reading;
    size_t used = 0;
    auto state = in_.empty() ? parser_.parse(fresh, used) : parser_.parse(std::string_view(in_), used);
    if (in_.empty()) {
      fresh.remove_prefix(used);
    } else {
      in_.erase(0, used);
    }
    if (state == http::RequestParser::State::head_done) {
      head_seen_ = true;
      if (!check_head()) break;
      continue;
    }
    if (state == http::RequestParser::State::failed) {
      respond(http::error(parser_.failure().status, parser_.failure().message), true);
      break;
    }
    account_body();
    if (phase_ != Phase::reading) break;  // refused: over the in-flight cap
    if (state == http::RequestParser::State::need_more) break;
    // complete
    if (health_) {
      respond(http::json(200, {{"status", "serving"}}), !parser_.head().keep_alive);
    } else {
      hand_over();
    }
  }
  // Kept for the next request, unless this connection is done reading.
  if (!closed_ && phase_ != Phase::lingering) in_.append(fresh);
  in_process_ = false;
}

// The request is refused here, before its body is read, whenever the
// header alone says it cannot succeed.
bool Connection::check_head() {
  const http::RequestHead& head = parser_.head();
  const HttpLimits& limits = host_.limits();
  head_only_ = head.method == "HEAD";
  std::string path = head.target.substr(0, head.target.find('?'));
  auto refuse = [&](http::Response r) {
    respond(std::move(r), true);
    return false;
  };
  std::string te = head.field("Transfer-Encoding");
  if (!te.empty() && !(head.count("Transfer-Encoding") == 1 && iequals(te, "chunked")))
    return refuse(http::error(501, "Transfer-Encoding '" + te + "' is not supported; only chunked is"));
  health_ = path == kHealthPath;
  if (health_) {
    if (head.method != "GET" && head.method != "HEAD")
      return refuse(with_header(http::error(405, "only GET is allowed"), "Allow", "GET, HEAD"));
    return true;
  }
  if (path != kWebhookPath) return refuse(http::error(404, "not found"));
  if (head.method != "POST")
    return refuse(with_header(http::error(405, "only POST is allowed"), "Allow", "POST"));
  std::string type = http::media_type(head.field("Content-Type"));
  if (type != "application/json" && type != "application/x-www-form-urlencoded")
    return refuse(http::error(415, (type.empty() ? std::string("no Content-Type")
                                                 : "Content-Type '" + type + "' is not accepted") +
                                       "; send application/json or application/x-www-form-urlencoded"));
  if (head.content_length && *head.content_length > limits.max_body_bytes)
    return refuse(http::error(413, "body of " + std::to_string(*head.content_length) +
                                       " bytes is over the limit of " + std::to_string(limits.max_body_bytes)));
  bool has_body = head.chunked || head.content_length.value_or(0) > 0;
  if (has_body && iequals(head.field("Expect"), "100-continue")) {
    out_ += http::continue_response();
    flush();
  }
  return !closed_;
}

// Bytes count against the in-flight cap as they arrive, never as announced.
void Connection::account_body() {
  uint64_t have = parser_.body_bytes();
  if (have <= body_counted_) return;
  if (!host_.reserve_body_bytes(have - body_counted_)) {
    respond(with_header(http::error(503, "too many webhook bytes in flight (over " +
                                             std::to_string(host_.limits().max_body_bytes_in_flight) +
                                             "); retry later"),
                        "Retry-After", kRetryAfterSeconds),
            true);
    return;
  }
  body_counted_ = have;
}

void Connection::release_body() {
  if (body_counted_) host_.release_body_bytes(body_counted_);
  body_counted_ = 0;
}

void Connection::hand_over() {
  const http::RequestHead& head = parser_.head();
  phase_ = Phase::waiting;
  last_progress_ = Clock::now();
  watch(0);  // read nothing more until answered
  uint64_t seq = ++request_seq_;
  HttpRequest request;
  request.event = head.field("X-GitHub-Event");
  request.delivery_id = head.field("X-GitHub-Delivery");
  request.signature = head.field("X-Hub-Signature-256");
  request.content_type = http::media_type(head.field("Content-Type"));
  request.peer = peer_;
  request.body = parser_.take_body();
  std::weak_ptr<Connection> weak = weak_from_this();
  host_.dispatch(std::move(request), [weak, seq](http::Response response) {
    auto c = weak.lock();
    if (!c || c->closed_ || c->phase_ != Phase::waiting || c->request_seq_ != seq) return;
    c->respond(std::move(response), !c->parser_.head().keep_alive);
    if (!c->closed_ && !c->in_process_) c->rearm();
  });
}

void Connection::answer_if_waiting(const http::Response& response) {
  if (phase_ == Phase::waiting) respond(response, true);
}

void Connection::respond(http::Response response, bool close_after) {
  release_body();
  close_after_ = close_after;
  out_ += http::serialize(response, !close_after, parser_.head().version, head_only_);
  phase_ = Phase::writing;
  flush();
}

void Connection::flush() {
  while (!out_.empty()) {
    ssize_t n = ::send(fd_.get(), out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return watch(EPOLLOUT);
      return close();
    }
    out_.erase(0, static_cast<size_t>(n));
    last_progress_ = Clock::now();
  }
  if (phase_ == Phase::writing) return finished_writing();
  watch(EPOLLIN);  // a 100 Continue went out; the body comes next
}

void Connection::finished_writing() {
  if (close_after_) {
    ::shutdown(fd_.get(), SHUT_WR);
    phase_ = Phase::lingering;
    linger_until_ = Clock::now() + kLinger;
    in_.clear();
    return watch(EPOLLIN);
  }
  parser_.reset();
  head_seen_ = health_ = false;
  phase_ = Phase::idle;
  request_started_ = last_progress_ = Clock::now();
  watch(EPOLLIN);
  if (!in_.empty()) process({});  // pipelined; inside process() its loop carries on
}

void Connection::on_deadline(Clock::time_point now) {
  const HttpLimits& l = host_.limits();
  auto idle_end = last_progress_ + seconds(l.idle_timeout_seconds);
  switch (phase_) {
    case Phase::idle:
      if (now >= request_started_ + seconds(l.idle_timeout_seconds)) close();
      return;
    case Phase::reading: {
      unsigned limit = head_seen_ ? l.request_timeout_seconds : l.header_timeout_seconds;
      if (now >= request_started_ + seconds(limit))
        return respond(http::error(408, std::string(head_seen_ ? "request body" : "request headers") +
                                            " took longer than " + std::to_string(limit) + " s"),
                       true);
      if (now >= idle_end)
        return respond(http::error(408, "no request bytes for " + std::to_string(l.idle_timeout_seconds) + " s"),
                       true);
      return;
    }
    case Phase::waiting:
      if (now >= last_progress_ + kHandlerDeadline)
        respond(http::error(503, "benchbox-webhookd did not finish this delivery in time"), true);
      return;
    case Phase::writing:
      if (now >= idle_end) close();
      return;
    case Phase::lingering:
      if (now >= linger_until_) close();
      return;
  }
}

void Connection::rearm() {
  if (closed_ || !timer_) return;
  const HttpLimits& l = host_.limits();
  Clock::time_point when;
  auto idle_end = last_progress_ + seconds(l.idle_timeout_seconds);
  switch (phase_) {
    case Phase::idle: when = request_started_ + seconds(l.idle_timeout_seconds); break;
    case Phase::reading:
      when = std::min(idle_end, request_started_ + seconds(head_seen_ ? l.request_timeout_seconds
                                                                       : l.header_timeout_seconds));
      break;
    case Phase::waiting: when = last_progress_ + kHandlerDeadline; break;
    case Phase::writing: when = idle_end; break;
    case Phase::lingering: when = linger_until_; break;
  }
  sd_event_source_set_time(timer_.get(), monotonic_usec(when));
  sd_event_source_set_enabled(timer_.get(), SD_EVENT_ONESHOT);
}

void Connection::watch(uint32_t events) {
  if (!io_) return;
  if (events == 0) {
    sd_event_source_set_enabled(io_.get(), SD_EVENT_OFF);
    return;
  }
  sd_event_source_set_io_events(io_.get(), events);
  sd_event_source_set_enabled(io_.get(), SD_EVENT_ON);
}

void Connection::evict() {
  if (phase_ == Phase::reading) {
    std::string bytes = http::serialize(
        with_header(http::error(503, "too many connections; the oldest unfinished request gave way"),
                    "Retry-After", kRetryAfterSeconds),
        false);
    (void)::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  close();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  release_body();
  io_.reset();
  timer_.reset();
  fd_.reset();
  host_.connection_closed(this);
}

}  // namespace bb::webhookd
