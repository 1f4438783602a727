// Delivering notifications to real receivers: an HTTP server on loopback
// (requests read with lib/http's parser) and sendmail stand-ins, scripts
// that record what they were given and exit as an MTA would.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "github/signature.h"
#include "http/request_parser.h"
#include "notify/deliver.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::notify;
using namespace std::chrono_literals;

namespace {

// Answers each request with `answer` (raw response bytes), or holds it
// unanswered when `answer` is empty; keeps what it received.
class Receiver {
 public:
  explicit Receiver(std::string answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    REQUIRE(::listen(fd_, 8) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~Receiver() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::vector<http::RequestParser> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(got_);
  }

 private:
  void serve() {
    while (!stop_) {
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      http::RequestParser parser;
      std::string in;
      char buf[4096];
      while (parser.state() != http::RequestParser::State::complete &&
             parser.state() != http::RequestParser::State::failed) {
        const ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, size_t(n));
        while (parser.parse(in) == http::RequestParser::State::head_done) {
        }
      }
      if (!answer_.empty()) (void)!::write(c, answer_.data(), answer_.size());
      else while (!stop_ && ::read(c, buf, sizeof buf) > 0) {}  // hold it until the client gives up
      ::close(c);
      std::lock_guard<std::mutex> lock(mu_);
      got_.push_back(std::move(parser));
    }
  }

  std::string answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<http::RequestParser> got_;
};

std::string response(int status, const std::string& body = "") {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

Notification event() {
  Notification n;
  n.event = "regression_confirmed";
  n.id = "regression_confirmed:o/r:refs/heads/main:7";
  n.repository = "o/r";
  n.title = "bench is 10% slower";
  return n;
}

HttpPost signed_post(const std::string& url) {
  config::NotifyDestination d;
  d.kind = d.name = "webhook";
  d.url = url;
  d.secret_credential = "k";
  auto p = render_http(event(), d, "s3cret", "box");
  REQUIRE(p);
  return *p;
}

// A sendmail stand-in: records its arguments and stdin, says `says`, exits `code`.
std::string stand_in(const std::string& dir, const std::string& name, int code, const std::string& body = "") {
  const std::string path = dir + "/" + name;
  std::ofstream f(path);
  f << "#!/bin/sh\necho \"$@\" > " << dir << "/" << name << ".args\n"
    << (body.empty() ? "cat > " + dir + "/" + name + ".message\n" : body) << "exit " << code << "\n";
  f.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a webhook notification reaches the receiver once, signed, and its answer is judged") {
  {
    Receiver r(response(202));
    HttpPost p = signed_post(r.url());
    Delivery d = post(p, 5s);
    CHECK(d.kind == Delivery::Kind::done);
    CHECK(d.status == 202);
    auto got = r.requests();
    REQUIRE(got.size() == 1);
    CHECK(got[0].head().method == "POST");
    CHECK(got[0].head().target == "/hook");
    CHECK(got[0].body() == p.body);
    CHECK(github::verify_signature("s3cret", got[0].body(), got[0].head().field(kSignatureHeader)));
    CHECK(got[0].head().field(kDeliveryHeader) == event().id);
  }
  for (int status : {500, 503, 429, 408}) {
    Receiver r(response(status, "busy"));
    Delivery d = post(signed_post(r.url()), 5s);
    INFO(status);
    CHECK(d.kind == Delivery::Kind::retry);
    CHECK(d.error.find("HTTP " + std::to_string(status) + ": busy") != std::string::npos);
  }
  for (int status : {400, 401, 404, 410}) {
    Receiver r(response(status, "{\"message\": \"no such hook\"}"));
    Delivery d = post(signed_post(r.url()), 5s);
    INFO(status);
    CHECK(d.kind == Delivery::Kind::drop);
    CHECK(d.error.find("no such hook") != std::string::npos);
  }
  {
    // A redirect is not followed with the signed body: the address is wrong.
    Receiver r("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\nContent-Length: 0\r\n\r\n");
    Delivery d = post(signed_post(r.url()), 5s);
    CHECK(d.kind == Delivery::Kind::drop);
    CHECK(r.requests().size() == 1);
  }
}

TEST_CASE("a receiver that is gone or silent is tried again later") {
  std::string url;
  {
    Receiver r(response(200));
    url = r.url();
  }  // closed: nothing listens there now
  Delivery refused = post(signed_post(url), 5s);
  CHECK(refused.kind == Delivery::Kind::retry);
  CHECK_FALSE(refused.maybe_sent);

  Receiver silent("");
  Delivery late = post(signed_post(silent.url()), 300ms);
  CHECK(late.kind == Delivery::Kind::retry);
  CHECK(late.maybe_sent);  // the request went out: the receiver may have acted on it
}

TEST_CASE("email goes to sendmail -t -i on its stdin, and sendmail's exit is judged") {
  bb::test::TempDir dir;
  const std::string message = "From: benchbox <b@x>\nTo: dev@example.org\nSubject: s\n\nbody\n.\nmore\n";
  Delivery ok = send_mail(stand_in(dir.path, "ok", 0), message, 5s);
  CHECK(ok.kind == Delivery::Kind::done);
  CHECK(slurp(dir.path + "/ok.message") == message);
  CHECK(slurp(dir.path + "/ok.args") == "-t -i\n");

  Delivery temp = send_mail(stand_in(dir.path, "tempfail", 75), message, 5s);
  CHECK(temp.kind == Delivery::Kind::retry);
  Delivery usage = send_mail(stand_in(dir.path, "usage", 64, "cat > /dev/null\necho 'bad address' >&2\n"),
                             message, 5s);
  CHECK(usage.kind == Delivery::Kind::drop);
  CHECK(usage.error.find("exited with 64: bad address") != std::string::npos);

  Delivery missing = send_mail(dir.path + "/no-such-sendmail", message, 5s);
  CHECK(missing.kind == Delivery::Kind::retry);
  CHECK(missing.error.find("cannot run") != std::string::npos);

  Delivery hung = send_mail(stand_in(dir.path, "hung", 0, "sleep 30\n"), message, 300ms);
  CHECK(hung.kind == Delivery::Kind::retry);
  CHECK(hung.error.find("did not finish") != std::string::npos);

  // An MTA that exits without reading a large message: no SIGPIPE ends the
  // test (it would end reporterd), and the message is not taken as sent.
  Delivery deaf = send_mail(stand_in(dir.path, "deaf", 0, "true\n"), std::string(4 << 20, 'x'), 5s);
  CHECK(deaf.kind == Delivery::Kind::retry);
}
