#include "daemon/startup.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>

namespace bb::daemon {

std::string StartupExtender::message(const std::string& status, Duration period) {
  const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(2 * period).count();
  return "EXTEND_TIMEOUT_USEC=" + std::to_string(usec) + "\nSTATUS=" + status;
}

StartupExtender::StartupExtender(std::string status, Duration period, Duration limit)
    : message_(message(status, period)), period_(period) {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (!socket || !*socket) return;
  // The first extension goes out before the work starts: the 90 s may be
  // mostly spent already (a slow bus, a slow disk at boot).
  sd_notify(0, message_.c_str());
  thread_ = std::thread([this, limit] { run(limit); });
}

StartupExtender::~StartupExtender() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StartupExtender::run(Duration limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (wake_.wait_for(lock, period_, [this] { return done_; })) return;
    if (std::chrono::steady_clock::now() >= until) return;  // the timeout may end it now
    sd_notify(0, message_.c_str());
  }
}

}  // namespace bb::daemon
