// X-Hub-Signature-256 verification: GitHub signs the raw request body with
// HMAC-SHA256 keyed by the webhook secret and sends "sha256=<hex digest>".
// The comparison is constant-time (CRYPTO_memcmp) so a forger learns nothing
// from how long a wrong guess took to reject.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace bb::github {

inline constexpr const char* kSignatureHeader = "X-Hub-Signature-256";

// "sha256=" + lowercase hex HMAC-SHA256(secret, body).
std::string sign(std::string_view secret, std::string_view body);

// Ok when `header` (the X-Hub-Signature-256 value, "" when absent) is the
// signature of `body` under `secret`. Errors (Errc::invalid_argument) say
// which of: empty secret, missing header, wrong prefix, malformed digest,
// mismatch. An empty secret never verifies anything.
Status verify_signature(std::string_view secret, std::string_view body, std::string_view header);

}  // namespace bb::github
