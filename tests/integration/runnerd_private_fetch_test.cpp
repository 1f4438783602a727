// A private repository: runnerd fetches it with the GitHub App's
// installation token (from the fake GitHub, over real HTTP) from a real
// smart-HTTP git server that refuses anyone without it, and the token
// ends up in no log, no git config and no result.
#include <catch2/catch.hpp>

#include <fstream>

#include "git/test_http_git_server.h"
#include "github_api/fake_github.h"
#include "runnerd_fixture.h"
#include "util/file.h"

using namespace bb;
using namespace bb::test;
using json = nlohmann::json;

namespace {

constexpr const char* kToken = "ghs_fake_installation_token";  // what FakeGitHub grants

struct AppKey {
  TempDir dir;
  std::string creds = dir / "creds";
  std::string pub;
  AppKey() {
    const std::string key = creds + "/github-app-key";
    REQUIRE(run_shell("mkdir -p " + creds + " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out " +
                      key + " 2>/dev/null && openssl pkey -in " + key + " -pubout -out " + (dir / "pub.pem")) == 0);
    auto text = read_file(dir / "pub.pem");
    REQUIRE(text);
    pub = *text;
  }
};

std::string app_yaml(const std::string& api_url) {
  return "reporter:\n  github_app_id: 77\n  github_api_url: " + api_url + "\n";
}

}  // namespace

TEST_CASE("a private repository is fetched with the App's installation token, which appears nowhere") {
  AppKey key;
  github_api::FakeGitHub github(key.pub, {"acme/widget"});
  RunnerdFixture f(app_yaml(github.url()));
  f.commit(".benchbox.yml",
           "version: 1\nsuites:\n  - name: micro\n    run: \"test -f README\"\n    repetitions: 2\n    warmup: 0\n",
           "add benchbox config");
  const std::string sha = f.git("-C " + (f.dir() / "work") + " rev-parse HEAD");
  git::test::HttpGitServer server(f.dir().path(), "x-access-token", kToken);
  f.start_runner({{"CREDENTIALS_DIRECTORY", key.creds}});

  json spec = f.push_spec(sha);
  spec["clone_url"] = server.url("origin.git");
  json job = f.wait_finished(f.enqueue(spec));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "done");
  CHECK(server.credentialed_requests() > 0);
  bool asked = false;
  for (const auto& r : github.requests())
    if (r.path.find("/access_tokens") != std::string::npos) asked = true;
  CHECK(asked);

  // Nowhere: not in runnerd's log, the job, the result or the git cache.
  CHECK(f.runner_log().find(kToken) == std::string::npos);
  CHECK(job.dump().find(kToken) == std::string::npos);
  std::string out;
  CHECK(run_shell("grep -rlF " + std::string(kToken) + " " + (f.dir() / "cache") + " " + (f.dir() / "state"), &out) != 0);
  CHECK(out.empty());

  SECTION("a clone URL on another host gets no token") {
    const auto before = github.requests().size();
    json local = f.push_spec(sha);  // the origin by path: no host at all
    json done = f.wait_finished(f.enqueue(local));
    CHECK(done["state"] == "done");
    CHECK(github.requests().size() == before);
  }
}

TEST_CASE("without the App's token a private repository fails with a clear reason") {
  AppKey key;
  github_api::FakeGitHub github(key.pub, {});  // the App is installed nowhere
  RunnerdFixture f(app_yaml(github.url()));
  const std::string sha = f.git("-C " + (f.dir() / "work") + " rev-parse HEAD");
  git::test::HttpGitServer server(f.dir().path(), "x-access-token", kToken);
  f.start_runner({{"CREDENTIALS_DIRECTORY", key.creds}});
  json spec = f.push_spec(sha);
  spec["clone_url"] = server.url("origin.git");
  json job = f.wait_finished(f.enqueue(spec));
  INFO(f.runner_log());
  REQUIRE(job["state"] == "failed");
  CHECK(job["error"].get<std::string>().find("needs credentials") != std::string::npos);
  CHECK(f.runner_log().find("fetching without an installation token") != std::string::npos);
}

TEST_CASE("an App without its key: runnerd refuses to start and says which credential") {
  AppKey key;
  RunnerdFixture f(app_yaml("http://127.0.0.1:9"));
  CHECK_THROWS(f.start_runner({{"CREDENTIALS_DIRECTORY", key.dir / "nowhere"}}));
  CHECK(f.runner_log().find("github-app-key") != std::string::npos);
}
