#include "exec/supervisor_wire.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace bb::exec::wire {

Status send(int socket, const nlohmann::json& message, const std::vector<int>& fds) {
  const std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxMessage)
    return make_error(Errc::invalid_argument, "the message for the supervisor is " + std::to_string(text.size()) +
                                                  " bytes, more than " + std::to_string(kMaxMessage));
  if (fds.size() > kMaxFds) return make_error(Errc::invalid_argument, "too many fds for one message");
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  struct iovec iov {const_cast<char*>(text.data()), text.size()};
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent;
  do sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) return errno_error("send to the supervisor's socket", errno);
  if (static_cast<size_t>(sent) != text.size()) return make_error(Errc::io, "a message to the supervisor was cut short");
  return {};
}

Result<Received> receive(int socket) {
  std::string buffer(kMaxMessage + 1, '\0');
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  struct iovec iov {buffer.data(), buffer.size()};
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do n = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) return errno_error("read the supervisor's socket", errno);
  Received out;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < k; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        out.fds.emplace_back(fd);
      }
    }
  if (n == 0) {
    out.closed = true;
    return out;
  }
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) return make_error(Errc::parse, "a supervisor message was cut short");
  buffer.resize(static_cast<size_t>(n));
  out.message = nlohmann::json::parse(buffer, nullptr, false);
  if (!out.message.is_object()) return make_error(Errc::parse, "a supervisor message is not a JSON object");
  return out;
}

}  // namespace bb::exec::wire
