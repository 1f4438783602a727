// Makes one outbox item (outbox.h) true on GitHub: creates its object the
// first time and edits it after, finding it again by a remembered id or,
// when that was lost, by what benchbox put in it (a check run's external_id,
// the sticky comment's marker, an issue's marker comment). What GitHub
// answers is judged by classify(), a pure function: done, retry at a time
// (backoff, Retry-After, rate-limit reset), or drop (GitHub refused the
// content for good). Rate limits also pause all sending, which the poster
// honours through paused_until().
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "github_api/client.h"
#include "github_api/outbox.h"
#include "github_api/want.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::github_api {

// reporter.github_retry_seconds, github_retry_max_seconds, github_give_up_seconds.
struct RetryPolicy {
  int64_t retry_seconds = 30;
  int64_t retry_max_seconds = 3600;
  int64_t give_up_seconds = 3 * 24 * 3600;
};

// What one reply means.
struct Judgement {
  enum class Kind { ok, retry, drop };
  Kind kind = Kind::ok;
  int64_t retry_at = 0;          // retry: not before (always after `now`)
  int64_t pause_until = 0;       // > now: send nothing at all until then (a rate limit)
  bool outcome_unknown = false;  // retry: the request may have reached GitHub
  std::string reason;            // retry/drop: what GitHub (or the network) said
};

// Judges `reply` to the attempt after `attempts` failed ones at an item
// first queued at `first_queued` (0 = unknown: no give-up).
//   2xx ok; 5xx, 408, 401 and network errors: retry after
//   retry_seconds * 2^attempts (capped), or Retry-After when later;
//   403/429 with x-ratelimit-remaining 0: retry and pause until
//   x-ratelimit-reset; 403/429 saying "secondary rate limit" (or carrying
//   Retry-After, or any 429): retry and pause for Retry-After, else at
//   least 60 s; other 3xx/4xx: drop with GitHub's message. Any reply with
//   x-ratelimit-remaining 0 pauses until the reset. A retry of an item
//   queued more than give_up_seconds ago is a drop ("gave up after ...").
Judgement classify(const ApiReply& reply, int64_t attempts, int64_t first_queued, int64_t now,
                   const RetryPolicy& policy);

// retry_seconds * 2^attempts, capped at retry_max_seconds.
int64_t backoff_seconds(int64_t attempts, const RetryPolicy& policy);

// A Retry-After value (delta seconds or an HTTP-date) as unix seconds;
// 0 when absent or unreadable.
int64_t parse_retry_after(const std::string& value, int64_t now);

struct SendOutcome {
  enum class Kind { done, retry, drop };
  Kind kind = Kind::done;
  PostedObject object;           // done: what GitHub shows (id 0: nothing was posted)
  std::string action;            // done: "created", "updated", or "" (nothing to post)
  int64_t retry_at = 0;          // retry
  bool outcome_unknown = false;  // retry
  std::string error;             // retry: the reason; drop: GitHub's message
  int64_t pause_until = 0;       // a rate limit seen on the way (0 = none)
  // The stop flag was raised between two calls: nothing to record, the
  // item stays as it was.
  bool interrupted = false;
};

class Sender {
 public:
  // `outbox` keeps the ids and notes of targets (remembered as soon as
  // GitHub makes an object); the caller records the outcome (record()).
  Sender(Client& client, Outbox& outbox, const Clock& clock, RetryPolicy policy);

  SendOutcome send(const OutboxItem& item);

  // Send nothing before this (unix seconds; 0 or past = no pause): a rate
  // limit GitHub announced.
  int64_t paused_until() const { return pause_until_; }
  // Checked between calls: a multi-call send stops early when it is set.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

 private:
  struct Attempt;
  SendOutcome send_check_run(Attempt& a);
  SendOutcome send_comment(Attempt& a);
  SendOutcome send_issue(Attempt& a);
  // One call; true on 2xx. Otherwise `reply` holds the answer and
  // a.failure() turns it into the outcome.
  bool call(Attempt& a, const std::string& method, const std::string& path, const nlohmann::json* body,
            ApiReply& reply);

  Client& client_;
  Outbox& outbox_;
  const Clock& clock_;
  RetryPolicy policy_;
  int64_t pause_until_ = 0;
  const std::atomic<bool>* stop_ = nullptr;
};

// Writes `outcome` for `item` to the outbox: sent, retry or drop (nothing
// when interrupted).
Status record(Outbox& outbox, const OutboxItem& item, const SendOutcome& outcome);

}  // namespace bb::github_api
