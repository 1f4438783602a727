#include <catch2/catch.hpp>

#include "github/signature.h"

using bb::github::sign;
using bb::github::verify_signature;

// GitHub's documented example ("Validating webhook deliveries"): secret
// "It's a Secret to Everybody", payload "Hello, World!".
TEST_CASE("signature matches GitHub's published test vector") {
  REQUIRE(sign("It's a Secret to Everybody", "Hello, World!") ==
          "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  CHECK(verify_signature("It's a Secret to Everybody", "Hello, World!",
                         "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"));
}

TEST_CASE("a valid signature verifies, upper-case hex too") {
  std::string body = R"({"zen":"Keep it logically awesome."})";
  std::string sig = sign("s3cret", body);
  CHECK(verify_signature("s3cret", body, sig));
  std::string upper = sig;
  for (size_t i = 7; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
  CHECK(verify_signature("s3cret", body, upper));
}

TEST_CASE("wrong secret, changed body or changed digest are rejected") {
  std::string body = "{}";
  std::string sig = sign("s3cret", body);
  auto wrong_secret = verify_signature("other", body, sig);
  REQUIRE_FALSE(wrong_secret);
  CHECK(wrong_secret.error().code == bb::Errc::invalid_argument);
  CHECK(wrong_secret.error().message.find("does not match") != std::string::npos);
  CHECK_FALSE(verify_signature("s3cret", "{ }", sig));
  std::string flipped = sig;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  CHECK_FALSE(verify_signature("s3cret", body, flipped));
}

TEST_CASE("missing signature header is rejected and says so") {
  auto st = verify_signature("s3cret", "{}", "");
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("missing X-Hub-Signature-256") != std::string::npos);
}

TEST_CASE("the SHA-1 header format and other prefixes are rejected") {
  std::string digest = sign("s3cret", "{}").substr(7);
  auto sha1 = verify_signature("s3cret", "{}", "sha1=" + digest.substr(0, 40));
  REQUIRE_FALSE(sha1);
  CHECK(sha1.error().message.find("sha256=") != std::string::npos);
  CHECK_FALSE(verify_signature("s3cret", "{}", digest));  // no prefix at all
  CHECK_FALSE(verify_signature("s3cret", "{}", "SHA256=" + digest));
}

TEST_CASE("truncated or non-hex digests are rejected") {
  std::string sig = sign("s3cret", "{}");
  CHECK_FALSE(verify_signature("s3cret", "{}", sig.substr(0, sig.size() - 2)));
  CHECK_FALSE(verify_signature("s3cret", "{}", sig + "00"));
  std::string nonhex = sig;
  nonhex[10] = 'g';
  auto st = verify_signature("s3cret", "{}", nonhex);
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("hex digest") != std::string::npos);
}

TEST_CASE("an empty secret never verifies, not even its own signature") {
  std::string sig = sign("", "{}");
  auto st = verify_signature("", "{}", sig);
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("secret is empty") != std::string::npos);
}
