#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "github_api/app_jwt.h"
#include "github_api/client.h"
#include "github_api/fake_github.h"

using namespace bb;
using namespace bb::github_api;

namespace {

struct KeyPair {
  std::string private_pem, public_pem;
};

KeyPair make_keys() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  REQUIRE(key);
  BIO* priv = BIO_new(BIO_s_mem());
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_bio_PUBKEY(pub, key);
  auto take = [](BIO* b) {
    char* data = nullptr;
    long n = BIO_get_mem_data(b, &data);
    std::string s(data, static_cast<size_t>(n));
    BIO_free(b);
    return s;
  };
  KeyPair kp{take(priv), take(pub)};
  EVP_PKEY_free(key);
  return kp;
}

const KeyPair& keys() {
  static KeyPair kp = make_keys();
  return kp;
}

}  // namespace

TEST_CASE("App JWTs are RS256, verify with the public key, and carry iss/iat/exp") {
  auto jwt = make_app_jwt(1234, keys().private_pem, 1700000000);
  REQUIRE(jwt.ok());
  CHECK(verify_jwt(*jwt, keys().public_pem).ok());
  std::string tampered = *jwt;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'a' ? 'b' : 'a';
  CHECK_FALSE(verify_jwt(tampered, keys().public_pem).ok());
  CHECK(base64url("\xfb\xff") == "-_8");
  CHECK_FALSE(make_app_jwt(1, "not a key", 0).ok());
}

TEST_CASE("check runs, a sticky comment edited in place, and issues reach GitHub") {
  FakeGitHub gh(keys().public_pem, {"o/r"});
  SystemClock clock;
  Client client(gh.url(), 1234, keys().private_pem, clock);

  auto run = client.create_check_run("o/r", std::string(40, 'a'), "benchbox", "failure", "1 regressed", "table");
  REQUIRE(run.ok());
  REQUIRE(gh.check_runs().size() == 1);
  CHECK(gh.check_runs()[0]["conclusion"] == "failure");
  CHECK(gh.check_runs()[0]["status"] == "completed");

  // Someone else's comments fill more than one page before ours.
  for (int i = 0; i < 120; ++i) gh.add_comment("o/r", 7, "lgtm " + std::to_string(i));
  auto first = client.upsert_sticky_comment("o/r", 7, "first report");
  REQUIRE(first.ok());
  auto second = client.upsert_sticky_comment("o/r", 7, "second report");
  REQUIRE(second.ok());
  CHECK(*first == *second);
  auto comments = gh.comments("o/r", 7);
  REQUIRE(comments.size() == 121);
  CHECK(comments.back()["body"].get<std::string>().find("second report") != std::string::npos);

  auto issue = client.open_issue("o/r", "Regression", "body");
  REQUIRE(issue.ok());
  CHECK(*issue == 1);

  // The installation token is fetched once and reused.
  int token_requests = 0;
  for (const auto& r : gh.requests()) token_requests += r.path.find("access_tokens") != std::string::npos;
  CHECK(token_requests == 1);
}

TEST_CASE("GitHub errors are clear: app not installed, wrong key, server down") {
  FakeGitHub gh(keys().public_pem, {"o/r"});
  SystemClock clock;
  Client not_installed(gh.url(), 1, keys().private_pem, clock);
  auto r = not_installed.open_issue("other/repo", "t", "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("not installed on other/repo") != std::string::npos);

  KeyPair other = make_keys();
  Client wrong_key(gh.url(), 1, other.private_pem, clock);
  r = wrong_key.open_issue("o/r", "t", "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("401") != std::string::npos);

  Client down("http://127.0.0.1:1", 1, keys().private_pem, clock);
  r = down.open_issue("o/r", "t", "b");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == Errc::unavailable);
}
