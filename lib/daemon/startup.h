// Keeps systemd waiting while a daemon does slow start-up work before it
// can say READY=1, such as a database migration that rebuilds an index over
// millions of rows. systemd kills a Type=notify service that is not ready
// within TimeoutStartSec= (90 s by default), and a killed migration rolls
// back and runs again at the next start, which would fail the same way for
// ever. While one of these lives, a thread sends EXTEND_TIMEOUT_USEC= (and a
// STATUS= line saying what the daemon is doing) every `period`, each asking
// for two periods more, so the timeout runs out only `2 * period` after the
// daemon stopped sending: once the work is done, or when it hangs in a way
// that takes this thread down with it. The whole extension is bounded by
// `limit`, so a start-up that waits for ever (a database lock nobody lets
// go of) still ends in a timeout and a restart.
//
// Without NOTIFY_SOCKET (not started by systemd, tests) it does nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace bb::daemon {

class StartupExtender {
 public:
  using Duration = std::chrono::steady_clock::duration;
  static constexpr Duration kPeriod = std::chrono::seconds(10);
  static constexpr Duration kLimit = std::chrono::hours(1);

  explicit StartupExtender(std::string status, Duration period = kPeriod, Duration limit = kLimit);
  ~StartupExtender();
  StartupExtender(const StartupExtender&) = delete;
  StartupExtender& operator=(const StartupExtender&) = delete;

  // The line one extension sends: "EXTEND_TIMEOUT_USEC=<2 periods>\nSTATUS=...".
  static std::string message(const std::string& status, Duration period);

 private:
  void run(Duration limit);

  const std::string message_;
  const Duration period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace bb::daemon
