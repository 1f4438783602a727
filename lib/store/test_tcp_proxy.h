// A loopback TCP proxy to a unix socket that a test controls: it forwards
// both ways until told to black-hole, when it stops forwarding (and
// reading) without closing anything, as a dropped link or a stopped VM
// looks to the client. Each accepted connection gets a connection of its
// own to the target. It counts what the clients send: a client that
// waits for each answer before it sends again (libpq, one statement at a
// time) sends once per round trip. Test-only; one thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace bb::store::testdb {

// The unix socket of the server a libpq connection string names
// ("host=DIR port=P ..."): what a proxy to it connects to.
inline std::string postgres_socket(const std::string& conninfo) {
  auto word = [&](const std::string& key) {
    const size_t at = conninfo.find(key + "=");
    if (at == std::string::npos) return std::string();
    const size_t begin = at + key.size() + 1;
    return conninfo.substr(begin, conninfo.find(' ', begin) - begin);
  };
  return word("host") + "/.s.PGSQL." + word("port");
}

class TcpProxy {
 public:
  explicit TcpProxy(std::string unix_target) : target_(std::move(unix_target)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(listen_fd_, 16) == 0 &&
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~TcpProxy() {
    stop_ = true;
    thread_.join();
    for (auto& p : pairs_) {
      ::close(p.client);
      ::close(p.server);
    }
    ::close(listen_fd_);
  }
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  void black_hole(bool on) { black_hole_ = on; }
  // Reads of client data forwarded to the server so far.
  int client_sends() const { return client_sends_; }

 private:
  struct Pair {
    int client, server;
  };

  int connect_target() const {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, target_.c_str(), sizeof a.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  // Copies what `from` has to `to`; false when either side is done.
  static bool pump(int from, int to) {
    char buf[16384];
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n <= 0) return false;
    for (ssize_t off = 0; off < n;) {
      const ssize_t w = ::send(to, buf + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);  // no SIGPIPE
      if (w <= 0) return false;
      off += w;
    }
    return true;
  }

  void loop() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      if (!black_hole_)
        for (const auto& p : pairs_) {
          fds.push_back({p.client, POLLIN, 0});
          fds.push_back({p.server, POLLIN, 0});
        }
      if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) {
          int s = connect_target();
          if (s < 0) ::close(c);
          else pairs_.push_back({c, s});
        }
      }
      if (black_hole_) continue;
      std::vector<Pair> alive;
      for (size_t i = 0; i < pairs_.size(); ++i) {
        const Pair& p = pairs_[i];
        if (1 + 2 * i + 1 >= fds.size()) {  // accepted in this round
          alive.push_back(p);
          continue;
        }
        bool ok = true;
        if (fds[1 + 2 * i].revents) {
          ok = pump(p.client, p.server);
          if (ok) ++client_sends_;
        }
        if (ok && fds[2 + 2 * i].revents) ok = pump(p.server, p.client);
        if (ok) {
          alive.push_back(p);
        } else {
          ::close(p.client);
          ::close(p.server);
        }
      }
      pairs_ = std::move(alive);
    }
  }

  std::string target_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false}, black_hole_{false};
  std::atomic<int> client_sends_{0};
  std::vector<Pair> pairs_;
  std::thread thread_;
};

}  // namespace bb::store::testdb
