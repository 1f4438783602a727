// benchbox-webhookd's life: socket activation, refusing to start without
// its secret or a socket, SIGHUP reload, SIGTERM.
#include <catch2/catch.hpp>

#include <signal.h>
#include <nlohmann/json.hpp>

#include "queued_client.h"
#include "webhookd_fixture.h"

using namespace bb::test;
using nlohmann::json;

TEST_CASE("socket activation: systemd-socket-activate hands over the listening fd", "[webhookd]") {
  WebhookdFixture w;
  w.queue().start_and_wait();
  if (run_shell("command -v systemd-socket-activate >/dev/null") != 0) FAIL("systemd-socket-activate is not installed");
  // systemd-socket-activate passes on only the environment named with -E.
  std::vector<std::string> argv = {"/usr/bin/systemd-socket-activate", "-l",
                                   "127.0.0.1:" + std::to_string(w.port()), "--fdname=webhook"};
  for (const auto& [k, v] : w.env()) argv.push_back("-E" + k + "=" + v);
  for (const auto& a : {w.daemon_path(), std::string("--config"), w.config_path()}) argv.push_back(a);
  Process activator(argv, w.env(), w.dir() / "activated.log");
  // The socket is listening before the daemon exists; the first connection starts it.
  REQUIRE(wait_until([&] {
    try {
      RawClient probe(w.port());
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }));
  auto resp = w.post("push", "activated-1", github_fixture("push_branch.json"));
  INFO(activator.log());
  REQUIRE(resp.status == 202);
  CHECK(json::parse(resp.body)["job_id"].get<int64_t>() > 0);
  CHECK(activator.log().find("serving webhooks") != std::string::npos);
  CHECK(activator.terminate() == 0);
}

TEST_CASE("no secret: refuses to start and names the credential", "[webhookd]") {
  WebhookdFixture w;
  auto env = w.env();
  SECTION("CREDENTIALS_DIRECTORY unset") { env["CREDENTIALS_DIRECTORY"] = ""; }
  SECTION("credential file missing") { env["CREDENTIALS_DIRECTORY"] = w.dir() / "no-such-dir"; }
  SECTION("credential empty") {
    run_shell("mkdir -p '" + (w.dir() / "empty") + "' && : > '" + (w.dir() / "empty/webhook-secret") + "'");
    env["CREDENTIALS_DIRECTORY"] = w.dir() / "empty";
  }
  Process p({w.daemon_path(), "--config", w.config_path(), "--listen", "127.0.0.1:" + std::to_string(w.port())},
            env, w.dir() / "nosecret.log");
  REQUIRE(wait_until([&] { return !p.running(); }));
  CHECK(p.terminate() == 1);
  std::string log = p.log();
  CHECK(log.find("webhook-secret") != std::string::npos);
  CHECK(log.find("systemd-creds encrypt") != std::string::npos);
}

TEST_CASE("no socket from systemd and no --listen: refuses to start and says why", "[webhookd]") {
  WebhookdFixture w;
  Process p({w.daemon_path(), "--config", w.config_path()}, w.env(), w.dir() / "nosocket.log");
  REQUIRE(wait_until([&] { return !p.running(); }));
  CHECK(p.terminate() == 1);
  CHECK(p.log().find("no listening socket") != std::string::npos);
}

TEST_CASE("a config given with --config that does not exist is an error", "[webhookd]") {
  WebhookdFixture w;
  Process p({w.daemon_path(), "--config", w.dir() / "missing.yml", "--listen", "127.0.0.1:1"}, w.env(),
            w.dir() / "missing.log");
  REQUIRE(wait_until([&] { return !p.running(); }));
  CHECK(p.terminate() == 1);
  CHECK(p.log().find("missing.yml") != std::string::npos);
}

TEST_CASE("SIGHUP reloads the policy and the secret; SIGTERM exits 0", "[webhookd]") {
  WebhookdFixture w;
  w.queue().start_and_wait();
  w.start();
  json j = github_fixture_json("push_branch.json");
  j["ref"] = "refs/heads/develop";
  CHECK(w.post("push", "hup-1", j.dump()).status == 202);  // ignored: develop is not watched
  CHECK(json::parse(w.post("push", "hup-1", j.dump()).body).contains("ignored"));

  // Watch develop too, in the same file.
  REQUIRE(run_shell("sed -i 's/branches: \\[main/branches: [develop, main/' '" + w.config_path() + "'") == 0);
  ::kill(w.daemon().pid(), SIGHUP);
  REQUIRE(wait_until([&] { return w.log().find("config reloaded") != std::string::npos; }));
  auto resp = w.post("push", "hup-2", j.dump());
  CHECK(resp.status == 202);
  CHECK(json::parse(resp.body).contains("job_id"));

  // A new secret takes effect on SIGHUP too (another commit: a new job each time).
  j["after"] = "1111111111111111111111111111111111111111";
  run_shell("echo rotated > '" + (w.dir() / "creds/webhook-secret") + "'");
  ::kill(w.daemon().pid(), SIGHUP);
  REQUIRE(wait_until([&] {
    std::string sig = github_signature("rotated", j.dump());
    return w.post("push", "hup-3", j.dump(), &sig).status == 202;
  }));
  CHECK(w.post("push", "hup-4", j.dump()).status == 401);  // the old secret no longer works
  CHECK(w.daemon().terminate() == 0);
}
