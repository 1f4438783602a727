#include "liveness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "http/client.h"

namespace bb::webhookd {

namespace {

struct Target {
  sockaddr_storage addr{};
  socklen_t len = 0;
  std::string name;
};

// Where to reach our own listening socket: its address, with a wildcard
// replaced by loopback (IPv4 loopback for a dual-stack [::], which is what
// systemd's ListenStream=PORT binds).
Result<Target> own_address(int listen_fd) {
  Target t;
  t.len = sizeof t.addr;
  if (::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&t.addr), &t.len) < 0)
    return errno_error("getsockname", errno);
  if (t.addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&t.addr);
    int v6only = 0;
    socklen_t n = sizeof v6only;
    ::getsockopt(listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &n);
    if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) && !v6only) {
      uint16_t port = in6->sin6_port;
      sockaddr_in in{};
      in.sin_family = AF_INET;
      in.sin_port = port;
      std::memcpy(&t.addr, &in, sizeof in);
      t.len = sizeof in;
    } else if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr)) {
      in6->sin6_addr = in6addr_loopback;
    }
  }
  char host[INET6_ADDRSTRLEN] = "";
  switch (t.addr.ss_family) {
    case AF_INET: {
      auto* in = reinterpret_cast<sockaddr_in*>(&t.addr);
      if (in->sin_addr.s_addr == htonl(INADDR_ANY)) in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
      t.name = std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
      return t;
    }
    case AF_INET6: {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&t.addr);
      ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
      t.name = "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
      return t;
    }
    case AF_UNIX:
      t.name = reinterpret_cast<sockaddr_un*>(&t.addr)->sun_path;
      return t;
  }
  return make_error(Errc::invalid_argument, "the listening socket has an unknown address family");
}

}  // namespace

LivenessProbe::LivenessProbe(sd_event* event, std::function<int()> listen_fd, std::chrono::microseconds interval)
    : event_(event), listen_fd_(std::move(listen_fd)), interval_(interval) {}

LivenessProbe::~LivenessProbe() = default;

Status LivenessProbe::start() {
  last_success_ = Clock::now();  // just started: give the first probes their time
  sd_event_source* src = nullptr;
  int r = sd_event_add_time_relative(event_, &src, CLOCK_MONOTONIC, 0, 10'000, on_tick, this);
  if (r < 0) return errno_error("add the liveness timer", -r);
  timer_.reset(src);
  return {};
}

std::string LivenessProbe::problem() const {
  auto since = Clock::now() - last_success_;
  if (since <= 2 * interval_) return {};
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(since).count();
  return "no HTTP self-probe of " + (target_.empty() ? std::string("the listening socket") : target_) +
         " succeeded for " + std::to_string(secs) + " s (last: " + last_failure_ + ")";
}

int LivenessProbe::on_tick(sd_event_source* source, uint64_t, void* userdata) {
  auto* self = static_cast<LivenessProbe*>(userdata);
  try {
    if (self->fd_.valid()) self->finish("no answer within " + std::to_string(self->interval_.count() / 1000) + " ms");
    self->begin();
  } catch (...) {  // an sd-event callback: nothing may escape
  }
  sd_event_source_set_time_relative(source, static_cast<uint64_t>(self->interval_.count()));
  sd_event_source_set_enabled(source, SD_EVENT_ONESHOT);
  return 0;
}

void LivenessProbe::begin() {
  int listen_fd = listen_fd_();
  if (listen_fd < 0) {  // stopped accepting on purpose (shutdown): nothing to prove
    last_success_ = Clock::now();
    return;
  }
  auto target = own_address(listen_fd);
  if (!target) return finish(target.error().message);
  target_ = target->name;
  fd_.reset(::socket(target->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd_.valid()) return finish(errno_error("socket", errno).message);
  if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&target->addr), target->len) < 0 && errno != EINPROGRESS)
    return finish(errno_error("connect", errno).message);
  sd_event_source* src = nullptr;
  int r = sd_event_add_io(event_, &src, fd_.get(), EPOLLOUT, on_io, this);
  if (r < 0) return finish(errno_error("watch the probe", -r).message);
  io_.reset(src);
  connected_ = false;
  pending_ = http::request_bytes("GET", "/healthz", target_);
  answer_.clear();
  started_ = Clock::now();
}

int LivenessProbe::on_io(sd_event_source*, int, uint32_t revents, void* userdata) {
  auto* self = static_cast<LivenessProbe*>(userdata);
  try {
    self->step(revents);
  } catch (...) {
    self->finish("probe failed");
  }
  return 0;
}

void LivenessProbe::step(uint32_t revents) {
  if (!connected_) {
    int err = 0;
    socklen_t n = sizeof err;
    ::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &err, &n);
    if (err) return finish(errno_error("connect", err).message);
    connected_ = true;
  }
  if (!pending_.empty() && (revents & EPOLLOUT)) {
    ssize_t w = ::send(fd_.get(), pending_.data(), pending_.size(), MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN) return finish(errno_error("send", errno).message);
    if (w > 0) pending_.erase(0, static_cast<size_t>(w));
    if (pending_.empty()) sd_event_source_set_io_events(io_.get(), EPOLLIN);
    return;
  }
  char buf[4096];
  bool eof = false;
  for (;;) {
    ssize_t r = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (r > 0) {
      answer_.append(buf, static_cast<size_t>(r));
      if (answer_.size() > 64 * 1024) return finish("the answer is too long");
      continue;
    }
    if (r < 0 && errno == EAGAIN) break;
    if (r < 0) return finish(errno_error("recv", errno).message);
    eof = true;
    break;
  }
  auto status = http::response_status(answer_);
  if (!status) {
    if (eof) finish("the connection closed without a complete answer");
    return;  // more to come
  }
  finish(*status == 200 ? "" : "GET /healthz answered " + std::to_string(*status));
}

void LivenessProbe::finish(std::string failure) {
  io_.reset();
  fd_.reset();
  pending_.clear();
  if (failure.empty()) {
    last_success_ = Clock::now();
    last_failure_.clear();
  } else {
    last_failure_ = std::move(failure);
  }
}

}  // namespace bb::webhookd
