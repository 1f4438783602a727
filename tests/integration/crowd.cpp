#include "crowd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace bb::test {

namespace {

constexpr const char kHead[] = "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

struct Member {
  int fd = -1;
  size_t sent = 0;
  std::string answer;
};

}  // namespace

TrickleCrowd::TrickleCrowd(int port, size_t size, std::chrono::milliseconds pace)
    : port_(port), size_(size), pace_(pace), thread_([this] { run(); }) {}

TrickleCrowd::~TrickleCrowd() {
  stop_ = true;
  thread_.join();
}

void TrickleCrowd::run() {
  std::vector<Member> crowd(size_);
  while (!stop_) {
    for (Member& m : crowd) {
      if (m.fd < 0) {
        m = Member{connect_to(port_), 0, {}};
        continue;
      }
      char byte = m.sent < sizeof kHead - 1 ? kHead[m.sent] : 'x';
      bool closed = ::send(m.fd, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EAGAIN;
      ++m.sent;
      char buf[1024];
      for (;;) {
        ssize_t n = ::recv(m.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
          m.answer.append(buf, static_cast<size_t>(n));
          continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) closed = true;
        break;
      }
      if (!closed) continue;
      ++cut_;
      if (m.answer.rfind("HTTP/1.1 408", 0) == 0) ++answered_408_;
      if (m.answer.rfind("HTTP/1.1 503", 0) == 0) ++answered_503_;
      ::close(m.fd);
      m = Member{connect_to(port_), 0, {}};
    }
    std::this_thread::sleep_for(pace_);
  }
  for (Member& m : crowd)
    if (m.fd >= 0) ::close(m.fd);
}

}  // namespace bb::test
