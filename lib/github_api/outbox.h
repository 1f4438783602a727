// The outbox: every GitHub call benchbox means to make, recorded in SQLite
// (outbox.db) before it is made, so nothing is lost across a restart of
// reporterd or an outage of GitHub. One row per target holds its newest
// Want; put() replaces a Want not yet sent (a check run that went queued →
// in_progress → completed while GitHub was down is posted once, completed).
// The ids GitHub gave (check run, comment, issue) are remembered per target,
// so a later Want edits the object instead of creating another.
//
// One connection per thread: the reporter's loop puts, the poster's thread
// takes what is due (SQLite WAL lets both work at once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "github_api/want.h"
#include "store/database.h"
#include "util/result.h"

namespace bb::github_api {

struct OutboxItem {
  Want want;
  int64_t version = 0;         // bumped by every put()
  int64_t attempts = 0;        // failed attempts at this target since it was last done
  int64_t next_attempt = 0;    // unix seconds
  int64_t first_queued = 0;    // unix seconds the oldest unsent Want was put
  std::string last_error;
  // The last attempt may have reached GitHub (the connection broke after
  // the request was sent): a create must first look for what it made.
  bool outcome_unknown = false;
};

struct OutboxCounts {
  int64_t pending = 0, done = 0, dropped = 0;
};

class Outbox {
 public:
  static Result<Outbox> open(const std::string& path);

  // Records `want` as its target's desired state, due at `now`. Durable when
  // it returns. A target that was done or dropped becomes pending again.
  Status put(const Want& want, int64_t now);

  // The pending item due earliest, if its time (next_attempt) has come. A
  // row whose Want cannot be read back (written by another benchbox) is
  // dropped with the reason and skipped, so it cannot block the rest.
  Result<std::optional<OutboxItem>> next_due(int64_t now);
  // The earliest next_attempt of any pending item; nullopt when none.
  Result<std::optional<int64_t>> next_wakeup();

  // The Want of `version` reached GitHub as `object`: remembered, and the
  // item is done unless a newer Want was put meanwhile (then it stays due).
  Status sent(const std::string& target, int64_t version, const PostedObject& object);
  // A create for the target is about to be sent. Until sent() clears it,
  // the item's outcome is unknown: a reporterd killed before it heard back
  // (or before it remembered the reply) must look for what it may have made
  // rather than make it again. A pending item only.
  Status doubt(const std::string& target);
  // Try again at `at`.
  Status retry(const std::string& target, int64_t at, const std::string& error, bool outcome_unknown);
  // Will not succeed (GitHub refused it for good, or it waited too long).
  // With `version` (the one that was sent): a newer Want put meanwhile is
  // not dropped with it but stays due, its attempts reset.
  Status drop(const std::string& target, const std::string& error, int64_t version = 0);

  // The target's desired state as last put (pending, done or dropped);
  // nullopt when never put or unreadable.
  Result<std::optional<Want>> wanted(const std::string& target);
  // What GitHub made of the target, once posted (survives done and dropped).
  Result<std::optional<PostedObject>> posted(const std::string& target);
  // Remembers what GitHub made as soon as it made it (before the item is
  // done: a later step of the same attempt may still fail), or forgets it
  // (GitHub says it is gone).
  Status remember(const std::string& target, const PostedObject& object);
  Status forget(const std::string& target);
  // Per-target facts the sender keeps ("closing comment posted"); "" = none.
  Result<std::string> note(const std::string& target, const std::string& key);
  Status set_note(const std::string& target, const std::string& key, const std::string& value);

  Result<OutboxCounts> counts();

  Outbox(Outbox&&) = default;
  Outbox& operator=(Outbox&&) = default;

 private:
  explicit Outbox(store::Database db) : db_(std::move(db)) {}
  store::Database db_;
};

}  // namespace bb::github_api
