// Time is an OS edge: code that decides by time takes a Clock so tests can
// drive it with a FakeClock instead of sleeping.
#pragma once

#include <cstdint>
#include <string>

namespace bb {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock seconds since the epoch (for records people read).
  virtual int64_t now_unix() const = 0;
  // Monotonic microseconds (for leases, timeouts, durations).
  virtual uint64_t now_monotonic_usec() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t now_unix() const override;
  uint64_t now_monotonic_usec() const override;
};

class FakeClock final : public Clock {
 public:
  int64_t now_unix() const override { return unix_; }
  uint64_t now_monotonic_usec() const override { return mono_; }
  void advance_seconds(int64_t s) {
    unix_ += s;
    mono_ += static_cast<uint64_t>(s) * 1000000u;
  }
  void set_unix(int64_t t) { unix_ = t; }

 private:
  int64_t unix_ = 1700000000;
  uint64_t mono_ = 1000000;
};

// RFC 3339 UTC ("2026-11-29T11:50:00Z").
std::string format_utc(int64_t unix_seconds);

}  // namespace bb
