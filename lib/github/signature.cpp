#include "github/signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>

#include "util/text.h"

namespace bb::github {

namespace {

constexpr std::string_view kPrefix = "sha256=";

// Returns false when HMAC itself fails (never expected with SHA-256).
bool hmac_sha256(std::string_view secret, std::string_view body, unsigned char* out,
                 unsigned int* len) {
  return HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
              reinterpret_cast<const unsigned char*>(body.data()), body.size(), out, len) != nullptr;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string sign(std::string_view secret, std::string_view body) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!hmac_sha256(secret, body, md, &len)) return {};
  return std::string(kPrefix) + to_hex(md, len);
}

Status verify_signature(std::string_view secret, std::string_view body, std::string_view header) {
  auto fail = [](std::string m) { return Status(make_error(Errc::invalid_argument, std::move(m))); };
  if (secret.empty()) return fail("the webhook secret is empty");
  if (header.empty()) return fail(std::string("missing ") + kSignatureHeader + " header");
  if (header.substr(0, kPrefix.size()) != kPrefix)
    return fail(std::string(kSignatureHeader) + " does not start with 'sha256='");
  std::string_view hex = header.substr(kPrefix.size());
  if (hex.size() != 64) return fail(std::string(kSignatureHeader) + " is not a SHA-256 hex digest");

  unsigned char given[32];
  for (size_t i = 0; i < 32; ++i) {
    int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return fail(std::string(kSignatureHeader) + " is not a SHA-256 hex digest");
    given[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  unsigned char expected[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!hmac_sha256(secret, body, expected, &len) || len != 32)
    return Status(make_error(Errc::internal, "HMAC-SHA256 failed"));
  if (CRYPTO_memcmp(given, expected, 32) != 0) return fail("signature does not match the body");
  return {};
}

}  // namespace bb::github
