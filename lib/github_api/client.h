// GitHub REST API client: one generic request that returns GitHub's whole
// answer (status, body, headers) so the caller (sender.h) can decide what a
// refusal means, and the authentication behind it: a GitHub App (an RS256
// JWT, app_jwt.h, exchanged for an installation token per repository) or a
// plain token. libcurl, blocking: reporterd calls it from its poster thread,
// runnerd while it fetches.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "github_api/credentials.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::github_api {

// Marks benchbox's own PR comment so later runs edit it instead of adding more.
inline constexpr const char* kStickyMarker = "<!-- benchbox:sticky-comment -->";

// What came back for one request. status 0 means no HTTP answer at all
// (transport_error says why); then maybe_sent tells whether the request may
// still have reached GitHub (the connection broke after it was sent), so a
// create must look for what it may have made before making it again.
struct ApiReply {
  std::string request;         // "POST /repos/o/r/check-runs", for messages
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names, last value wins
  std::string transport_error;
  bool maybe_sent = false;

  bool ok() const { return status >= 200 && status < 300; }
  // The header's value, "" when absent; `name` in lower case.
  std::string header(const std::string& name) const;
  // The body parsed; a discarded value when it is not JSON.
  nlohmann::json json() const;
  // GitHub's "message" (and "errors", when present), else the start of
  // the body; for errors and logs.
  std::string message() const;
  // "POST /repos/o/r/issues: HTTP 422: Validation Failed (...)" or the
  // transport error.
  std::string describe() const;
};

class Client {
 public:
  Client(std::string api_url, Credentials credentials, const Clock& clock);
  // A GitHub App, as before Credentials existed.
  Client(std::string api_url, int64_t app_id, std::string private_key_pem, const Clock& clock);

  // One API call for `repository` (whose installation token it needs, in
  // App mode), `path` from the API root ("/repos/o/r/check-runs?x=y").
  // Every answer is a reply, whatever its status; a network failure is a
  // reply with status 0. The error case is only a request that could not
  // be made here (the App key does not sign). With an App, a 401 on a
  // cached installation token drops the token and tries once more with a
  // fresh one; a failed token exchange is returned as its own reply.
  Result<ApiReply> request(const std::string& method, const std::string& repository, const std::string& path,
                           const nlohmann::json* body = nullptr);

  // The installation token for `repository` (GET its installation, then
  // POST an access token), cached until a minute before it expires; with a
  // plain token, that token. runnerd fetches private repositories with it.
  Result<std::string> installation_token(const std::string& repository);

  // Per-request limit (default 30 s); tests shorten it.
  void set_timeout_ms(long ms) { timeout_ms_ = ms; }
  // A request in flight ends (a transport error, maybe sent) as soon as
  // *flag is true: a daemon that stops need not wait out a slow GitHub.
  void set_abort_flag(const std::atomic<bool>* flag) { abort_ = flag; }

 private:
  // The bearer for `repository`, or the reply that refused one.
  struct Bearer {
    std::string value;
    bool cached = false;
    ApiReply refusal;            // status != 0 or transport error when value is ""
  };
  Result<Bearer> bearer(const std::string& repository);
  ApiReply perform(const std::string& method, const std::string& path, const std::string& bearer,
                   const nlohmann::json* body);

  std::string api_url_;
  Credentials credentials_;
  const Clock& clock_;
  long timeout_ms_ = 30000;
  const std::atomic<bool>* abort_ = nullptr;
  struct Token {
    std::string value;
    int64_t expires = 0;
  };
  std::map<std::string, Token> tokens_;  // per repository's installation
};

// RFC 3986 percent-encoding of a query value or path segment.
std::string url_encode(const std::string& text);

}  // namespace bb::github_api
