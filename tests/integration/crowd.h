// A hostile crowd for webhookd's door: N connections on 127.0.0.1 that each
// trickle one header byte per `pace` and never finish a request, and that
// reconnect at once whenever the server cuts them, so the crowd stays N
// strong for as long as it lives. Used by the door tests and bench/webhook.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

namespace bb::test {

class TrickleCrowd {
 public:
  TrickleCrowd(int port, size_t size, std::chrono::milliseconds pace = std::chrono::milliseconds(100));
  ~TrickleCrowd();  // stops and closes every connection
  TrickleCrowd(const TrickleCrowd&) = delete;
  TrickleCrowd& operator=(const TrickleCrowd&) = delete;

  size_t cut() const { return cut_; }                  // connections the server closed
  size_t answered_408() const { return answered_408_; }  // ... after answering 408
  size_t answered_503() const { return answered_503_; }  // ... after answering 503

 private:
  void run();

  int port_;
  size_t size_;
  std::chrono::milliseconds pace_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> cut_{0}, answered_408_{0}, answered_503_{0};
  std::thread thread_;
};

}  // namespace bb::test
