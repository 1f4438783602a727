// classify(): what one GitHub reply means for the item it was for (sender.h).
#include <algorithm>
#include <cctype>
#include <ctime>

#include "github_api/sender.h"

namespace bb::github_api {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

int64_t parse_seconds(const std::string& s) {
  if (!all_digits(s) || s.size() > 12) return -1;
  return std::stoll(s);
}

bool mentions_secondary_limit(const std::string& message) {
  std::string lower = message;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("secondary rate limit") != std::string::npos;
}

}  // namespace

int64_t backoff_seconds(int64_t attempts, const RetryPolicy& policy) {
  int64_t delay = std::max<int64_t>(1, policy.retry_seconds);
  for (int64_t i = 0; i < attempts && delay < policy.retry_max_seconds; ++i) delay *= 2;
  return std::min(delay, std::max<int64_t>(1, policy.retry_max_seconds));
}

int64_t parse_retry_after(const std::string& value, int64_t now) {
  if (value.empty()) return 0;
  if (int64_t s = parse_seconds(value); s >= 0) return now + s;
  // An HTTP-date (RFC 9110, IMF-fixdate): "Sun, 06 Nov 1994 08:49:37 GMT".
  struct tm tm {};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

Judgement classify(const ApiReply& reply, int64_t attempts, int64_t first_queued, int64_t now,
                   const RetryPolicy& policy) {
  Judgement j;
  const std::string describe = reply.describe();
  // The primary rate limit: this reply used the last request of the
  // window, whatever its status. Nothing more may go out before the reset.
  const bool exhausted = reply.status != 0 && reply.header("x-ratelimit-remaining") == "0";
  int64_t reset = parse_seconds(reply.header("x-ratelimit-reset"));
  // No readable reset: a minute, as GitHub advises when it says nothing.
  if (exhausted) j.pause_until = reset > now ? reset : now + 60;
  const int64_t retry_after = reply.status != 0 ? parse_retry_after(reply.header("retry-after"), now) : 0;
  const int64_t backoff_at = now + backoff_seconds(attempts, policy);

  auto retry = [&](int64_t at, std::string why) {
    j.kind = Judgement::Kind::retry;
    j.retry_at = std::max(at, now + 1);
    j.reason = std::move(why);
  };
  const long s = reply.status;
  if (s == 0) {
    retry(backoff_at, describe);
    j.outcome_unknown = reply.maybe_sent;
  } else if (s >= 200 && s < 300) {
    j.kind = Judgement::Kind::ok;
  } else if ((s == 403 || s == 429) && exhausted) {
    retry(j.pause_until, describe + " (rate limit exhausted until " + format_utc(j.pause_until) + ")");
  } else if ((s == 403 || s == 429) &&
             (s == 429 || retry_after > 0 || mentions_secondary_limit(reply.message()))) {
    // GitHub: wait Retry-After when given, else at least a minute, longer
    // if it keeps refusing. Every call counts against the limit: pause all.
    int64_t at = retry_after > 0 ? retry_after : now + std::max<int64_t>(60, backoff_seconds(attempts, policy));
    retry(at, describe + " (secondary rate limit until " + format_utc(std::max(at, now + 1)) + ")");
    j.pause_until = std::max(j.pause_until, j.retry_at);
  } else if (s >= 500 || s == 408 || s == 401 || s < 200) {
    // 401: the credential may be fixed by an operator; the client already
    // tried once with a fresh installation token.
    retry(std::max(backoff_at, retry_after), describe);
    // A 5xx or a timeout came from somewhere on the way (a gateway's 502
    // or 504): GitHub may have done it all the same. A create is looked
    // for before it is sent again.
    j.outcome_unknown = s >= 500 || s == 408;
  } else {
    j.kind = Judgement::Kind::drop;
    j.reason = describe;
    if (s >= 300 && s < 400 && !reply.header("location").empty()) j.reason += " (moved to " + reply.header("location") + ")";
  }
  if (j.kind == Judgement::Kind::retry && first_queued > 0 && now - first_queued > policy.give_up_seconds) {
    j.kind = Judgement::Kind::drop;
    j.reason = "gave up after " + std::to_string(now - first_queued) + " s (first queued " +
               format_utc(first_queued) + "): " + j.reason;
    j.outcome_unknown = false;
  }
  return j;
}

}  // namespace bb::github_api
