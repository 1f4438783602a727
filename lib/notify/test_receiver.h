// A webhook receiver on loopback for the tests of notifications (lib/notify's
// and reporterd's): an HTTP server whose requests are read with lib/http's
// parser, answering each with what the test says. Test-only.
#pragma once

#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/request_parser.h"

namespace bb::test {

// Answers each request with `answer` (raw response bytes), or holds it
// unanswered when `answer` is empty; keeps what it received.
class Receiver {
 public:
  explicit Receiver(std::string answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    REQUIRE(::listen(fd_, 8) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~Receiver() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // What it received since the last call.
  std::vector<http::RequestParser> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(got_);
  }
  // The answer to the requests from now on.
  void set_answer(std::string answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(answer);
  }

 private:
  void serve() {
    while (!stop_) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      http::RequestParser parser;
      std::string in;
      char buf[4096];
      while (parser.state() != http::RequestParser::State::complete &&
             parser.state() != http::RequestParser::State::failed) {
        const ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, size_t(n));
        while (parser.parse(in) == http::RequestParser::State::head_done) {
        }
      }
      // Recorded before the answer goes out: a client that has its answer
      // may ask for the requests at once (it did, under ASan, before this
      // thread had recorded it).
      std::string answer;
      {
        std::lock_guard<std::mutex> lock(mu_);
        got_.push_back(std::move(parser));
        answer = answer_;
      }
      if (!answer.empty()) (void)!::write(c, answer.data(), answer.size());
      else while (!stop_ && ::read(c, buf, sizeof buf) > 0) {}  // hold it until the client gives up
      ::close(c);
    }
  }

  std::string answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<http::RequestParser> got_;
};

// A whole HTTP/1.1 response with `status` and `body`.
inline std::string http_response(int status, const std::string& body = "") {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace bb::test
