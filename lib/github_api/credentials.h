// How benchbox authenticates to GitHub, and the one loader for it that
// reporterd (posting) and runnerd (fetching private repositories) share.
// The secret is a systemd credential in $CREDENTIALS_DIRECTORY: the GitHub
// App's private key (github-app-key) or a plain token (github-token).
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace bb::github_api {

// The credential file names, as credentials/benchbox-credentials stores them.
inline constexpr const char* kAppKeyCredential = "github-app-key";
inline constexpr const char* kTokenCredential = "github-token";

struct Credentials {
  enum class Mode { app, token };
  Mode mode = Mode::app;
  int64_t app_id = 0;           // app: the App's numeric id
  std::string app_key_pem;      // app: its private key (PEM)
  std::string token;            // token: sent as "Authorization: Bearer"
};

// Loads the credential for `mode` ("app" or "token"; reporter.auth_mode())
// from `credentials_dir`. Errors name the credential and the command that
// creates it; "off" is an error too (the caller checks for it first). A
// token's surrounding whitespace (an editor's newline) is dropped.
Result<Credentials> load_credentials(const std::string& mode, int64_t app_id, const std::string& credentials_dir);

// The same from $CREDENTIALS_DIRECTORY ("" when unset: an error naming the
// credential and the unit setting that provides it).
Result<Credentials> load_credentials_from_env(const std::string& mode, int64_t app_id);

// The credential's name for `mode`: github-app-key or github-token.
const char* credential_name(const std::string& mode);

}  // namespace bb::github_api
