// The notifications outbox: every notification benchbox means to deliver,
// recorded in SQLite (notify-outbox.db) before it is delivered, one row per
// (repository, destination, event id). Unlike the GitHub outbox, whose row
// is a target's newest desired state, a notification is an event: it is
// told once, and putting it again (a reporter that raises it again after a
// restart) changes nothing, delivered or not. So an event reaches each
// destination exactly once across restarts, as far as the receiver's
// answer can tell (a retry whose request went out is flagged maybe_sent;
// the receiver drops a repeated X-Benchbox-Delivery).
//
// A file of its own, so the GitHub poster never takes these items and a
// full notifications backlog never delays a check run.
//
// One connection per thread: the reporter's loop puts, the poster's thread
// takes what is due (SQLite WAL lets both work at once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "github_api/sender.h"
#include "notify/deliver.h"
#include "notify/notification.h"
#include "store/database.h"
#include "util/result.h"

namespace bb::notify {

struct OutboxItem {
  std::string key;          // item_key(repository, destination, notification.id)
  std::string repository;   // the repository whose notify list holds the destination
  std::string destination;  // the destination's name in that list
  Notification notification;
  int64_t attempts = 0;      // failed attempts so far
  int64_t next_attempt = 0;  // unix seconds
  int64_t first_queued = 0;  // unix seconds
  std::string last_error;
  bool maybe_sent = false;   // an earlier attempt may have reached the receiver
};

struct OutboxCounts {
  int64_t pending = 0, delivered = 0, dropped = 0;
};

// "<repository>/<destination>/<id>": names an item for good.
std::string item_key(const std::string& repository, const std::string& destination, const std::string& id);

class Outbox {
 public:
  static Result<Outbox> open(const std::string& path);

  // Records `n` for the destination, due at `now`; durable when it returns.
  // True when it is new; false when this event was already put for this
  // destination (pending, delivered or dropped), which then stays as it is.
  Result<bool> put(const std::string& repository, const std::string& destination, const Notification& n,
                   int64_t now);

  // The pending item due earliest, if its time has come. A row whose
  // notification cannot be read back is dropped with the reason and
  // skipped, so it cannot block the rest.
  Result<std::optional<OutboxItem>> next_due(int64_t now);
  // The earliest next_attempt of any pending item; nullopt when none.
  Result<std::optional<int64_t>> next_wakeup();

  Status delivered(const std::string& key);
  Status retry(const std::string& key, int64_t at, const std::string& error, bool maybe_sent);
  // Will not be delivered (refused for good, gave up, or its destination
  // is no longer configured).
  Status drop(const std::string& key, const std::string& error);

  // An item's state ("pending", "delivered", "dropped"); "" when never put.
  Result<std::string> state(const std::string& key);
  Result<OutboxCounts> counts();

  Outbox(Outbox&&) = default;
  Outbox& operator=(Outbox&&) = default;

 private:
  explicit Outbox(store::Database db) : db_(std::move(db)) {}
  store::Database db_;
};

// What one attempt's answer does to its item, under the GitHub poster's
// retry policy (reporter.github_retry_seconds, _retry_max_seconds,
// _give_up_seconds): delivered; tried again after retry_seconds *
// 2^attempts (capped); dropped when refused for good, or when a retry
// falls past give_up_seconds after the item was first queued. Returns the
// outcome recorded, for the caller's log.
struct Recorded {
  Delivery::Kind kind = Delivery::Kind::done;  // retry or drop as recorded (a gave-up retry is a drop)
  int64_t retry_at = 0;
  bool maybe_sent = false;  // retry: the request went out
  std::string error;
};
Recorded judge(const OutboxItem& item, const Delivery& d, int64_t now, const github_api::RetryPolicy& policy);
Status record(Outbox& outbox, const OutboxItem& item, const Recorded& r);

}  // namespace bb::notify
