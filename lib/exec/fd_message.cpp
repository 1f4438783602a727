#include "exec/fd_message.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace bb::exec {

ssize_t send_with_fds(int socket, const void* data, size_t size, const std::vector<int>& fds) {
  if (fds.size() > kMaxPassedFds) {
    errno = EINVAL;
    return -1;
  }
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
  struct iovec iov {const_cast<void*>(data), size};
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
  return sent;
}

FdDatagram receive_with_fds(int socket, void* buffer, size_t size) {
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)];
  struct iovec iov {buffer, size};
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  FdDatagram out;
  do out.size = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  while (out.size < 0 && errno == EINTR);
  if (out.size < 0) return out;
  out.flags = msg.msg_flags;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < k; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        out.fds.emplace_back(fd);
      }
    }
  return out;
}

}  // namespace bb::exec
