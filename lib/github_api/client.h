// GitHub REST API client for what benchbox posts: check runs, one sticky PR
// comment (edited in place on every run), and issues for main-branch
// regressions. Authenticates as a GitHub App (app_jwt.h). libcurl, blocking:
// the reporter calls it off its bus thread's hot path, one job at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "util/clock.h"
#include "util/result.h"

namespace bb::github_api {

// Marks benchbox's own PR comment so later runs edit it instead of adding more.
inline constexpr const char* kStickyMarker = "<!-- benchbox:sticky-comment -->";

struct ApiReply {
  long status = 0;
  std::string body;
};

class Client {
 public:
  Client(std::string api_url, int64_t app_id, std::string private_key_pem, const Clock& clock);

  // POST /repos/{repo}/check-runs, completed with `conclusion`
  // (success, failure, neutral). Returns the check run id.
  Result<int64_t> create_check_run(const std::string& repository, const std::string& head_sha,
                                   const std::string& name, const std::string& conclusion,
                                   const std::string& title, const std::string& summary);

  // Edits benchbox's comment on the PR if there is one, else creates it.
  // Returns the comment id.
  Result<int64_t> upsert_sticky_comment(const std::string& repository, int64_t pr_number,
                                        const std::string& body);

  // POST /repos/{repo}/issues. Returns the issue number.
  Result<int64_t> open_issue(const std::string& repository, const std::string& title,
                             const std::string& body);

  // The App's installation token for `repository` (GET its installation,
  // then POST an access token), cached until a minute before it expires.
  // runnerd fetches private repositories with it.
  Result<std::string> installation_token(const std::string& repository);

 private:
  Result<ApiReply> call(const std::string& method, const std::string& path, const std::string& bearer,
                        const nlohmann::json* body);
  Result<nlohmann::json> call_json(const std::string& method, const std::string& path,
                                   const std::string& repository, const nlohmann::json* body,
                                   long expected_status);

  std::string api_url_;
  int64_t app_id_;
  std::string key_pem_;
  const Clock& clock_;
  struct Token {
    std::string value;
    int64_t expires = 0;
  };
  std::map<std::string, Token> tokens_;  // per repository's installation
};

}  // namespace bb::github_api
