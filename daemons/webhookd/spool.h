// Deliveries that were verified but could not reach the queue (it did not
// answer in time, or was not running) wait here, one durable file each
// (write_file_atomic), until the queue is back. Replay is idempotent because
// queued dedupes by delivery id, so a file that is replayed twice (a crash
// between Enqueue and unlink) does no harm.
//
// File: <spool>/<received usec, 20 digits>-<delivery id>.delivery holding one
// JSON line {"event","delivery_id","received","replay_key"} and then the
// JSON body (a form-encoded delivery's decoded payload), so names sort
// oldest first and the body is kept byte for byte. replay_key is the HMAC
// that verified the delivery; files from before it existed have none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace bb::webhookd {

struct SpooledDelivery {
  std::string path;
  std::string event;
  std::string delivery_id;
  std::string body;
  int64_t received_usec = 0;
  std::string replay_key;
};

class Spool {
 public:
  explicit Spool(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // Durably writes one delivery; returns its path.
  Result<std::string> put(const std::string& event, const std::string& delivery_id,
                          const std::string& body, int64_t received_usec, const std::string& replay_key);
  // Spooled files, oldest first. A missing spool directory is an empty spool.
  Result<std::vector<std::string>> list() const;
  Result<SpooledDelivery> load(const std::string& path) const;
  Status remove(const std::string& path);
  // Moves a delivery the queue refused for good to <spool>/rejected/, so it
  // is kept for the operator but not replayed again.
  Status reject(const std::string& path);

 private:
  std::string dir_;
};

}  // namespace bb::webhookd
