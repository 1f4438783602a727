#include "http_server.h"

#include <fcntl.h>
#include <microhttpd.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

#include <nlohmann/json.hpp>

#include "daemon/log.h"

namespace bb::webhookd {

namespace {

constexpr const char* kPath = "/webhook";
constexpr unsigned kConnectionLimit = 128;

std::string error_json(const std::string& message) { return nlohmann::json{{"error", message}}.dump(); }

std::string header(MHD_Connection* c, const char* name) {
  const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
  return v ? v : "";
}

// Queues `answer`; MHD_NO tells MHD to cut the connection when it cannot be
// queued (e.g. mid-body on an MHD that refuses early answers).
MHD_Result queue(MHD_Connection* c, const HttpAnswer& answer, const char* allow = nullptr) {
  MHD_Response* resp = MHD_create_response_from_buffer(answer.json.size(),
                                                       const_cast<char*>(answer.json.data()),
                                                       MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  if (allow) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
  MHD_Result r = MHD_queue_response(c, answer.status, resp);
  MHD_destroy_response(resp);
  return r;
}

void mhd_logger(void*, const char* fmt, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  try {
    std::string line = buf;
    while (!line.empty() && line.back() == '\n') line.pop_back();
    daemon::log_warning("libmicrohttpd: " + line);
  } catch (...) {  // an MHD callback: nothing may escape
  }
}

}  // namespace

// One HTTP request from its headers to its completion. Owned by MHD's
// per-request pointer (a heap shared_ptr) so a Responder that outlives the
// request (it cannot, while suspended, but shutdown is shutdown) finds nothing.
struct HttpServer::Request {
  MHD_Connection* connection = nullptr;
  std::chrono::steady_clock::time_point started;
  HttpRequest request;
  bool handed_over = false;  // the handler has the body
  bool suspended = false;    // waiting for the handler's answer
  bool answered = false;     // a response is queued; ignore further body bytes
  bool too_large = false;    // streamed past the limit: discard the rest, answer 413
  std::optional<HttpAnswer> answer;
};

struct HttpCallbacks {
  using RequestPtr = std::shared_ptr<HttpServer::Request>;
  using Clock = std::chrono::steady_clock;

  // When the connection's current request began: the connection's start, or
  // the end of its previous request (keep-alive). Counting from there, and
  // not from when the headers were complete, catches clients that trickle
  // their headers.
  static void connection(void*, MHD_Connection*, void** socket_context, MHD_ConnectionNotificationCode code) {
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      *socket_context = new (std::nothrow) Clock::time_point(Clock::now());
    } else {
      delete static_cast<Clock::time_point*>(*socket_context);
      *socket_context = nullptr;
    }
  }

  static Clock::time_point* request_start(MHD_Connection* c) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<Clock::time_point*>(info->socket_context) : nullptr;
  }

  static MHD_Result access(void* cls, MHD_Connection* c, const char* url, const char* method,
                           const char*, const char* upload_data, size_t* upload_data_size,
                           void** con_cls) {
    try {
      return handle(static_cast<HttpServer*>(cls), c, url, method, upload_data, upload_data_size,
                    con_cls);
    } catch (const std::exception& e) {
      daemon::log_error(std::string("HTTP request failed: ") + e.what());
      return MHD_NO;
    } catch (...) {
      return MHD_NO;
    }
  }

  static void completed(void* cls, MHD_Connection* c, void** con_cls, MHD_RequestTerminationCode) {
    if (auto* start = request_start(c)) *start = Clock::now();  // the next request starts now
    auto* box = static_cast<RequestPtr*>(*con_cls);
    if (!box) return;
    delete box;  // noexcept
    *con_cls = nullptr;
    --static_cast<HttpServer*>(cls)->open_requests_;
  }

  // Closes the connection without an answer (the only option mid-body).
  static MHD_Result cut(HttpServer::Request& r, const std::string& why) {
    r.answered = true;
    daemon::log_warning("HTTP connection cut: " + why,
                        {{"DELIVERY_ID", r.request.delivery_id}, {"EVENT", r.request.event}});
    return MHD_NO;
  }

  static MHD_Result answer_now(HttpServer::Request& r, HttpAnswer a, const char* allow = nullptr) {
    r.answered = true;
    return queue(r.connection, a, allow);
  }

  static MHD_Result handle(HttpServer* s, MHD_Connection* c, const char* url, const char* method,
                           const char* upload_data, size_t* upload_data_size, void** con_cls) {
    const HttpLimits& limits = s->limits_;
    if (*con_cls == nullptr) {
      // Headers are in; no body byte has been read yet.
      auto* box = new RequestPtr(std::make_shared<HttpServer::Request>());
      *con_cls = box;
      ++s->open_requests_;
      HttpServer::Request& r = **box;
      r.connection = c;
      auto* start = request_start(c);
      r.started = start ? *start : Clock::now();
      MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, limits.request_timeout_seconds);
      if (Clock::now() - r.started > std::chrono::seconds(limits.request_timeout_seconds))
        return answer_now(r, {408, error_json("request headers took longer than " +
                                              std::to_string(limits.request_timeout_seconds) + " s")});
      if (std::strcmp(url, kPath) != 0) return answer_now(r, {404, error_json("not found")});
      if (std::strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        return answer_now(r, {405, error_json("only POST is allowed")}, MHD_HTTP_METHOD_POST);
      std::string length = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
      if (!length.empty()) {
        char* end = nullptr;
        unsigned long long n = std::strtoull(length.c_str(), &end, 10);
        if (end && *end == '\0' && n > limits.max_body_bytes)
          return answer_now(r, {413, error_json("body of " + length + " bytes is over the limit of " +
                                                std::to_string(limits.max_body_bytes))});
        if (end && *end == '\0' && n > 0) r.request.body.reserve(n);
      }
      r.request.event = header(c, "X-GitHub-Event");
      r.request.delivery_id = header(c, "X-GitHub-Delivery");
      r.request.signature = header(c, "X-Hub-Signature-256");
      return MHD_YES;
    }

    HttpServer::Request& r = **static_cast<RequestPtr*>(*con_cls);
    auto too_slow = [&] {
      return std::chrono::steady_clock::now() - r.started >
             std::chrono::seconds(limits.request_timeout_seconds);
    };
    if (*upload_data_size > 0) {
      size_t n = *upload_data_size;
      *upload_data_size = 0;
      if (r.answered) return MHD_YES;  // discarding the rest after an early answer
      // A client trickling bytes never goes idle long enough for MHD's
      // timeout; the total time is bounded here. MHD 0.9.75 cannot answer
      // in the middle of a body, so such a client is cut.
      if (too_slow()) return cut(r, "request body took longer than " +
                                        std::to_string(limits.request_timeout_seconds) + " s");
      if (r.too_large) return MHD_YES;  // discard until the end, then 413
      if (r.request.body.size() + n > limits.max_body_bytes) {
        r.too_large = true;
        r.request.body.clear();
        r.request.body.shrink_to_fit();
        return MHD_YES;
      }
      r.request.body.append(upload_data, n);
      return MHD_YES;
    }
    if (r.answered) return MHD_YES;
    if (r.too_large)
      return answer_now(r, {413, error_json("body is over the limit of " +
                                            std::to_string(limits.max_body_bytes) + " bytes")});
    if (r.answer) return answer_now(r, std::move(*r.answer));  // resumed with the handler's answer
    if (r.handed_over) return MHD_YES;  // not expected: resumed without an answer
    if (too_slow()) return answer_now(r, {408, error_json("request took too long")});

    r.handed_over = true;
    std::weak_ptr<HttpServer::Request> weak = *static_cast<RequestPtr*>(*con_cls);
    Responder respond = [weak, s](HttpAnswer a) {
      auto req = weak.lock();
      if (!req || req->answer || req->answered) return;
      req->answer = std::move(a);
      if (req->suspended) {
        req->suspended = false;
        MHD_resume_connection(req->connection);
        // In external polling mode nothing wakes MHD for a resume (no ITC
        // fd in its epoll set here): run it from the loop right away.
        s->wake();
      }
    };
    s->handler_(std::move(r.request), respond);
    if (r.answer) return answer_now(r, std::move(*r.answer));  // answered synchronously
    r.suspended = true;
    MHD_suspend_connection(c);
    s->suspended_.push_back(*static_cast<RequestPtr*>(*con_cls));
    return MHD_YES;
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(sd_event* event, int listen_fd,
                                                      HttpLimits limits, RequestHandler handler) {
  std::unique_ptr<HttpServer> s(new HttpServer());
  s->event_ = event;
  s->limits_ = limits;
  s->handler_ = std::move(handler);
  int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    int err = errno;
    ::close(listen_fd);
    return errno_error("make the listening socket non-blocking", err);
  }
  s->daemon_ = MHD_start_daemon(
      MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, nullptr, nullptr,
      &HttpCallbacks::access, s.get(),
      MHD_OPTION_EXTERNAL_LOGGER, &mhd_logger, nullptr,
      MHD_OPTION_LISTEN_SOCKET, listen_fd,
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(limits.request_timeout_seconds),
      MHD_OPTION_CONNECTION_LIMIT, kConnectionLimit,
      MHD_OPTION_NOTIFY_COMPLETED, &HttpCallbacks::completed, s.get(),
      MHD_OPTION_NOTIFY_CONNECTION, &HttpCallbacks::connection, nullptr,
      MHD_OPTION_END);
  if (!s->daemon_) {
    ::close(listen_fd);
    return make_error(Errc::io, "libmicrohttpd could not start on the listening socket");
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(s->daemon_, MHD_DAEMON_INFO_EPOLL_FD);
  if (!info) return make_error(Errc::internal, "libmicrohttpd has no epoll fd");
  sd_event_source* src = nullptr;
  int r = sd_event_add_io(event, &src, info->epoll_fd, EPOLLIN, on_epoll, s.get());
  if (r < 0) return errno_error("watch the HTTP server", -r);
  s->io_source_.reset(src);
  r = sd_event_add_time(event, &src, CLOCK_MONOTONIC, UINT64_MAX, 0, on_timer, s.get());
  if (r < 0) return errno_error("add the HTTP timer", -r);
  s->timer_source_.reset(src);
  if (auto st = s->arm(); !st) return st.error();
  return s;
}

HttpServer::~HttpServer() {
  // MHD aborts the process if stopped with suspended connections.
  answer_all_waiting({503, error_json("benchbox-webhookd is shutting down")});
  io_source_.reset();
  timer_source_.reset();
  if (daemon_) MHD_stop_daemon(daemon_);
}

void HttpServer::stop_accepting() {
  if (quiesced_ || !daemon_) return;
  quiesced_ = true;
  MHD_socket fd = MHD_quiesce_daemon(daemon_);
  if (fd != MHD_INVALID_SOCKET) ::close(fd);
}

void HttpServer::answer_all_waiting(const HttpAnswer& answer) {
  for (auto& weak : suspended_) {
    auto r = weak.lock();
    if (!r || !r->suspended) continue;
    r->answer = answer;
    r->suspended = false;
    MHD_resume_connection(r->connection);
  }
  suspended_.clear();
  run_once();
}

void HttpServer::run_once() {
  MHD_run(daemon_);
  if (suspended_.size() > 64)
    std::erase_if(suspended_, [](const auto& w) {
      auto r = w.lock();
      return !r || !r->suspended;
    });
  (void)arm();
}

// MHD says how long it may wait before it needs to run again (timeouts,
// data it already read); 0 means now.
Status HttpServer::arm() {
  MHD_UNSIGNED_LONG_LONG ms = 0;
  if (MHD_get_timeout(daemon_, &ms) != MHD_YES) {
    sd_event_source_set_enabled(timer_source_.get(), SD_EVENT_OFF);
    return {};
  }
  uint64_t now = 0;
  sd_event_now(event_, CLOCK_MONOTONIC, &now);
  int r = sd_event_source_set_time(timer_source_.get(), now + ms * 1000);
  if (r >= 0) r = sd_event_source_set_enabled(timer_source_.get(), SD_EVENT_ONESHOT);
  if (r < 0) return errno_error("arm the HTTP timer", -r);
  return {};
}

void HttpServer::wake() {
  sd_event_source_set_time(timer_source_.get(), 0);
  sd_event_source_set_enabled(timer_source_.get(), SD_EVENT_ONESHOT);
}

int HttpServer::on_epoll(sd_event_source*, int, uint32_t, void* userdata) {
  static_cast<HttpServer*>(userdata)->run_once();
  return 0;
}

int HttpServer::on_timer(sd_event_source*, uint64_t, void* userdata) {
  static_cast<HttpServer*>(userdata)->run_once();
  return 0;
}

}  // namespace bb::webhookd
