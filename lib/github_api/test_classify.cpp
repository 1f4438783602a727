// classify(): every rule of sender.h, without HTTP.
#include <catch2/catch.hpp>

#include "github_api/sender.h"

using namespace bb;
using namespace bb::github_api;
using Kind = Judgement::Kind;

namespace {

ApiReply reply(long status, std::map<std::string, std::string> headers = {}, std::string body = "{}") {
  ApiReply r;
  r.request = "POST /repos/o/r/check-runs";
  r.status = status;
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

RetryPolicy policy() {
  RetryPolicy p;
  p.retry_seconds = 30;
  p.retry_max_seconds = 3600;
  p.give_up_seconds = 86400;
  return p;
}

}  // namespace

TEST_CASE("classify: 2xx is ok; one with the last request of the window pauses all sending") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  for (long s : {200L, 201L, 204L}) {
    auto j = classify(reply(s), 0, now, now, policy());
    CHECK(j.kind == Kind::ok);
    CHECK(j.pause_until == 0);
  }
  auto j = classify(reply(201, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", std::to_string(now + 900)}}), 0,
                    now, now, policy());
  CHECK(j.kind == Kind::ok);
  CHECK(j.pause_until == now + 900);
  j = classify(reply(200, {{"x-ratelimit-remaining", "1"}, {"x-ratelimit-reset", std::to_string(now + 900)}}), 0, now,
               now, policy());
  CHECK(j.pause_until == 0);
}

TEST_CASE("classify: 5xx, 408 and network errors back off, doubling up to the cap") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  CHECK(backoff_seconds(0, policy()) == 30);
  CHECK(backoff_seconds(1, policy()) == 60);
  CHECK(backoff_seconds(3, policy()) == 240);
  CHECK(backoff_seconds(7, policy()) == 3600);
  CHECK(backoff_seconds(1000, policy()) == 3600);  // no overflow
  for (long s : {500L, 502L, 503L, 504L, 408L}) {
    auto j = classify(reply(s), 2, now, now, policy());
    CHECK(j.kind == Kind::retry);
    CHECK(j.retry_at == now + 120);
    CHECK(j.pause_until == 0);
    // A gateway's 502 or 504 may follow work GitHub did: a create is
    // looked for before it is sent again.
    CHECK(j.outcome_unknown);
  }
  CHECK_FALSE(classify(reply(401), 0, now, now, policy()).outcome_unknown);
  ApiReply refused;
  refused.request = "POST /repos/o/r/check-runs";
  refused.transport_error = "Couldn't connect to server";
  auto j = classify(refused, 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 30);
  CHECK_FALSE(j.outcome_unknown);
  CHECK(j.reason.find("Couldn't connect") != std::string::npos);
  ApiReply lost = refused;
  lost.transport_error = "Empty reply from server";
  lost.maybe_sent = true;
  j = classify(lost, 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.outcome_unknown);
}

TEST_CASE("classify: Retry-After (seconds or HTTP-date) is the earliest retry") {
  FakeClock clock;
  clock.set_unix(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  const int64_t now = clock.now_unix();
  CHECK(parse_retry_after("120", now) == now + 120);
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:59:37 GMT", now) == now + 600);
  CHECK(parse_retry_after("soon", now) == 0);
  CHECK(parse_retry_after("", now) == 0);
  auto j = classify(reply(503, {{"retry-after", "600"}}), 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 600);
  j = classify(reply(503, {{"retry-after", "Sun, 06 Nov 1994 09:49:37 GMT"}}), 0, now, now, policy());
  CHECK(j.retry_at == now + 3600);
  // Backoff later than Retry-After wins: "no earlier than".
  j = classify(reply(503, {{"retry-after", "5"}}), 3, now, now, policy());
  CHECK(j.retry_at == now + 240);
  // Never due again at once, whatever the header says.
  j = classify(reply(503, {{"retry-after", "0"}}), 0, now, now, RetryPolicy{0, 0, 86400});
  CHECK(j.retry_at > now);
}

TEST_CASE("classify: the primary rate limit retries at the reset and pauses everything until then") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  const std::string reset = std::to_string(now + 1800);
  for (long s : {403L, 429L}) {
    auto j = classify(reply(s, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", reset}},
                            R"({"message":"API rate limit exceeded for installation ID 42."})"),
                      0, now, now, policy());
    CHECK(j.kind == Kind::retry);
    CHECK(j.retry_at == now + 1800);
    CHECK(j.pause_until == now + 1800);
    CHECK(j.reason.find("rate limit") != std::string::npos);
  }
  // A reset already past (clock skew): a minute, not a tight loop.
  auto j = classify(reply(403, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", std::to_string(now - 5)}}), 0,
                    now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 60);
  CHECK(j.pause_until == now + 60);
}

TEST_CASE("classify: a secondary rate limit honours Retry-After, else waits at least a minute, and pauses") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  const std::string secondary =
      R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})";
  auto j = classify(reply(403, {{"retry-after", "90"}}, secondary), 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 90);
  CHECK(j.pause_until == now + 90);
  j = classify(reply(403, {}, secondary), 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 60);
  CHECK(j.pause_until == now + 60);
  j = classify(reply(403, {}, secondary), 4, now, now, policy());
  CHECK(j.retry_at == now + 480);  // refused again and again: longer
  j = classify(reply(429, {}, R"({"message":"slow down"})"), 0, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.pause_until == now + 60);
}

TEST_CASE("classify: 401 retries with backoff (an operator may fix the credential)") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  auto j = classify(reply(401, {}, R"({"message":"Bad credentials"})"), 1, now, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(j.retry_at == now + 60);
  CHECK(j.reason.find("Bad credentials") != std::string::npos);
}

TEST_CASE("classify: other 4xx drop with GitHub's message and errors") {
  FakeClock clock;
  const int64_t now = clock.now_unix();
  auto j = classify(reply(422, {},
                          R"({"message":"Validation Failed","errors":[{"resource":"Issue","code":"missing_field","field":"title"}]})"),
                    0, now, now, policy());
  CHECK(j.kind == Kind::drop);
  CHECK(j.reason.find("HTTP 422") != std::string::npos);
  CHECK(j.reason.find("Validation Failed") != std::string::npos);
  CHECK(j.reason.find("missing_field") != std::string::npos);
  for (long s : {400L, 403L, 404L, 410L}) {
    j = classify(reply(s, {}, R"({"message":"Resource not accessible by integration"})"), 0, now, now, policy());
    CHECK(j.kind == Kind::drop);
    CHECK(j.reason.find("Resource not accessible") != std::string::npos);
  }
  // Not JSON at all: the body's start is the message.
  j = classify(reply(400, {}, "<html>bad</html>"), 0, now, now, policy());
  CHECK(j.kind == Kind::drop);
  CHECK(j.reason.find("<html>bad") != std::string::npos);
}

TEST_CASE("classify: an item queued longer than give_up_seconds that fails again is dropped") {
  FakeClock clock;
  const int64_t first = clock.now_unix();
  clock.advance_seconds(86400 + 1);
  const int64_t now = clock.now_unix();
  auto j = classify(reply(503, {}, R"({"message":"Service Unavailable"})"), 9, first, now, policy());
  CHECK(j.kind == Kind::drop);
  CHECK(j.reason.find("gave up after 86401 s") != std::string::npos);
  CHECK(j.reason.find("Service Unavailable") != std::string::npos);
  // Just within: still a retry; and success is success however late.
  j = classify(reply(503), 9, first + 2, now, policy());
  CHECK(j.kind == Kind::retry);
  CHECK(classify(reply(200), 9, first, now, policy()).kind == Kind::ok);
}
