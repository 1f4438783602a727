// Fetching a private repository with a GitHub App installation token, over
// real smart HTTP on loopback: `git http-backend` behind a Basic-auth
// libmicrohttpd server (test_http_git_server.h), a real libgit2 fetch. The
// token must open the repository, a missing or wrong one must fail clearly
// and promptly, and the token must not leak into errors or the cache.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "git/repository.h"
#include "git/test_http_git_server.h"
#include "util/file.h"
#include "util/text.h"

using namespace bb;
using namespace bb::git;

namespace {

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(("set -e; " + cmd + " 2>&1").c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) FAIL("command failed: " << cmd << "\n" << out);
  return trim(out);
}

std::string random_token() {
  std::random_device rd;
  std::string bytes;
  for (int i = 0; i < 18; ++i) bytes += static_cast<char>(rd() & 0xff);
  return "ghs_" + to_hex(bytes);  // the shape of an installation token
}

// Every file under dir that contains `needle` (config, packs, refs, logs...).
std::vector<std::string> files_containing(const std::string& dir, const std::string& needle) {
  std::vector<std::string> hits;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    auto content = read_file(entry.path().string());
    REQUIRE(content);
    if (content->find(needle) != std::string::npos) hits.push_back(entry.path().string());
  }
  return hits;
}

// A private "GitHub": srv/acme/widget.git with one commit on main, served
// at http://127.0.0.1:PORT/acme/widget.git to x-access-token:<token> only.
struct Fixture {
  std::string root, token = random_token(), sha, cache;
  std::unique_ptr<test::HttpGitServer> server;
  Fixture() {
    char tmpl[] = "/tmp/bb-git-auth-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    root = tmpl;
    std::string git = "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main ";
    sh(git + "init -q -b main " + root + "/work");
    REQUIRE(write_file_atomic(root + "/work/README", "private\n"));
    sh(git + "-C " + root + "/work add -A");
    sh(git + "-C " + root + "/work commit -q -m A");
    sha = sh("git -C " + root + "/work rev-parse HEAD");
    sh("mkdir -p " + root + "/srv/acme && git clone -q --bare " + root + "/work " + root + "/srv/acme/widget.git");
    server = std::make_unique<test::HttpGitServer>(root + "/srv", "x-access-token", token);
    cache = root + "/cache/acme_widget.git";
  }
  ~Fixture() {
    server.reset();
    std::system(("rm -rf '" + root + "'").c_str());
  }
  std::string url() const { return server->url("acme/widget.git"); }
};

FetchCredential credential(const std::string& secret) {
  FetchCredential c;
  c.secret = secret;
  return c;
}

}  // namespace

TEST_CASE("a private repository fetches over HTTP with the installation token") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  FetchCredential cred = credential(f.token);
  auto st = repo->fetch(f.url(), fetch_refspecs(0), &cred);
  INFO((st.ok() ? std::string() : st.error().message));
  REQUIRE(st);
  CHECK(*repo->resolve("refs/heads/main") == f.sha);
  CHECK(f.server->credentialed_requests() >= 1);
  CHECK(f.server->rejected() == 1);  // the anonymous first request: the token is sent only when asked

  // Nothing of the credential or the remote persists in the cache.
  CHECK(files_containing(f.cache, f.token).empty());
  auto config = read_file(f.cache + "/config");
  REQUIRE(config);
  CHECK(config->find("x-access-token") == std::string::npos);
  CHECK(config->find("remote") == std::string::npos);

  // A second fetch (new commits) works the same way.
  REQUIRE(repo->fetch(f.url(), fetch_refspecs(0), &cred));
  CHECK(files_containing(f.cache, f.token).empty());
}

TEST_CASE("a private repository without a credential fails with a clear error") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  auto st = repo->fetch(f.url(), fetch_refspecs(0));
  REQUIRE_FALSE(st);
  INFO(st.error().message);
  CHECK(st.error().message.starts_with("fetch " + f.url() + ": "));
  CHECK(st.error().message.find("needs credentials (a private repository") != std::string::npos);
  CHECK(f.server->credentialed_requests() == 0);
  CHECK_FALSE(repo->resolve("refs/heads/main"));
}

TEST_CASE("a wrong token fails once, clearly, and leaks nowhere") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  std::string wrong = random_token();
  FetchCredential cred = credential(wrong);
  auto st = repo->fetch(f.url(), fetch_refspecs(0), &cred);
  REQUIRE_FALSE(st);
  INFO(st.error().message);
  CHECK(st.error().message == "fetch " + f.url() + ": the server refused the credential (HTTP 401)");
  // Offered exactly once: no retry loop against the server.
  CHECK(f.server->credentialed_requests() == 1);
  CHECK(f.server->requests() == 2);
  CHECK(st.error().message.find(wrong) == std::string::npos);
  CHECK(files_containing(f.cache, wrong).empty());
}

TEST_CASE("the credentials callback is called at most twice per fetch") {
  // Drives libgit2 directly to count the callback's calls, not just what
  // reached the server.
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  FetchCredential cred = credential("ghs_wrong");
  git_remote* raw = nullptr;
  REQUIRE(git_remote_create_anonymous(&raw, repo->get(), f.url().c_str()) == 0);
  RemotePtr remote(raw);
  git_fetch_options opts = GIT_FETCH_OPTIONS_INIT;
  CredentialCallback callback(&cred);
  callback.install(opts.callbacks);
  CHECK(git_remote_fetch(remote.get(), nullptr, &opts, nullptr) == GIT_EUSER);
  CHECK(callback.calls() == 2);
  CHECK(callback.failure() == "the server refused the credential (HTTP 401)");
}

TEST_CASE("a secret in a libgit2 message is scrubbed") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  // The token authenticates, but the (mis)configured URL carries it and
  // names no repository: libgit2's 404 message and our prefix quote it.
  FetchCredential cred = credential(f.token);
  std::string url = f.server->url("acme/" + f.token + ".git");
  auto st = repo->fetch(url, fetch_refspecs(0), &cred);
  REQUIRE_FALSE(st);
  INFO(st.error().message);
  CHECK(st.error().message.find(f.token) == std::string::npos);
  CHECK(st.error().message.find("acme/***.git") != std::string::npos);

  CHECK(scrub_secret("a tok b tok", "tok") == "a *** b ***");
  CHECK(scrub_secret("nothing here", "") == "nothing here");
  CHECK(scrub_secret("xx", "x") == "******");
}

TEST_CASE("a credential is not used where no server asks, and wipe empties it") {
  Fixture f;
  auto repo = Repository::open_or_init_bare(f.cache);
  REQUIRE(repo);
  FetchCredential cred = credential(f.token);
  REQUIRE(repo->fetch(f.root + "/srv/acme/widget.git", fetch_refspecs(0), &cred));
  CHECK(*repo->resolve("refs/heads/main") == f.sha);
  CHECK(f.server->requests() == 0);
  cred.wipe();
  CHECK(cred.secret.empty());
  CHECK(cred.username == "x-access-token");
}
