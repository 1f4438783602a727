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
#include "notify/test_receiver.h"
#include "util/test_tempdir.h"

using namespace bb;
using namespace bb::notify;
using namespace std::chrono_literals;
using bb::test::Receiver;

namespace {

std::string response(int status, const std::string& body = "") { return test::http_response(status, body); }

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

TEST_CASE("a delivery in flight ends at once when reporterd stops, as interrupted") {
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(300ms);
    stop = true;
  });
  Receiver silent("");
  const auto t0 = std::chrono::steady_clock::now();
  Delivery post_stopped = post(signed_post(silent.url()), 30s, &stop);
  stopper.join();
  CHECK(post_stopped.interrupted);
  CHECK(post_stopped.kind == Delivery::Kind::retry);
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);  // not the 30 s deadline

  bb::test::TempDir dir;
  stop = false;
  std::thread again([&] {
    std::this_thread::sleep_for(300ms);
    stop = true;
  });
  const auto t1 = std::chrono::steady_clock::now();
  Delivery mail_stopped = send_mail(stand_in(dir.path, "slow", 0, "sleep 30\n"), "To: a@b\n\nhi\n", 30s, &stop);
  again.join();
  CHECK(mail_stopped.interrupted);
  CHECK(std::chrono::steady_clock::now() - t1 < 10s);
  // Not raised: an ordinary delivery is not interrupted.
  std::atomic<bool> calm{false};
  Receiver ok(response(200));
  CHECK_FALSE(post(signed_post(ok.url()), 5s, &calm).interrupted);
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
