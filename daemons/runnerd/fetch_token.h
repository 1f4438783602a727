// Private repositories: runnerd fetches with a GitHub token (the App's
// installation token, or the plain token of reporter.github_auth "token"),
// handed to libgit2 only through its credentials callback
// (git/credentials.h), so the token is on no command line, in no git
// config, log or result. Only for clone URLs on GitHub's own host (or the
// host of reporter.github_api_url, for GitHub Enterprise and the tests):
// a GitHub token must never travel to another server.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/appliance.h"
#include "git/credentials.h"
#include "github_api/client.h"
#include "github_api/credentials.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::runnerd {

// The host of an http(s) URL ("github.com" of "https://github.com/a/b.git"),
// or "" for any other URL (file://, a path, ssh).
std::string url_host(const std::string& url);

class FetchTokens {
 public:
  // Null when the appliance does not talk to GitHub (reporter.auth_mode()
  // "off"). The credential (github-app-key or github-token) is read from
  // $CREDENTIALS_DIRECTORY by the loader reporterd uses too; an error,
  // naming it, when it is not there.
  static Result<std::unique_ptr<FetchTokens>> create(const config::ApplianceConfig& config);

  // The credential for fetching `clone_url` of `repository`: none for a URL
  // on another host, else a token (an error when GitHub gives none: the
  // caller fetches anonymously and says why).
  Result<std::optional<git::FetchCredential>> for_fetch(const std::string& repository, const std::string& clone_url);

 private:
  FetchTokens(const config::ApplianceConfig& config, github_api::Credentials credentials);
  SystemClock clock_;
  std::string api_host_;
  github_api::Client client_;
};

}  // namespace bb::runnerd
