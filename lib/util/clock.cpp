#include "util/clock.h"

#include <time.h>

namespace bb {

int64_t SystemClock::now_unix() const { return static_cast<int64_t>(::time(nullptr)); }

uint64_t SystemClock::now_monotonic_usec() const {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

std::string format_utc(int64_t unix_seconds) {
  time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm {};
  ::gmtime_r(&t, &tm);
  char buf[32];
  ::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace bb
