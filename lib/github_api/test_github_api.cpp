#include <catch2/catch.hpp>

#include <atomic>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "github_api/app_jwt.h"
#include "util/test_tempdir.h"
#include "github_api/client.h"
#include "github_api/credentials.h"
#include "github_api/fake_github.h"
#include "github_api/want.h"

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

using bb::test::TempDir;
void write(const bb::test::TempDir& d, const std::string& name, const std::string& text) { std::ofstream(d.path + "/" + name) << text; }

int count_paths(FakeGitHub& gh, const std::string& part) {
  int n = 0;
  for (const auto& r : gh.requests()) n += r.path.find(part) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("App JWTs are RS256, verify with the public key, and carry iss/iat/exp") {
  auto jwt = make_app_jwt(1234, keys().private_pem, 1700000000);
  REQUIRE(jwt.ok());
  CHECK(verify_jwt(*jwt, keys().public_pem).ok());
  std::string tampered = *jwt;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'a' ? 'b' : 'a';
  CHECK_FALSE(verify_jwt(tampered, keys().public_pem).ok());
  CHECK_FALSE(verify_jwt(*jwt, make_keys().public_pem).ok());  // another App's key
  CHECK(base64url("\xfb\xff") == "-_8");
  CHECK_FALSE(make_app_jwt(1, "not a key", 0).ok());
}

TEST_CASE("as an App: one installation token, reused, and refreshed once after a 401") {
  FakeGitHub gh(keys().public_pem, {"o/r"});
  SystemClock clock;
  Client client(gh.url(), 1234, keys().private_pem, clock);

  auto first = client.request("GET", "o/r", "/repos/o/r/issues?state=all");
  REQUIRE(first.ok());
  CHECK(first->status == 200);
  CHECK(first->json().is_array());
  REQUIRE(client.request("GET", "o/r", "/repos/o/r/issues").ok());
  CHECK(count_paths(gh, "/access_tokens") == 1);
  CHECK(gh.requests().back().authorization == "Bearer ghs_fake_installation_token");
  auto token = client.installation_token("o/r");
  REQUIRE(token.ok());
  CHECK(*token == "ghs_fake_installation_token");

  // GitHub revoked the cached token: one 401, a new token, the call again.
  gh.revoke_installation_tokens();
  auto again = client.request("GET", "o/r", "/repos/o/r/issues");
  REQUIRE(again.ok());
  CHECK(again->status == 200);
  CHECK(count_paths(gh, "/access_tokens") == 2);
  CHECK(gh.requests().back().authorization == "Bearer " + gh.current_installation_token());

}

TEST_CASE("a 401 after a token refresh is returned, not retried forever") {
  FakeGitHub gh(keys().public_pem, {"o/r"});
  SystemClock clock;
  Client client(gh.url(), 1234, keys().private_pem, clock);
  REQUIRE(client.request("GET", "o/r", "/repos/o/r/issues").ok());
  gh.fail_next(5, 401, {}, {{"message", "Bad credentials"}}, "GET /repos/o/r/issues");
  auto refused = client.request("GET", "o/r", "/repos/o/r/issues");
  REQUIRE(refused.ok());
  CHECK(refused->status == 401);
  CHECK(refused->message() == "Bad credentials");
  CHECK(count_paths(gh, "/access_tokens") == 2);  // exactly one refresh
  CHECK(count_paths(gh, "/repos/o/r/issues") == 3);
}

TEST_CASE("a plain token is sent as a bearer, for every repository, with no App calls") {
  FakeGitHub gh(keys().public_pem, {});
  gh.accept_token("ghp_plain");
  SystemClock clock;
  Credentials creds;
  creds.mode = Credentials::Mode::token;
  creds.token = "ghp_plain";
  Client client(gh.url(), creds, clock);
  auto reply = client.request("GET", "any/repo", "/repos/any/repo/issues");
  REQUIRE(reply.ok());
  CHECK(reply->status == 200);
  CHECK(gh.requests().back().authorization == "Bearer ghp_plain");
  CHECK(count_paths(gh, "/installation") == 0);
  auto token = client.installation_token("any/repo");
  REQUIRE(token.ok());
  CHECK(*token == "ghp_plain");

  creds.token = "ghp_wrong";
  Client wrong(gh.url(), creds, clock);
  reply = wrong.request("GET", "any/repo", "/repos/any/repo/issues");
  REQUIRE(reply.ok());
  CHECK(reply->status == 401);
  CHECK(count_paths(gh, "/repos/any/repo/issues") == 2);  // a plain token is not "refreshed"
}

TEST_CASE("a stopping daemon's request ends at once, as one that may have been sent") {
  FakeGitHub gh(keys().public_pem, {});
  gh.accept_token("ghp_plain");
  SystemClock clock;
  Credentials creds;
  creds.mode = Credentials::Mode::token;
  creds.token = "ghp_plain";
  Client client(gh.url(), creds, clock);
  std::atomic<bool> stop{false};
  client.set_abort_flag(&stop);
  auto fine = client.request("GET", "any/repo", "/repos/any/repo/issues");
  REQUIRE(fine.ok());
  CHECK(fine->status == 200);  // the flag alone changes nothing
  stop = true;
  auto cut = client.request("GET", "any/repo", "/repos/any/repo/issues");
  REQUIRE(cut.ok());
  CHECK(cut->status == 0);
  CHECK(cut->maybe_sent);  // a create must look before it is made again
  CHECK(cut->transport_error.find("abort") != std::string::npos);
}

TEST_CASE("replies carry their headers, lower-cased, and GitHub's message and errors") {
  FakeGitHub gh(keys().public_pem, {});
  gh.accept_token("t");
  SystemClock clock;
  Client client(gh.url(), Credentials{Credentials::Mode::token, 0, "", "t"}, clock);
  gh.fail_next(1, 403, {{"Retry-After", "7"}, {"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1700000100"}},
               {{"message", "API rate limit exceeded"}});
  auto r = client.request("POST", "o/r", "/repos/o/r/issues", nullptr);
  REQUIRE(r.ok());
  CHECK(r->status == 403);
  CHECK(r->header("retry-after") == "7");
  CHECK(r->header("x-ratelimit-remaining") == "0");
  CHECK(r->header("x-ratelimit-reset") == "1700000100");
  CHECK(r->describe() == "POST /repos/o/r/issues: HTTP 403: API rate limit exceeded");

  nlohmann::json issue = {{"body", "no title"}};
  r = client.request("POST", "o/r", "/repos/o/r/issues", &issue);
  REQUIRE(r.ok());
  CHECK(r->status == 422);
  CHECK(r->message().find("Validation Failed") == 0);
  CHECK(r->message().find("missing_field") != std::string::npos);
}

TEST_CASE("network failures: refused before sending, or lost after (outcome unknown)") {
  SystemClock clock;
  Client down("http://127.0.0.1:1", Credentials{Credentials::Mode::token, 0, "", "t"}, clock);
  auto r = down.request("POST", "o/r", "/repos/o/r/check-runs");
  REQUIRE(r.ok());
  CHECK(r->status == 0);
  CHECK_FALSE(r->maybe_sent);
  CHECK_FALSE(r->transport_error.empty());

  FakeGitHub gh(keys().public_pem, {});
  gh.accept_token("t");
  Client client(gh.url(), Credentials{Credentials::Mode::token, 0, "", "t"}, clock);
  gh.lose_next_reply(1);
  nlohmann::json issue = {{"title", "x"}};
  r = client.request("POST", "o/r", "/repos/o/r/issues", &issue);
  REQUIRE(r.ok());
  CHECK(r->status == 0);
  CHECK(r->maybe_sent);
  CHECK(gh.issues().size() == 1);  // it did happen
}

TEST_CASE("App errors are clear: not installed, wrong key") {
  FakeGitHub gh(keys().public_pem, {"o/r"});
  SystemClock clock;
  Client client(gh.url(), 1, keys().private_pem, clock);
  auto token = client.installation_token("other/repo");
  REQUIRE_FALSE(token.ok());
  CHECK(token.error().message.find("not installed on other/repo") != std::string::npos);
  auto r = client.request("GET", "other/repo", "/repos/other/repo/issues");
  REQUIRE(r.ok());
  CHECK(r->status == 404);
  CHECK_FALSE(r->maybe_sent);
  CHECK(r->describe().find("installation on other/repo") != std::string::npos);

  Client wrong_key(gh.url(), 1, make_keys().private_pem, clock);
  r = wrong_key.request("GET", "o/r", "/repos/o/r/issues");
  REQUIRE(r.ok());
  CHECK(r->status == 401);
  CHECK_FALSE(wrong_key.installation_token("o/r").ok());

  Client bad_key(gh.url(), 1, "not a key", clock);
  CHECK_FALSE(bad_key.request("GET", "o/r", "/repos/o/r/issues").ok());
}

TEST_CASE("credentials: one loader, errors name the credential and how to create it") {
  TempDir dir;
  auto app = load_credentials("app", 77, dir.path);
  REQUIRE_FALSE(app.ok());
  CHECK(app.error().message.find("github-app-key") != std::string::npos);
  CHECK(app.error().message.find("benchbox-credentials set github-app-key FILE.pem") != std::string::npos);

  write(dir, "github-app-key", keys().private_pem);
  app = load_credentials("app", 77, dir.path);
  REQUIRE(app.ok());
  CHECK(app->mode == Credentials::Mode::app);
  CHECK(app->app_id == 77);
  CHECK(app->app_key_pem == keys().private_pem);
  CHECK_FALSE(load_credentials("app", 0, dir.path).ok());
  write(dir, "github-app-key", "hello");
  CHECK_FALSE(load_credentials("app", 77, dir.path).ok());

  auto token = load_credentials("token", 0, dir.path);
  REQUIRE_FALSE(token.ok());
  CHECK(token.error().message.find("benchbox-credentials set github-token") != std::string::npos);
  write(dir, "github-token", "ghp_abc\n");
  token = load_credentials("token", 0, dir.path);
  REQUIRE(token.ok());
  CHECK(token->mode == Credentials::Mode::token);
  CHECK(token->token == "ghp_abc");
  write(dir, "github-token", "two words\n");
  CHECK_FALSE(load_credentials("token", 0, dir.path).ok());
  write(dir, "github-token", "\n");
  CHECK_FALSE(load_credentials("token", 0, dir.path).ok());

  auto nowhere = load_credentials("token", 0, "");
  REQUIRE_FALSE(nowhere.ok());
  CHECK(nowhere.error().message.find("LoadCredentialEncrypted=github-token") != std::string::npos);
  CHECK_FALSE(load_credentials("off", 0, dir.path).ok());
  CHECK(std::string(credential_name("token")) == "github-token");
  CHECK(std::string(credential_name("app")) == "github-app-key");
}

TEST_CASE("wants survive their JSON form, and targets have one spelling") {
  CHECK(check_run_target("o/r", 42) == "check-run/o/r/42");
  CHECK(comment_target("o/r", 7) == "comment/o/r/7");
  CHECK(issue_target("o/r", "regression:refs/heads/main:42") == "issue/o/r/regression:refs/heads/main:42");

  CheckRunWant run;
  run.repository = "o/r";
  run.head_sha = std::string(40, 'a');
  run.external_id = "42";
  run.status = "completed";
  run.conclusion = "failure";
  run.title = "t";
  run.summary = "s µ";
  run.text = "x";
  run.details_url = "https://bench/42";
  run.started_at = 1700000000;
  run.completed_at = 1700000100;
  Want w{check_run_target("o/r", 42), run};
  auto back = want_from_json(to_json(w));
  REQUIRE(back.ok());
  CHECK(back->target == w.target);
  const auto& r = std::get<CheckRunWant>(back->what);
  CHECK(r.repository == "o/r");
  CHECK(r.head_sha == run.head_sha);
  CHECK(r.name == "benchbox");
  CHECK(r.external_id == "42");
  CHECK(r.conclusion == "failure");
  CHECK(r.summary == "s µ");
  CHECK(r.details_url == run.details_url);
  CHECK(r.completed_at == 1700000100);

  CommentWant comment{"o/r", 7, "body", false};
  back = want_from_json(to_json(Want{comment_target("o/r", 7), comment}));
  REQUIRE(back.ok());
  CHECK(std::get<CommentWant>(back->what).number == 7);
  CHECK_FALSE(std::get<CommentWant>(back->what).create);

  IssueWant issue{"o/r", "m", "title", "body", {"performance", "benchbox"}, false, "fixed"};
  back = want_from_json(to_json(Want{issue_target("o/r", "m"), issue}));
  REQUIRE(back.ok());
  const auto& i = std::get<IssueWant>(back->what);
  CHECK(i.labels == std::vector<std::string>{"performance", "benchbox"});
  CHECK_FALSE(i.open);
  CHECK(i.closing_comment == "fixed");

  auto j = to_json(Want{comment_target("o/r", 7), comment});
  j["want"]["number"] = "seven";
  auto bad = want_from_json(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("number") != std::string::npos);
  j = to_json(Want{comment_target("o/r", 7), comment});
  j["kind"] = "telegram";
  CHECK_FALSE(want_from_json(j).ok());
  CHECK_FALSE(want_from_json(nlohmann::json::array()).ok());
}
