// StartupExtender against a NOTIFY_SOCKET of the test's own, read as
// systemd reads it: one datagram per sd_notify().
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "daemon/startup.h"

using namespace bb;
using namespace std::chrono_literals;

namespace {

// systemd's end of NOTIFY_SOCKET, set in the environment while it lives.
class NotifySocket {
 public:
  NotifySocket() {
    char tmpl[] = "/tmp/bb-notify-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = dir_ + "/notify";
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path_.c_str(), sizeof a.sun_path - 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  }
  ~NotifySocket() {
    ::unsetenv("NOTIFY_SOCKET");
    ::close(fd_);
    std::filesystem::remove_all(dir_);
  }
  // The next message, or nullopt when none comes within `wait`.
  std::optional<std::string> next(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, int(wait.count())) != 1) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0) return std::nullopt;
    return std::string(buf, size_t(n));
  }

 private:
  std::string dir_, path_;
  int fd_ = -1;
};

}  // namespace

TEST_CASE("StartupExtender: asks for two periods more every period, and stops when it goes") {
  NotifySocket systemd;
  const std::string expected = daemon::StartupExtender::message("migrating", 20ms);
  CHECK(expected == "EXTEND_TIMEOUT_USEC=40000\nSTATUS=migrating");
  {
    daemon::StartupExtender extend("migrating", 20ms, 1h);
    // The first at once, then one a period; the deadline is only for a
    // machine that stalls the thread.
    for (int i = 0; i < 4; ++i) {
      INFO("message " << i);
      CHECK(systemd.next(10s) == expected);
    }
  }
  // Joined: whatever it sent is queued already, and nothing follows.
  while (systemd.next(0ms)) {
  }
  CHECK_FALSE(systemd.next(100ms));
}

TEST_CASE("StartupExtender: no extension beyond its limit") {
  NotifySocket systemd;
  daemon::StartupExtender extend("waiting for the database", 10ms, 0ms);
  CHECK(systemd.next(10s) == daemon::StartupExtender::message("waiting for the database", 10ms));
  CHECK_FALSE(systemd.next(100ms));  // ten periods: the limit was reached at the first
}

TEST_CASE("StartupExtender: nothing without NOTIFY_SOCKET") {
  ::unsetenv("NOTIFY_SOCKET");
  daemon::StartupExtender extend("migrating", 1ms, 1h);  // no thread: destroyed at once
}
