// Delivering one rendered notification (notification.h): an HTTP POST for
// a webhook, Slack or Matrix destination, or the local MTA's sendmail for
// email. Each answer is judged as the GitHub sender judges GitHub's: done,
// worth another attempt later, or refused for good. Blocking, with a
// deadline: reporterd calls it from its poster thread, never its loop.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "notify/notification.h"

namespace bb::notify {

struct Delivery {
  enum class Kind { done, retry, drop };
  Kind kind = Kind::done;
  long status = 0;          // HTTP status; 0 when none came (or for email)
  std::string error;        // retry/drop: what the receiver, the network or sendmail said
  // retry: the request may have reached the receiver (the connection broke
  // after it was sent). The id in X-Benchbox-Delivery lets it drop a repeat.
  bool maybe_sent = false;
  // `stop` was raised (reporterd stopping): nothing to record, the item
  // stays as it was and is delivered after the next start.
  bool interrupted = false;
};

// POSTs `p` (no redirects: a moved hook is a wrong address, not followed
// with the signature). 2xx done; 408, 425, 429, 5xx and network errors
// retry; any other status drops, with the start of the receiver's answer.
// `stop` (may be null) ends the attempt early, as interrupted, within a
// fraction of a second.
Delivery post(const HttpPost& p, std::chrono::milliseconds timeout, const std::atomic<bool>* stop = nullptr);

// Hands `message` to `sendmail -t -i` (the path given) on its stdin.
// Exit 0 done; EX_TEMPFAIL (75), EX_UNAVAILABLE (69), EX_OSERR (71),
// EX_IOERR (74), a signal or the deadline retry (the MTA may be starting or
// its queue full); any other status drops, with what sendmail wrote.
// `stop` as for post(): sendmail's group is killed.
Delivery send_mail(const std::string& sendmail, const std::string& message, std::chrono::milliseconds timeout,
                   const std::atomic<bool>* stop = nullptr);

}  // namespace bb::notify
