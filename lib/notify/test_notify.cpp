// Notifications: the generic webhook's signed document, Slack's and
// Matrix's text, and the email message, each checked as its receiver
// would read it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "github/signature.h"
#include "notify/notification.h"
#include "util/text.h"

using namespace bb;
using namespace bb::notify;

namespace {

Notification regression() {
  Notification n;
  n.event = "regression_confirmed";
  n.id = "regression_confirmed:octo/widgets:refs/heads/main:42";
  n.repository = "octo/widgets";
  n.time = 0;
  n.title = "parse/json is 12.1% slower on main";
  n.summary = "first seen at 4f1c2b3\nwall_time 1.20 ms -> 1.35 ms";
  n.url = "https://bench.example/octo/widgets/runs/42.html";
  n.details = {{"benchmark", "parse/json"}, {"change", 0.121}};
  return n;
}

config::NotifyDestination destination(const std::string& kind) {
  config::NotifyDestination d;
  d.kind = d.name = kind;
  if (kind == "email") d.to = {"dev@example.org", "ops@example.org"};
  else d.url = "http://127.0.0.1:9/hook";
  if (kind == "webhook") d.secret_credential = "notify-hook";
  return d;
}

std::string header(const HttpPost& p, const std::string& name) {
  for (const auto& [k, v] : p.headers)
    if (k == name) return v;
  return "";
}

}  // namespace

TEST_CASE("the generic webhook gets the documented JSON, signed as GitHub signs its own") {
  auto p = render_http(regression(), destination("webhook"), "s3cret", "box-1");
  REQUIRE(p);
  CHECK(p->url == "http://127.0.0.1:9/hook");
  CHECK(header(*p, "Content-Type") == "application/json");
  CHECK(header(*p, kEventHeader) == "regression_confirmed");
  CHECK(header(*p, kDeliveryHeader) == regression().id);
  // A receiver verifies the body it got with the secret it shares.
  CHECK(github::verify_signature("s3cret", p->body, header(*p, kSignatureHeader)));
  CHECK_FALSE(github::verify_signature("other", p->body, header(*p, kSignatureHeader)));
  CHECK_FALSE(github::verify_signature("s3cret", p->body + " ", header(*p, kSignatureHeader)));
  auto body = nlohmann::json::parse(p->body);
  CHECK(body["schema"] == kSchema);
  CHECK(body["event"] == "regression_confirmed");
  CHECK(body["repository"] == "octo/widgets");
  CHECK(body["time"] == "1970-01-01T00:00:00Z");
  CHECK(body["box"] == "box-1");
  CHECK(body["details"]["change"] == 0.121);
  // The outbox keeps the document and reads it back as it was.
  auto back = notification_from_json(body);
  REQUIRE(back);
  CHECK(to_json(*back, "box-1") == body);
  // No secret, no message: an unsigned one would be taken for anyone's.
  auto unsigned_post = render_http(regression(), destination("webhook"), "", "box-1");
  REQUIRE_FALSE(unsigned_post);
  CHECK(unsigned_post.error().message.find("notify-hook") != std::string::npos);
}

TEST_CASE("Slack and Matrix get text they show as it is, escaped") {
  Notification n = regression();
  n.title = "a<b> & c";
  n.summary = "<script>alert(1)</script>";
  auto slack = render_http(n, destination("slack"), "", "box-1");
  REQUIRE(slack);
  const std::string text = nlohmann::json::parse(slack->body)["text"];
  CHECK(text.find("*<https://bench.example/octo/widgets/runs/42.html|a&lt;b&gt; &amp; c>*") == 0);
  CHECK(text.find("<script>") == std::string::npos);
  CHECK(header(*slack, kSignatureHeader).empty());

  auto matrix = render_http(n, destination("matrix"), "", "box-1");
  REQUIRE(matrix);
  auto body = nlohmann::json::parse(matrix->body);
  const std::string html = body["html"];
  CHECK(html.find("<a href=\"https://bench.example/octo/widgets/runs/42.html\">a&lt;b&gt; &amp; c</a>") !=
        std::string::npos);
  CHECK(html.find("&lt;script&gt;") != std::string::npos);
  CHECK(body["text"].get<std::string>().find("<script>") != std::string::npos);  // plain text stays plain

  CHECK_FALSE(render_http(n, destination("email"), "", "box-1"));
}

TEST_CASE("email: a message sendmail -t reads, with nothing added to its headers") {
  Notification n = regression();
  n.title = "slower\r\nBcc: victim@example.org";  // a title cannot add a header
  auto m = render_email(n, destination("email"), "benchbox@box-1.example", "box-1");
  REQUIRE(m);
  const size_t end = m->find("\n\n");
  REQUIRE(end != std::string::npos);
  const std::string headers = m->substr(0, end + 1);
  CHECK(headers.find("From: benchbox <benchbox@box-1.example>\n") == 0);
  CHECK(headers.find("\nTo: dev@example.org, ops@example.org\n") != std::string::npos);
  CHECK(headers.find("\nSubject: [benchbox] slower  Bcc: victim@example.org\n") != std::string::npos);
  CHECK(headers.find("\nBcc:") == std::string::npos);
  CHECK(headers.find("\nDate: Thu, 01 Jan 1970 00:00:00 +0000\n") != std::string::npos);
  CHECK(headers.find("\nContent-Type: text/plain; charset=utf-8\n") != std::string::npos);
  CHECK(m->find(n.url) > end);
  CHECK(m->find("wall_time 1.20 ms -> 1.35 ms") > end);

  // The same event to the same destination: the same Message-ID; another
  // destination: another.
  auto id_of = [](const std::string& msg) {
    auto at = msg.find("Message-ID: ");
    return msg.substr(at, msg.find('\n', at) - at);
  };
  auto again = render_email(n, destination("email"), "benchbox@box-1.example", "box-1");
  auto other_dest = destination("email");
  other_dest.name = "team";
  auto other = render_email(n, other_dest, "benchbox@box-1.example", "box-1");
  REQUIRE(again);
  REQUIRE(other);
  CHECK(id_of(*m) == id_of(*again));
  CHECK(id_of(*m) != id_of(*other));

  CHECK_FALSE(render_email(n, destination("email"), "benchbox@x>\nBcc: v@x", "box-1"));
  CHECK_FALSE(render_email(n, destination("email"), "bench\"box\"@x", "box-1"));
  CHECK_FALSE(render_email(n, destination("email"), "benchbox@", "box-1"));
  CHECK_FALSE(render_email(n, destination("slack"), "benchbox@box-1.example", "box-1"));
}

TEST_CASE("email: a subject that is not ASCII is encoded, and decodes back") {
  Notification n = regression();
  n.title = "µbench „parse“ is 12 % slower — on main, again and again and again";
  auto m = render_email(n, destination("email"), "benchbox@box-1", "box-1");
  REQUIRE(m);
  const size_t at = m->find("Subject: ") + 9;
  const std::string subject = m->substr(at, m->find("\nDate:") - at);
  std::string decoded;
  size_t pos = 0;
  while ((pos = subject.find("=?UTF-8?B?", pos)) != std::string::npos) {
    const size_t end = subject.find("?=", pos + 10);
    REQUIRE(end != std::string::npos);
    CHECK(end + 2 - pos <= 75);  // RFC 2047's longest encoded word
    auto part = from_base64(subject.substr(pos + 10, end - pos - 10));
    REQUIRE(part);
    decoded += *part;
    pos = end + 2;
  }
  CHECK(decoded == "[benchbox] " + n.title);
  for (size_t i = 0; i < subject.size(); ++i) CHECK(static_cast<unsigned char>(subject[i]) < 0x80);
}

TEST_CASE("a notification is checked before it is rendered or read back") {
  Notification n = regression();
  n.event = "something_else";
  CHECK_FALSE(render_http(n, destination("slack"), "", "box-1"));
  CHECK_FALSE(notification_from_json(to_json(n, "box")));
  n = regression();
  n.id.clear();
  CHECK_FALSE(validate(n));
  CHECK_FALSE(notification_from_json(nlohmann::json::array()));
  CHECK_FALSE(notification_from_json({{"event", 3}}));
}
