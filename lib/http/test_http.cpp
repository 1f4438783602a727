#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "http/client.h"
#include "http/form.h"
#include "http/request_parser.h"
#include "http/response.h"

using namespace bb::http;
using State = RequestParser::State;

namespace {

// Feeds `text` in pieces of `step` bytes; returns the final state.
State feed(RequestParser& p, std::string& buffer, const std::string& text, size_t step) {
  State s = State::need_more;
  for (size_t i = 0; i < text.size(); i += step) {
    buffer.append(text, i, step);
    do {
      s = p.parse(buffer);
    } while (s == State::head_done);
    if (s == State::complete || s == State::failed) return s;
  }
  return s;
}

const std::string kPost =
    "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    "X-GitHub-Event: push\r\nContent-Length: 13\r\n\r\n{\"zen\":\"ok\"}\n";

}  // namespace

TEST_CASE("a request parses the same whatever the pieces it arrives in") {
  for (size_t step : {size_t{1}, size_t{3}, size_t{17}, kPost.size()}) {
    RequestParser p;
    std::string buf;
    REQUIRE(feed(p, buf, kPost, step) == State::complete);
    CHECK(p.head().method == "POST");
    CHECK(p.head().target == "/webhook");
    CHECK(p.head().field("x-github-event") == "push");
    CHECK(p.head().content_length == 13);
    CHECK(p.head().keep_alive);
    CHECK(p.body() == "{\"zen\":\"ok\"}\n");
    CHECK(buf.empty());
  }
}

TEST_CASE("the parser stops after the header, then reads the body") {
  RequestParser p;
  std::string buf = kPost;
  REQUIRE(p.parse(buf) == State::head_done);
  CHECK(p.body_bytes() == 0);
  CHECK(buf == "{\"zen\":\"ok\"}\n");
  REQUIRE(p.parse(buf) == State::complete);
  CHECK(p.body().size() == 13);
}

TEST_CASE("a pipelined second request stays in the buffer for the next parse") {
  RequestParser p;
  std::string buf = kPost + "GET /x HTTP/1.1\r\n\r\n";
  while (p.parse(buf) == State::head_done) {
  }
  REQUIRE(p.state() == State::complete);
  CHECK(buf == "GET /x HTTP/1.1\r\n\r\n");
  p.reset();
  REQUIRE(p.parse(buf) == State::head_done);
  CHECK(p.head().method == "GET");
  REQUIRE(p.parse(buf) == State::complete);
}

TEST_CASE("chunked bodies are decoded; over the limit they fail with 413 as soon as it is crossed") {
  std::string head = "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  SECTION("within the limit") {
    RequestParser p;
    std::string buf;
    REQUIRE(feed(p, buf, head + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", 4) == State::complete);
    CHECK(p.head().chunked);
    CHECK(p.body() == "hello world");
  }
  SECTION("over it, mid-stream, without waiting for the end") {
    RequestParser p({1024, 10});
    std::string buf = head + "8\r\n12345678\r\n8\r\n12345678\r\n";  // no last chunk
    while (p.parse(buf) == State::head_done) {
    }
    REQUIRE(p.state() == State::failed);
    CHECK(p.failure().status == 413);
  }
}

TEST_CASE("a final chunk that arrives a byte at a time is read, not an assertion (Beast 1.74)") {
  RequestParser p;
  std::string buf;
  REQUIRE(feed(p, buf, "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 1) ==
          State::complete);
  CHECK(p.body() == "hello");
}

TEST_CASE("an endless chunk extension or trailer cannot pile up") {
  for (std::string tail : {std::string("5;ext=") + std::string(2000, 'a'),
                           std::string("0\r\nX-Trailer: ") + std::string(2000, 'a')}) {
    RequestParser p({1024, 1 << 20});
    std::string buf = "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    State s = feed(p, buf, tail, 100);
    REQUIRE(s == State::failed);
    CHECK(p.failure().status == 400);
    CHECK(buf.size() <= 1024 + 100);
  }
}

TEST_CASE("announcing a large body reserves nothing; only a real body over the limit is refused") {
  RequestParser p({1024, 100});
  std::string buf = "POST /webhook HTTP/1.1\r\nContent-Length: 26214400\r\n\r\n";
  REQUIRE(p.parse(buf) == State::head_done);  // the caller sees the header first
  CHECK(p.head().content_length == 26214400u);
  CHECK(p.body().capacity() < 1024);
  buf = "x";
  REQUIRE(p.parse(buf) == State::failed);
  CHECK(p.failure().status == 413);
}

TEST_CASE("headers over the limit are 431 as soon as the limit is reached") {
  RequestParser p({256, 1000});
  std::string buf = "POST /webhook HTTP/1.1\r\nX-Long: " + std::string(300, 'a');  // not finished
  REQUIRE(p.parse(buf) == State::failed);
  CHECK(p.failure().status == 431);
}

TEST_CASE("request smuggling shapes and garbage are 400") {
  const char* bad[] = {
      "POST /webhook HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
      "POST /webhook HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST /webhook HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
      "POST /webhook HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
      "POST /webhook HTTP/9.9\r\n\r\n",
      "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 TLS hello\r\n\r\n",
      "POST /webhook HTTP/1.1\r\nBad Name: x\r\n\r\n",
  };
  for (const char* text : bad) {
    RequestParser p;
    std::string buf = text;
    while (p.parse(buf) == State::head_done) {
    }
    INFO(text);
    REQUIRE(p.state() == State::failed);
    CHECK(p.failure().status == 400);
    CHECK_FALSE(p.failure().message.empty());
  }
  SECTION("the same length twice is allowed (RFC 7230 3.3.2)") {
    RequestParser p;
    std::string buf = "POST /webhook HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi";
    while (p.parse(buf) == State::head_done) {
    }
    CHECK(p.state() == State::complete);
  }
}

TEST_CASE("HTTP/1.0 and Connection: close are not kept alive") {
  for (const char* text : {"GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n"}) {
    RequestParser p;
    std::string buf = text;
    REQUIRE(p.parse(buf) == State::head_done);
    CHECK_FALSE(p.head().keep_alive);
  }
}

TEST_CASE("responses are well formed, with a body that is always valid JSON") {
  Response r = error(400, "unknown event 'pu\xffsh'");
  auto parsed = nlohmann::json::parse(r.body);
  CHECK(parsed["error"] == "unknown event 'pu\xef\xbf\xbdsh'");
  r.headers = {{"Retry-After", "5"}};
  std::string wire = serialize(r, false);
  CHECK(wire.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
  CHECK(wire.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(wire.find("Connection: close\r\n") != std::string::npos);
  CHECK(wire.find("Retry-After: 5\r\n") != std::string::npos);
  CHECK(wire.find("Content-Length: " + std::to_string(r.body.size()) + "\r\n") != std::string::npos);
  CHECK(wire.substr(wire.size() - r.body.size()) == r.body);
  CHECK(continue_response() == "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST_CASE("media types and form fields") {
  CHECK(media_type("Application/JSON; charset=utf-8") == "application/json");
  CHECK(media_type(" application/x-www-form-urlencoded ") == "application/x-www-form-urlencoded");
  CHECK(media_type("") == "");

  auto v = form_field("a=1&payload=%7B%22ref%22%3A%22refs%2Fheads%2Fmain%22%2C%22n%22%3A%22a+b%2Bc%22%7D", "payload");
  REQUIRE(v);
  CHECK(*v == "{\"ref\":\"refs/heads/main\",\"n\":\"a b+c\"}");
  CHECK(form_field("payload=", "payload").value().empty());
  CHECK_FALSE(form_field("a=1", "payload"));
  CHECK_FALSE(form_field("payload=1&payload=2", "payload"));
  auto broken = form_field("payload=%7", "payload");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find("percent") != std::string::npos);
}

TEST_CASE("the probe's request and the status of an answer") {
  std::string req = bb::http::request_bytes("GET", "/healthz", "127.0.0.1:8417");
  CHECK(req.rfind("GET /healthz HTTP/1.1\r\n", 0) == 0);
  CHECK(req.find("Host: 127.0.0.1:8417\r\n") != std::string::npos);
  RequestParser p;  // our own server reads it
  REQUIRE(p.parse(req) == State::head_done);
  CHECK_FALSE(p.head().keep_alive);

  std::string answer = serialize(json(200, {{"status", "serving"}}), false);
  CHECK(bb::http::response_status(answer) == 200u);
  CHECK_FALSE(bb::http::response_status(answer.substr(0, answer.size() - 3)));
  CHECK_FALSE(bb::http::response_status("SSH-2.0-OpenSSH\r\n"));
}
