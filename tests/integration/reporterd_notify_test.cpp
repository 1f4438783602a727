// Notifications from benchbox-reporterd, with a real queue. A regression on
// main reaches a signed webhook, a Slack and a Matrix webhook (one loopback
// HTTP receiver, lib/notify/test_receiver.h) and email (a sendmail
// stand-in that keeps each message it is given) exactly once, though every
// destination is down when it is raised and reporterd is restarted before
// they come back. The box's update (benchbox-update's state.json) reaches
// the destinations of every repository that want it, once.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "github/signature.h"
#include "notify/notification.h"
#include "notify/test_receiver.h"
#include "reporterd_fixture.h"
#include "update/updater.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

// Every destination kind of o/r, and the MTA's stand-in: it refuses with
// EX_TEMPFAIL while `down` exists, else keeps the message as mail/<n>.eml.
std::string notify_config(const TempDir& dir, const Receiver& receiver) {
  const std::string sendmail = dir / "sendmail";
  std::ofstream(sendmail) << "#!/bin/sh\n"
                          << "[ \"$1 $2\" = \"-t -i\" ] || exit 64\n"
                          << "[ -e " << (dir / "mta-down") << " ] && { cat >/dev/null; exit 75; }\n"
                          << "mkdir -p " << (dir / "mail") << "\n"
                          << "cat > " << (dir / "mail") << "/$$.eml\n";
  ::chmod(sendmail.c_str(), 0755);
  return "  confirm_regressions: false\n"
         "  sendmail: " + sendmail + "\n"
         "  mail_from: bench@example.org\n"
         "repositories:\n"
         "  - name: o/r\n"
         "    notify:\n"
         "      - kind: webhook\n"
         "        url: " + receiver.url("/hook") + "\n"
         "        secret: notify-o-r\n"
         "      - kind: slack\n"
         "        url: " + receiver.url("/slack") + "\n"
         "      - kind: matrix\n"
         "        url: " + receiver.url("/matrix") + "\n"
         "      - kind: email\n"
         "        to: [dev@example.org]\n"
         "        events: [regression_confirmed]\n";
}

// What the destinations got: path -> bodies, and the mails kept.
struct Got {
  std::map<std::string, std::vector<http::RequestParser>> http;
  std::vector<std::string> mails;
};

void collect(Got& got, Receiver& receiver, const std::string& mail_dir) {
  for (auto& r : receiver.requests()) got.http[r.head().target].push_back(std::move(r));
  got.mails.clear();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(mail_dir, ec)) got.mails.push_back(slurp(e.path()));
}

size_t count(const Got& got, const std::string& path) {
  auto it = got.http.find(path);
  return it == got.http.end() ? 0 : it->second.size();
}

}  // namespace

TEST_CASE("a regression reaches each kind of destination once, across a restart of reporterd") {
  Receiver receiver(http_response(503));
  TempDir scratch;  // the MTA's: the config names it before the fixture exists
  const std::string extra = notify_config(scratch, receiver);
  ReporterFixture s(extra);
  INFO(s.logs());
  // Read at each attempt: written after reporterd started, before anything is raised.
  std::ofstream(s.dir / "creds/notify-o-r") << "hook-key\n";
  std::ofstream(scratch / "mta-down") << "";

  // Every destination down when the regression is found.
  const int64_t a = s.run_job(push_spec(fake_sha(10)), push_result(fake_sha(10), 0.100, 10));
  REQUIRE(wait_until([&] { return s.reported(a); }));
  const int64_t b = s.run_job(push_spec(fake_sha(11)), push_result(fake_sha(11), 0.120, 11));
  REQUIRE(wait_until([&] { return s.reported(b); }));
  Got tried;
  REQUIRE(wait_until([&] {
    collect(tried, receiver, scratch / "mail");
    return count(tried, "/hook") && count(tried, "/slack") && count(tried, "/matrix") &&
           s.reporterd->log().find("to o/r/email not delivered yet") != std::string::npos;
  }));
  CHECK(tried.mails.empty());
  CHECK(s.reporterd->log().find("HTTP 503") != std::string::npos);

  // Stopped while they are down; they come back; it starts again.
  REQUIRE(s.reporterd->terminate() == 0);
  receiver.requests();  // what was refused is not counted
  receiver.set_answer(http_response(200));
  ::unlink((scratch / "mta-down").c_str());
  s.start_reporter();

  Got got;
  REQUIRE(wait_until([&] {
    collect(got, receiver, scratch / "mail");
    return count(got, "/hook") && count(got, "/slack") && count(got, "/matrix") && !got.mails.empty();
  }, std::chrono::seconds(30)));
  // Longer than a retry (github_retry_seconds 1, at most 2): a repeat would be here.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  collect(got, receiver, scratch / "mail");
  REQUIRE(count(got, "/hook") == 1);
  REQUIRE(count(got, "/slack") == 1);
  REQUIRE(count(got, "/matrix") == 1);
  REQUIRE(got.mails.size() == 1);

  // The generic webhook: signed with the credential's key, the documented body.
  const http::RequestParser& hook = got.http["/hook"][0];
  CHECK(github::verify_signature("hook-key", hook.body(), hook.head().field(notify::kSignatureHeader)));
  CHECK(hook.head().field(notify::kEventHeader) == "regression_confirmed");
  const json body = json::parse(hook.body());
  CHECK(body["schema"] == notify::kSchema);
  CHECK(body["event"] == "regression_confirmed");
  CHECK(body["repository"] == "o/r");
  CHECK(body["details"]["first_bad"] == fake_sha(11));
  CHECK(body["title"].get<std::string>().find("micro/loop:wall_time") != std::string::npos);
  CHECK(hook.head().field(notify::kDeliveryHeader) == body["id"]);
  CHECK(json::parse(got.http["/slack"][0].body())["text"].get<std::string>().find("micro/loop") != std::string::npos);
  CHECK(json::parse(got.http["/matrix"][0].body()).contains("html"));
  CHECK(got.mails[0].find("To: dev@example.org") != std::string::npos);
  CHECK(got.mails[0].find("From: benchbox <bench@example.org>") != std::string::npos);
  CHECK(got.mails[0].find("X-Benchbox-Event: regression_confirmed") != std::string::npos);

  // Gone again: the three that want every event hear it once; email wants
  // only confirmations.
  const int64_t c = s.run_job(push_spec(fake_sha(12)), push_result(fake_sha(12), 0.100, 12));
  REQUIRE(wait_until([&] { return s.reported(c); }));
  REQUIRE(wait_until([&] {
    collect(got, receiver, scratch / "mail");
    return count(got, "/hook") == 2 && count(got, "/slack") == 2 && count(got, "/matrix") == 2;
  }, std::chrono::seconds(30)));
  const json closed = json::parse(got.http["/hook"][1].body());
  CHECK(closed["event"] == "regression_closed");
  CHECK(closed["details"]["fixed_by"] == fake_sha(12));

  // Restarted once more: nothing is told twice.
  s.restart_reporter();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  collect(got, receiver, scratch / "mail");
  CHECK(count(got, "/hook") == 2);
  CHECK(count(got, "/slack") == 2);
  CHECK(count(got, "/matrix") == 2);
  CHECK(got.mails.size() == 1);
}

TEST_CASE("the box's update reaches every destination that wants it, once") {
  Receiver receiver(http_response(200));
  ReporterFixture s(
      "repositories:\n"
      "  - name: o/r\n"
      "    notify:\n"
      "      - kind: slack\n"
      "        url: " + receiver.url("/o-r") + "\n"
      "        events: [update_applied, update_rolled_back]\n"
      "  - name: o/other\n"
      "    notify:\n"
      "      - kind: matrix\n"
      "        url: " + receiver.url("/o-other") + "\n"
      "      - kind: slack\n"
      "        url: " + receiver.url("/regressions-only") + "\n"
      "        events: [regression_confirmed]\n");
  INFO(s.logs());
  // benchbox-update's record of an upgrade; an upgrade restarts reporterd.
  update::State state;
  update::Attempt a;
  a.from = "0.9.1";
  a.to = "0.9.2";
  a.outcome = update::Outcome::upgraded;
  a.reason = "0.9.2 is installed and every daemon is ready on it";
  a.started = std::time(nullptr) - 60;
  a.finished = std::time(nullptr) - 5;
  state.last = a;
  REQUIRE(run_shell("mkdir -p " + (s.dir / "state/update")) == 0);
  std::ofstream(s.dir / "state/update/state.json") << update::to_json(state).dump();
  s.restart_reporter();

  Got got;
  REQUIRE(wait_until([&] {
    collect(got, receiver, s.dir / "no-mail");
    return count(got, "/o-r") && count(got, "/o-other");
  }));
  CHECK(json::parse(got.http["/o-r"][0].body())["text"].get<std::string>().find("benchbox updated from 0.9.1 to 0.9.2") !=
        std::string::npos);
  // Read again at the next start: told once.
  s.restart_reporter();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  collect(got, receiver, s.dir / "no-mail");
  CHECK(count(got, "/o-r") == 1);
  CHECK(count(got, "/o-other") == 1);
  CHECK(count(got, "/regressions-only") == 0);
}


TEST_CASE("the box's canary shifting and steadying again is told once each, and BoxHealth says where it is") {
  Receiver receiver(http_response(200));
  ReporterFixture s(
      "repositories:\n"
      "  - name: o/r\n"
      "    notify:\n"
      "      - kind: slack\n"
      "        url: " + receiver.url("/health") + "\n"
      "        events: [health_held, health_released]\n");
  INFO(s.logs());
  CHECK(s.box_health().find("learning (0 canary runs so far)") != std::string::npos);
  const int64_t t0 = std::time(nullptr) - 3600;
  for (int i = 0; i < 5; ++i) s.write_canary(t0 + i * 60, 0.069, 0.166);
  // Read at start (and each minute after): restarting is quicker than a minute.
  s.restart_reporter();
  CHECK(s.box_health().find("steady") != std::string::npos);

  s.write_canary(t0 + 300, 0.069 * 1.2, 0.166);  // a competing load on the benchmark CPU
  s.write_canary(t0 + 330, 0.069 * 1.2, 0.166);  // two runs outside in a row shift the box
  s.restart_reporter();
  // busctl escapes what is not ASCII ("×", "±"): the words and the ratio.
  const std::string shifted = s.box_health();
  INFO(shifted);
  CHECK(shifted.find("shifted: canary/cpu ") != std::string::npos);
  CHECK(shifted.find("1.200, outside its band of ") != std::string::npos);
  Got got;
  REQUIRE(wait_until([&] {
    collect(got, receiver, s.dir / "no-mail");
    return count(got, "/health") == 1;
  }));
  CHECK(json::parse(got.http["/health"][0].body())["text"].get<std::string>().find("regressions are held") !=
        std::string::npos);

  s.write_canary(t0 + 360, 0.069, 0.166);
  s.write_canary(t0 + 420, 0.0691, 0.166);
  s.restart_reporter();
  CHECK(s.box_health().find("steady") != std::string::npos);
  REQUIRE(wait_until([&] {
    collect(got, receiver, s.dir / "no-mail");
    return count(got, "/health") == 2;
  }));
  CHECK(json::parse(got.http["/health"][1].body())["text"].get<std::string>().find("steady again") !=
        std::string::npos);
  // Read again: nothing is told twice.
  s.restart_reporter();
  std::this_thread::sleep_for(std::chrono::seconds(3));
  collect(got, receiver, s.dir / "no-mail");
  CHECK(count(got, "/health") == 2);
}
