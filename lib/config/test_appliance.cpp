#include <catch2/catch.hpp>

#include "config/appliance.h"

using namespace bb;
using namespace bb::config;

TEST_CASE("an empty appliance config means all defaults") {
  auto c = parse_appliance_config("", "t.yml");
  REQUIRE(c.ok());
  CHECK(c->webhook.max_body_bytes == 25u * 1024 * 1024);
  CHECK(c->queue_database() == "/var/lib/benchbox/queue.db");
}

TEST_CASE("repositories and sections parse") {
  auto c = parse_appliance_config(R"(
state_dir: /tmp/s
repositories:
  - name: o/r
    clone_url: /srv/r.git
    branches: [main, "release/*"]
    blessers: [alice]
webhook:
  max_body_bytes: 1000
runner:
  benchmark_cpus: "1"
)", "t.yml");
  REQUIRE(c.ok());
  const auto* r = c->find_repository("o/r");
  REQUIRE(r);
  CHECK(r->branches.size() == 2);
  CHECK(r->tags == std::vector<std::string>{"v*"});
  CHECK(r->blessers == std::vector<std::string>{"alice"});
  CHECK(c->webhook.max_body_bytes == 1000);
  CHECK(c->spool_dir() == "/tmp/s/spool");
}

TEST_CASE("config errors name file, line, column and key") {
  auto bad_type = parse_appliance_config("webhook:\n  max_body_bytes: lots\n", "t.yml");
  REQUIRE_FALSE(bad_type.ok());
  CHECK(bad_type.error().message == "t.yml:2:19: webhook.max_body_bytes: expected a non-negative integer, got 'lots'");
  auto typo = parse_appliance_config("webhok: {}\n", "t.yml");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message.find("unknown key 'webhok'") != std::string::npos);
  auto syntax = parse_appliance_config("a: [1,\n", "t.yml");
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.error().message.rfind("t.yml:", 0) == 0);
  auto repo = parse_appliance_config("repositories:\n  - name: norepo\n", "t.yml");
  REQUIRE_FALSE(repo.ok());
  CHECK(repo.error().message.find("owner/repo") != std::string::npos);
}

TEST_CASE("a missing config is defaults at the default path, an error when named") {
  ConfigSource absent{"/nonexistent/benchbox.yml", false};
  REQUIRE(load_appliance_config(absent).ok());
  absent.given = true;
  auto named = load_appliance_config(absent);
  REQUIRE_FALSE(named.ok());
  CHECK(named.error().code == Errc::not_found);
}
