// The receiving end of Database::notify on PostgreSQL: a connection of its
// own that LISTENs on one channel. The owner polls fd() (sd_event) and calls
// drain() when it is readable. When the connection is lost drain() fails;
// the owner listens again (and, having missed notifications, rereads).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::store {

class Listener {
 public:
  static Result<Listener> listen(const std::string& conninfo, const std::string& channel);
  int fd() const;
  // The payloads received since the last call, oldest first.
  Result<std::vector<std::string>> drain();

  Listener(Listener&&) noexcept;
  Listener& operator=(Listener&&) noexcept;
  ~Listener();

 private:
  Listener();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bb::store
