#include <catch2/catch.hpp>

#include "config/appliance.h"
#include "config/notify_config.h"

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

TEST_CASE("the webhook door's limits parse, with ranges that name the key") {
  auto c = parse_appliance_config(R"(
webhook:
  max_connections: 512
  header_timeout_seconds: 5
  idle_timeout_seconds: 3
  max_header_bytes: 16384
  max_body_bytes_in_flight: 104857600
queue:
  replay_window_seconds: 86400
)", "t.yml");
  REQUIRE(c.ok());
  CHECK(c->webhook.max_connections == 512);
  CHECK(c->webhook.header_timeout_seconds == 5);
  CHECK(c->webhook.idle_timeout_seconds == 3);
  CHECK(c->webhook.max_header_bytes == 16384);
  CHECK(c->webhook.max_body_bytes_in_flight == 104857600u);
  CHECK(c->queue.replay_window_seconds == 86400u);

  auto defaults = parse_appliance_config("", "t.yml");
  CHECK(defaults->webhook.max_connections == 128);
  CHECK(defaults->queue.replay_window_seconds == 7u * 24 * 3600);

  auto zero = parse_appliance_config("webhook:\n  max_connections: 0\n", "t.yml");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message == "t.yml:2:20: webhook.max_connections: expected 1 to 65536, got 0");
  auto cap = parse_appliance_config("webhook:\n  max_body_bytes: 2000\n  max_body_bytes_in_flight: 1000\n", "t.yml");
  REQUIRE_FALSE(cap.ok());
  CHECK(cap.error().message.find("webhook.max_body_bytes_in_flight: must be at least webhook.max_body_bytes") !=
        std::string::npos);
}

TEST_CASE("the update section") {
  auto c = parse_appliance_config("state_dir: /s\nupdate:\n  max_wait_seconds: 60\n  health_timeout_seconds: 20\n", "t.yml");
  REQUIRE(c.ok());
  CHECK(c->update.max_wait_seconds == 60);
  CHECK(c->update.health_timeout_seconds == 20);
  CHECK(c->update.source == "/etc/apt/sources.list.d/benchbox.sources");
  CHECK(c->update_dir() == "/s/update");
  auto bad = parse_appliance_config("update:\n  health_timeout_seconds: 0\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("update.health_timeout_seconds: expected 1 to 3600") != std::string::npos);
}

TEST_CASE("the build cache's bound: 10 GiB by default, 0 turns it off") {
  auto d = config::parse_appliance_config("", "benchbox.yml");
  REQUIRE(d.ok());
  CHECK(d->runner.build_cache_bytes == (10ull << 30));
  auto off = config::parse_appliance_config("runner:\n  build_cache_bytes: 0\n", "benchbox.yml");
  REQUIRE(off.ok());
  CHECK(off->runner.build_cache_bytes == 0);
  CHECK_FALSE(config::parse_appliance_config("runner:\n  build_cache_bytes: lots\n", "benchbox.yml").ok());
}

TEST_CASE("containment: the job user and the per-job bounds, with defaults, 0 for none") {
  auto d = config::parse_appliance_config("", "benchbox.yml");
  REQUIRE(d.ok());
  CHECK(d->runner.job_user == "benchbox-job");
  CHECK(d->runner.memory_max_bytes == (8ull << 30));
  CHECK(d->runner.tasks_max == 4096);
  CHECK(d->runner.file_size_max_bytes == (16ull << 30));
  CHECK(d->runner.work_tree_max_bytes == (32ull << 30));
  auto c = config::parse_appliance_config(
      "runner:\n  job_user: builder\n  memory_max_bytes: 0\n  tasks_max: 64\n  work_tree_max_bytes: 1000\n",
      "benchbox.yml");
  REQUIRE(c.ok());
  CHECK(c->runner.job_user == "builder");
  CHECK(c->runner.memory_max_bytes == 0);
  CHECK(c->runner.tasks_max == 64);
  CHECK(c->runner.work_tree_max_bytes == 1000);
  auto bad = config::parse_appliance_config("runner:\n  tasks_max: many\n", "benchbox.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("runner.tasks_max") != std::string::npos);
}

TEST_CASE("the access section: the packaged identities by default, overridable, typos refused") {
  auto d = parse_appliance_config("", "t.yml");
  REQUIRE(d.ok());
  CHECK(d->access.admin_group == "benchbox-admin");
  CHECK(d->access.webhook_user == "benchbox-webhook");
  CHECK(d->access.runner_user == "benchbox-runner");
  CHECK(d->access.reporter_user == "benchbox-report");
  CHECK(d->reporter.confirm_regressions);
  auto c = parse_appliance_config("access:\n  admin_group: ops\n  runner_user: nobody\n  reporter_user: r\n", "t.yml");
  REQUIRE(c.ok());
  CHECK(c->access.admin_group == "ops");
  CHECK(c->access.runner_user == "nobody");
  CHECK(c->access.webhook_user == "benchbox-webhook");
  CHECK(c->access.reporter_user == "r");
  auto bad = parse_appliance_config("access:\n  reportr_user: x\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("reportr_user") != std::string::npos);
}

TEST_CASE("a repository's network: loopback by default, none or full, nothing else") {
  auto c = parse_appliance_config("repositories:\n  - name: o/a\n  - name: o/b\n    network: full\n", "t.yml");
  REQUIRE(c.ok());
  CHECK(c->find_repository("o/a")->network == "loopback");
  CHECK(c->find_repository("o/b")->network == "full");
  auto bad = parse_appliance_config("repositories:\n  - name: o/a\n    network: some\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("t.yml:3:") == 0);
  CHECK(bad.error().message.find("repositories[0].network: expected none, loopback or full, got 'some'") !=
        std::string::npos);
}

TEST_CASE("the reporter section: how to post, where the dashboard is, what to keep") {
  auto defaults = parse_appliance_config("", "t.yml");
  REQUIRE(defaults.ok());
  CHECK(defaults->reporter.auth_mode() == "off");
  CHECK(defaults->reporter.pr_comment == "changes");
  CHECK(defaults->reporter.pr_samples_days == 90);
  CHECK(defaults->outbox_database() == "/var/lib/benchbox/outbox.db");

  auto app = parse_appliance_config("reporter:\n  github_app_id: 12\n  site_url: https://bench.example.org\n", "t.yml");
  REQUIRE(app.ok());
  CHECK(app->reporter.auth_mode() == "app");
  CHECK(app->reporter.site_url == "https://bench.example.org/");  // links are joined to it
  auto token = parse_appliance_config("reporter:\n  github_auth: token\n  pr_comment: always\n", "t.yml");
  REQUIRE(token.ok());
  CHECK(token->reporter.auth_mode() == "token");

  auto bad = [](const std::string& text) {
    auto c = parse_appliance_config(text, "t.yml");
    REQUIRE_FALSE(c.ok());
    return c.error().message;
  };
  CHECK(bad("reporter:\n  github_auth: oauth\n").find("expected off, app or token, got 'oauth'") != std::string::npos);
  CHECK(bad("reporter:\n  github_auth: app\n").find("needs reporter.github_app_id") != std::string::npos);
  CHECK(bad("reporter:\n  site_url: bench.example.org\n").find("http:// or https://") != std::string::npos);
  CHECK(bad("reporter:\n  pr_comment: sometimes\n").find("changes, always or never") != std::string::npos);
  CHECK(bad("reporter:\n  github_retry_seconds: 0\n").find("github_retry_seconds") != std::string::npos);

  // Notifications: their own outbox, the MTA's sendmail, a sender address.
  CHECK(defaults->notify_outbox_database() == "/var/lib/benchbox/notify-outbox.db");
  CHECK(defaults->reporter.sendmail == "/usr/sbin/sendmail");
  CHECK(defaults->reporter.mail_from.empty());
  CHECK(defaults->reporter.notify_timeout_seconds == 30);
  auto mail = parse_appliance_config(
      "reporter:\n  sendmail: /usr/lib/sendmail\n  mail_from: bench@example.org\n  notify_timeout_seconds: 5\n",
      "t.yml");
  REQUIRE(mail.ok());
  CHECK(mail->reporter.sendmail == "/usr/lib/sendmail");
  CHECK(mail->reporter.mail_from == "bench@example.org");
  CHECK(mail->reporter.notify_timeout_seconds == 5);
  CHECK(bad("reporter:\n  sendmail: sendmail\n").find("reporter.sendmail: expected an absolute path") !=
        std::string::npos);
  CHECK(bad("reporter:\n  mail_from: \"a@b, c@d\"\n").find("'a@b, c@d' is not one mail address") !=
        std::string::npos);
  CHECK(bad("reporter:\n  notify_timeout_seconds: 0\n").find("notify_timeout_seconds") != std::string::npos);
}

TEST_CASE("the queue's back end: sqlite by default, postgresql for a fleet, nothing else") {
  auto defaults = parse_appliance_config("", "t.yml");
  CHECK(defaults->queue.backend == "sqlite");
  CHECK(defaults->reporter.backend == "sqlite");
  auto pg = parse_appliance_config("queue:\n  backend: postgresql\nreporter:\n  backend: postgresql\n", "t.yml");
  REQUIRE(pg.ok());
  CHECK(pg->queue.backend == "postgresql");
  CHECK(pg->reporter.backend == "postgresql");
  auto bad = parse_appliance_config("reporter:\n  backend: mysql\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "t.yml:2:12: reporter.backend: expected sqlite or postgresql, got 'mysql'");
  auto typo = parse_appliance_config("queue:\n  backend: postgres\n", "t.yml");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message == "t.yml:2:12: queue.backend: expected sqlite or postgresql, got 'postgres'");
}

TEST_CASE("runner.containment: required by default, allow-uncontained when said, nothing else") {
  auto defaults = parse_appliance_config("", "t.yml");
  REQUIRE(defaults.ok());
  CHECK(defaults->runner.containment == "required");
  auto allowed = parse_appliance_config("runner:\n  containment: allow-uncontained\n", "t.yml");
  REQUIRE(allowed.ok());
  CHECK(allowed->runner.containment == "allow-uncontained");
  auto bad = parse_appliance_config("runner:\n  containment: maybe\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("t.yml:2:") == 0);
  CHECK(bad.error().message.find("runner.containment: expected required or allow-uncontained, got 'maybe'") !=
        std::string::npos);
}

TEST_CASE("a repository's notify list: each kind with what it needs, and nothing that could be misread") {
  auto c = parse_appliance_config(R"(
repositories:
  - name: o/r
    notify:
      - kind: webhook
        url: https://hooks.example/benchbox
        secret: notify-o-r
        events: [regression_confirmed, regression_closed]
      - kind: slack
        url: https://hooks.slack.example/services/T0/B0/x
      - {name: room, kind: matrix, url: "http://127.0.0.1:9000/webhook/abc"}
      - {kind: email, to: [dev@example.org, ops@example.org]}
  - name: o/quiet
)", "t.yml");
  REQUIRE(c.ok());
  const auto& n = c->find_repository("o/r")->notify;
  REQUIRE(n.size() == 4);
  CHECK(n[0].name == "webhook");
  CHECK(n[0].secret_credential == "notify-o-r");
  CHECK(wants_event(n[0], "regression_closed"));
  CHECK_FALSE(wants_event(n[0], "culprit_named"));
  CHECK(wants_event(n[1], "update_applied"));  // no list: every event
  CHECK(n[2].name == "room");
  CHECK(n[3].to == std::vector<std::string>{"dev@example.org", "ops@example.org"});
  CHECK(c->find_repository("o/quiet")->notify.empty());

  auto error = [](const std::string& destinations) {
    auto bad = parse_appliance_config("repositories:\n  - name: o/r\n    notify:\n" + destinations, "t.yml");
    REQUIRE_FALSE(bad);
    return bad.error().message;
  };
  CHECK(error("      - {kind: pager, url: https://x}\n").find(
            "repositories[0].notify[0].kind: expected webhook, slack, matrix, email, got 'pager'") != std::string::npos);
  CHECK(error("      - {kind: webhook, url: https://x}\n").find("needs 'secret'") != std::string::npos);
  CHECK(error("      - {kind: webhook, url: https://x, secret: ../etc/key}\n").find("needs 'secret'") !=
        std::string::npos);
  CHECK(error("      - {kind: slack, url: https://x, secret: k}\n").find("is not signed") != std::string::npos);
  CHECK(error("      - {kind: webhook, url: https://x, secret: webhook-secret}\n")
            .find("'webhook-secret': a webhook's credential is named notify-<something>") != std::string::npos);
  CHECK(error("      - {kind: webhook, url: https://x, secret: notify-}\n").find("named notify-<something>") !=
        std::string::npos);
  CHECK(error("      - {kind: slack, url: ftp://x}\n").find("notify[0].url: expected an http://") != std::string::npos);
  CHECK(error("      - {kind: email}\n").find("needs at least one address") != std::string::npos);
  CHECK(error("      - {kind: email, to: [\"a@b, c@d\"]}\n").find("is not one mail address") != std::string::npos);
  CHECK(error("      - {kind: email, to: [a@b], url: https://x}\n").find("takes 'to', not 'url'") !=
        std::string::npos);
  CHECK(error("      - {kind: slack, url: https://x, events: [regression]}\n").find("unknown event 'regression'") !=
        std::string::npos);
  CHECK(error("      - {kind: slack, url: https://x}\n      - {kind: slack, url: https://y}\n")
            .find("notify[1].name: destination 'slack' is listed twice") != std::string::npos);
  CHECK(error("      - {kind: slack, url: https://x, channel: c}\n").find("channel") != std::string::npos);
}

TEST_CASE("the runner's canary: hourly after five idle minutes by default, 0 turns it off") {
  auto defaults = parse_appliance_config("", "t.yml");
  REQUIRE(defaults.ok());
  CHECK(defaults->runner.canary_interval == 3600);
  CHECK(defaults->runner.canary_idle_seconds == 300);
  CHECK(defaults->runner.canary_rounds == 30);
  auto off = parse_appliance_config("runner:\n  canary_interval: 0\n  canary_rounds: 5\n", "t.yml");
  REQUIRE(off.ok());
  CHECK(off->runner.canary_interval == 0);
  CHECK(off->runner.canary_rounds == 5);
  auto bad = parse_appliance_config("runner:\n  canary_rounds: 1\n", "t.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("runner.canary_rounds: expected 2 to 1000, got 1") != std::string::npos);
}
