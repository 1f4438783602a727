// GitHub App authentication: a JWT signed RS256 with the App's private key
// (OpenSSL), exchanged for a short-lived installation token.
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace bb::github_api {

// base64url without padding (RFC 7515), as JWTs use.
std::string base64url(const std::string& bytes);

// A JWT for App `app_id`, valid from now-60 s (clock drift, as GitHub
// recommends) to now+540 s (under GitHub's 10 minute maximum).
Result<std::string> make_app_jwt(int64_t app_id, const std::string& private_key_pem, int64_t now_unix);

// Verifies a JWT's RS256 signature with a public key (tests, and a check
// that a configured key pair matches).
Status verify_jwt(const std::string& jwt, const std::string& public_key_pem);

}  // namespace bb::github_api
