// The webhook door against the real benchbox-webhookd on loopback: crowds
// of idle and trickling connections, the largest delivery GitHub sends,
// announced bodies that never come, bad bytes, replays, form bodies, and
// the watchdog tied to serving. Every test is bounded in time and count.
#include <catch2/catch.hpp>

#include <csignal>

#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <dirent.h>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "crowd.h"
#include "queued_client.h"
#include "webhookd_fixture.h"

using namespace bb::test;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

namespace {

struct Running {
  WebhookdFixture w;
  explicit Running(const std::string& webhook_yaml = "") : w(webhook_yaml) {
    w.queue().start_and_wait();
    w.start();
  }
};

// A push for a commit of its own, so every delivery is new work.
std::string push_body(int n, const std::string& padding = "") {
  json p = github_fixture_json("push_branch.json");
  char sha[41];
  std::snprintf(sha, sizeof sha, "%040x", n + 1);
  p["after"] = sha;
  if (!padding.empty()) p["head_commit"]["message"] = padding;
  return p.dump();
}

json body_of(const HttpResponse& r) {
  INFO("status " << r.status << " body: " << r.body << " error: " << r.error);
  return json::parse(r.body);
}

// The JSON body of a raw HTTP answer.
json raw_body(const std::string& answer) {
  size_t at = answer.find("\r\n\r\n");
  INFO(answer);
  REQUIRE(at != std::string::npos);
  return json::parse(answer.substr(at + 4));
}

std::vector<std::unique_ptr<RawClient>> connect_many(int port, int n) {
  std::vector<std::unique_ptr<RawClient>> out;
  for (int i = 0; i < n; ++i) out.push_back(std::make_unique<RawClient>(port));
  return out;
}

std::string signed_head(const std::string& body, const std::string& delivery, const std::string& extra = "") {
  return "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "X-GitHub-Event: push\r\nX-GitHub-Delivery: " +
         delivery + "\r\nX-Hub-Signature-256: " + github_signature(kWebhookSecret, body) + "\r\n" + extra;
}

// The sockets `pid` holds, as /proc/PID/fd names them ("socket:[inode]").
std::set<std::string> open_sockets(pid_t pid) {
  std::set<std::string> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char target[256];
    ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), target, sizeof target);
    std::string link(target, static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (link.rfind("socket:", 0) == 0) out.insert(link);
  }
  ::closedir(d);
  return out;
}

// An IPv4 TCP socket of this host, as /proc/net/tcp shows it.
struct TcpSocket {
  int local_port = 0, remote_port = 0;
  bool listening = false;
  unsigned long tx_queue = 0;  // sent, not yet acknowledged by the peer
  unsigned long rx_queue = 0;  // arrived, not yet read (listening: connections not yet accepted)
  std::string name;            // "socket:[inode]", as in /proc/PID/fd
};

std::vector<TcpSocket> tcp_sockets() {
  std::vector<TcpSocket> out;
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the column names
  auto port_of = [](const std::string& address) {
    return static_cast<int>(std::stoul(address.substr(address.find(':') + 1), nullptr, 16));
  };
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode))
      continue;
    TcpSocket s;
    s.local_port = port_of(local);
    s.remote_port = port_of(remote);
    s.listening = state == "0A";
    s.tx_queue = std::stoul(queues.substr(0, queues.find(':')), nullptr, 16);
    s.rx_queue = std::stoul(queues.substr(queues.find(':') + 1), nullptr, 16);
    s.name = "socket:[" + inode + "]";
    out.push_back(s);
  }
  return out;
}

// Whether the server on `port` has taken in everything sent to it: no
// connection waits to be accepted, none holds bytes it has not read, and no
// client holds bytes it has not acknowledged. webhookd reads with recv(),
// which the rchar of /proc/PID/io does not count, so this is where it shows.
bool everything_read(int port) {
  auto all = tcp_sockets();
  bool listening = false;
  for (const auto& s : all) {
    if (s.local_port == port && s.rx_queue > 0) return false;
    if (s.remote_port == port && s.tx_queue > 0) return false;
    if (s.local_port == port && s.listening) listening = true;
  }
  return listening;  // not a /proc/net/tcp that could not be read
}

// `pid`'s ends of the connections on `port` (not its listening socket).
std::set<std::string> connections_of(pid_t pid, int port) {
  std::set<std::string> fds = open_sockets(pid), out;
  for (const auto& s : tcp_sockets())
    if (s.local_port == port && !s.listening && fds.count(s.name)) out.insert(s.name);
  return out;
}

}  // namespace

TEST_CASE("idle crowds cannot wedge the door: 128 connections cut by the idle timeout, three times", "[webhookd][door]") {
  Running r("  idle_timeout_seconds: 1\n  max_connections: 128\n");
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    auto idle = connect_many(r.w.port(), 128);
    // Nothing sent: each is closed by the server after the idle timeout.
    for (auto& c : idle) REQUIRE(c->closed_by_server(seconds(5)));
    auto resp = r.w.post("push", "wedge-" + std::to_string(round), push_body(round));
    REQUIRE(resp.status == 202);
  }
  SECTION("more than max_connections idle: the oldest give way to a real delivery") {
    auto idle = connect_many(r.w.port(), 160);
    auto resp = r.w.post("push", "over-the-limit", push_body(10), nullptr, seconds(5));
    CHECK(resp.status == 202);
  }
  CHECK(r.w.log().find("cannot accept") == std::string::npos);
}

TEST_CASE("a delivery accepted in a crowded wakeup is read before that wakeup's accepts need room",
          "[webhookd][door]") {
  Running r("  max_connections: 8\n");
  const pid_t pid = r.w.daemon().pid();
  auto old = connect_many(r.w.port(), 8);  // the slots taken, by connections older than the delivery
  // Accepted, and webhookd waits for their requests (it may hold one
  // connection of its own start-up check besides).
  REQUIRE(wait_until([&] { return everything_read(r.w.port()) && connections_of(pid, r.w.port()).size() >= 7; },
                     seconds(5)));
  // While webhookd is stopped the kernel completes the handshakes and
  // holds the request: webhookd then accepts all nine in one wakeup.
  REQUIRE(::kill(pid, SIGSTOP) == 0);
  RawClient delivery(r.w.port());
  const std::string body = push_body(300);
  REQUIRE(delivery.send(signed_head(body, "crowded-wakeup", "Content-Length: " + std::to_string(body.size()) +
                                                               "\r\nConnection: close\r\n\r\n") +
                        body));
  auto crowd = connect_many(r.w.port(), 8);
  REQUIRE(::kill(pid, SIGCONT) == 0);
  // The ninth accept needs room while only that wakeup's connections could
  // give way: they are read first, and the delivery is answered.
  std::string answer = delivery.read_all(seconds(5));
  INFO(answer);
  CHECK(answer.rfind("HTTP/1.1 202", 0) == 0);
}

TEST_CASE("200 trickling connections do not keep legitimate deliveries out", "[webhookd][door]") {
  Running r("  header_timeout_seconds: 3\n  max_connections: 128\n");
  int accepted = 0;
  Clock::duration took{};
  size_t cut = 0, answered = 0;
  {
    TrickleCrowd crowd(r.w.port(), 200);
    // webhookd cuts the oldest trickler only when all its slots are taken:
    // from the first cut on, the crowd is in, and over the limit.
    if (!wait_until([&] { return crowd.cut() > 0; }, seconds(20)))
      FAIL("webhookd cut none of 200 tricklers in 20 s: they never filled its 128 slots");
    auto t0 = Clock::now();
    for (int i = 0; i < 8; ++i) {
      auto resp = r.w.post("push", "crowd-" + std::to_string(i), push_body(100 + i), nullptr, seconds(5));
      INFO("delivery " << i << ": " << resp.status << " " << resp.error);
      CHECK(resp.status == 202);
      accepted += resp.status == 202;
    }
    took = Clock::now() - t0;
    cut = crowd.cut();
    answered = crowd.answered_408();
  }
  CHECK(accepted == 8);
  CHECK(took < seconds(20));
  CHECK(cut > 0);  // the oldest gave way to newcomers (with 72 over the limit, before any reaches its 408)
  WARN("8 deliveries through 200 tricklers in " << std::chrono::duration_cast<milliseconds>(took).count()
                                                 << " ms; tricklers cut: " << cut << ", of them answered 408: "
                                                 << answered);
}

TEST_CASE("a 25 MiB delivery is accepted, with and without Expect: 100-continue", "[webhookd][door]") {
  Running r;
  const size_t limit = 25u * 1024 * 1024;
  std::string small = push_body(1, "x");
  std::string body = push_body(1, std::string(limit - small.size() + 1, 'x'));
  REQUIRE(body.size() == limit);
  auto resp = r.w.post("push", "big-1", body, nullptr, seconds(30));
  REQUIRE(resp.status == 202);
  QueueClient q(r.w.queue().address());
  json job;
  REQUIRE_FALSE(q.get(body_of(resp)["job_id"].get<int64_t>(), &job));
  CHECK(job["head_sha"] == json::parse(body)["after"]);

  std::string second = push_body(2, std::string(limit - small.size() + 1, 'y'));
  std::map<std::string, std::string> h = {{"Content-Type", "application/json"},
                                          {"X-GitHub-Event", "push"},
                                          {"X-GitHub-Delivery", "big-2"},
                                          {"X-Hub-Signature-256", github_signature(kWebhookSecret, second)},
                                          {"Expect", "100-continue"}};
  auto with_expect = http_post(r.w.url(), second, h, seconds(30));
  CHECK(with_expect.status == 202);
  SECTION("one byte over is 413 before the body is sent") {
    RawClient c(r.w.port());
    REQUIRE(c.send(signed_head(body, "big-3", "Content-Length: " + std::to_string(limit + 1) +
                                                  "\r\nExpect: 100-continue\r\n\r\n")));
    std::string answer = c.read_all(seconds(2));
    CHECK(answer.rfind("HTTP/1.1 413", 0) == 0);
    CHECK(raw_body(answer)["error"].get<std::string>().find("over the limit") != std::string::npos);
  }
}

TEST_CASE("20 connections announcing 25 MiB each cost memory only for what they send", "[webhookd][door]") {
  Running r;
  pid_t pid = r.w.daemon().pid();
  long vm0 = proc_status_kb(pid, "VmSize"), rss0 = proc_status_kb(pid, "VmRSS");
  REQUIRE(vm0 > 0);
  std::string body = push_body(1);
  std::vector<std::unique_ptr<RawClient>> liars;
  for (int i = 0; i < 20; ++i) {
    liars.push_back(std::make_unique<RawClient>(r.w.port()));
    REQUIRE(liars.back()->send(signed_head(body, "liar-" + std::to_string(i), "Content-Length: 26214400\r\n\r\n") +
                               std::string(1024, ' ')));
  }
  // Measured once webhookd has accepted the 20 and read all they sent.
  if (!wait_until([&] { return everything_read(r.w.port()); }, seconds(20)))
    FAIL("webhookd did not accept and read what the 20 liars sent within 20 s");
  long vm1 = proc_status_kb(pid, "VmSize"), rss1 = proc_status_kb(pid, "VmRSS");
  WARN("webhookd with 20 connections announcing 25 MiB: VmSize +" << (vm1 - vm0) << " kB, VmRSS +"
                                                                  << (rss1 - rss0) << " kB");
  CHECK(vm1 - vm0 < 16 * 1024);  // was +512 MB when bodies were reserved up front
  CHECK(rss1 - rss0 < 8 * 1024);
  // They still hold their slots; a real delivery gets in meanwhile.
  CHECK(r.w.post("push", "honest", push_body(2)).status == 202);
}

TEST_CASE("body bytes in flight over the cap are 503 with Retry-After", "[webhookd][door]") {
  Running r("  max_body_bytes: 600000\n  max_body_bytes_in_flight: 1000000\n");
  pid_t pid = r.w.daemon().pid();
  std::string body = push_body(1);
  std::vector<std::unique_ptr<RawClient>> holders;
  for (int i = 0; i < 2; ++i) {
    holders.push_back(std::make_unique<RawClient>(r.w.port()));
    REQUIRE(holders.back()->send(signed_head(body, "hold-" + std::to_string(i), "Content-Length: 600000\r\n\r\n") +
                                 std::string(450000, ' ')));
  }
  // Body bytes count against the cap as webhookd reads them: the third
  // comes once all 900000 of the holders' are counted.
  if (!wait_until([&] { return everything_read(r.w.port()); }, seconds(20)))
    FAIL("webhookd did not read the 900000 bytes of the two holders within 20 s");
  const std::set<std::string> held = connections_of(pid, r.w.port());
  RawClient third(r.w.port());
  REQUIRE(third.send(signed_head(body, "third", "Content-Length: 600000\r\n\r\n") + std::string(200000, ' ')));
  std::string answer = third.read_all(seconds(3));
  CHECK(answer.rfind("HTTP/1.1 503", 0) == 0);
  CHECK(answer.find("Retry-After: 5\r\n") != std::string::npos);
  CHECK(raw_body(answer)["error"].get<std::string>().find("in flight") != std::string::npos);
  holders.clear();  // their bytes are released when webhookd closes its ends
  // 5 s: ample for noticing a close, and short of the 10 s request timeout,
  // so it is the close that frees them, not the timeout.
  bool released = wait_until(
      [&] {
        auto open = open_sockets(pid);
        return std::none_of(held.begin(), held.end(), [&](const std::string& s) { return open.count(s) > 0; });
      },
      seconds(5));
  if (!released) FAIL("webhookd still holds the holders' connections 5 s after they closed");
  CHECK(r.w.post("push", "after-cap", push_body(2)).status == 202);
}

TEST_CASE("every refusal is answered promptly in valid JSON", "[webhookd][door]") {
  Running r;
  auto answer_to = [&](const std::string& request) {
    RawClient c(r.w.port());
    REQUIRE(c.send(request));
    auto t0 = Clock::now();
    std::string a = c.read_all(seconds(3));
    CHECK(Clock::now() - t0 < seconds(3));
    return a;
  };
  SECTION("a 100 KB header line: 431 at once") {
    std::string a = answer_to("POST /webhook HTTP/1.1\r\nX-Long: " + std::string(100 * 1000, 'a') + "\r\n\r\n");
    CHECK(a.rfind("HTTP/1.1 431", 0) == 0);
    CHECK(raw_body(a)["error"].get<std::string>().find("header") != std::string::npos);
  }
  SECTION("conflicting Content-Length headers: 400") {
    std::string body = push_body(1);
    std::string a = answer_to(signed_head(body, "cl-1", "Content-Length: 5\r\nContent-Length: 6\r\n\r\n") + body);
    CHECK(a.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(raw_body(a)["error"].get<std::string>().find("Content-Length") != std::string::npos);
  }
  SECTION("not HTTP at all: 400") {
    std::string a = answer_to(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) + "\r\n\r\n");
    CHECK(a.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(raw_body(a).contains("error"));
  }
  SECTION("invalid UTF-8 in a signed body: 400 with replacement characters") {
    std::string body = push_body(1);
    body.replace(body.find("refs/heads/main"), 15, "refs/heads/mas\xc3t");
    auto resp = r.w.post("push", "utf8-1", body);
    CHECK(resp.status == 400);
    CHECK(body_of(resp)["error"].get<std::string>().find("\xef\xbf\xbd") != std::string::npos);
  }
  SECTION("invalid UTF-8 in X-GitHub-Event: 202 ignored, in valid JSON") {
    std::string body = push_body(1);
    auto resp = r.w.post("pu\xffsh", "utf8-2", body);
    CHECK(resp.status == 202);
    CHECK(body_of(resp)["ignored"].get<std::string>().find("pu\xef\xbf\xbdsh") != std::string::npos);
  }
  SECTION("invalid bytes in X-GitHub-Delivery: 400") {
    auto resp = r.w.post("push", "d\xc3-1", push_body(1));
    CHECK(resp.status == 400);
    CHECK(body_of(resp)["error"].get<std::string>().find("X-GitHub-Delivery") != std::string::npos);
  }
  SECTION("a Transfer-Encoding other than chunked: 501") {
    std::string a = answer_to(signed_head("", "te-1", "Transfer-Encoding: gzip\r\n\r\n"));
    CHECK(a.rfind("HTTP/1.1 501", 0) == 0);
    CHECK(raw_body(a)["error"].get<std::string>().find("chunked") != std::string::npos);
  }
  SECTION("another content type: 415 naming what is accepted") {
    std::string body = push_body(1);
    auto resp = http_post(r.w.url(), body,
                          {{"Content-Type", "text/plain"},
                           {"X-GitHub-Event", "push"},
                           {"X-GitHub-Delivery", "type-1"},
                           {"X-Hub-Signature-256", github_signature(kWebhookSecret, body)}});
    CHECK(resp.status == 415);
    std::string e = body_of(resp)["error"];
    CHECK(e.find("application/json") != std::string::npos);
    CHECK(e.find("application/x-www-form-urlencoded") != std::string::npos);
  }
  // The daemon served all of that and still serves.
  CHECK(r.w.post("push", "after-refusals", push_body(2)).status == 202);
}

TEST_CASE("form-encoded deliveries: the signature covers the raw body, then payload= is decoded", "[webhookd][door]") {
  Running r;
  std::string json_body = push_body(7);
  char* escaped = curl_easy_escape(nullptr, json_body.data(), static_cast<int>(json_body.size()));
  std::string form = std::string("payload=") + escaped;
  curl_free(escaped);
  auto post_form = [&](const std::string& delivery, const std::string& body, const std::string& signature) {
    return http_post(r.w.url(), body,
                     {{"Content-Type", "application/x-www-form-urlencoded"},
                      {"X-GitHub-Event", "push"},
                      {"X-GitHub-Delivery", delivery},
                      {"X-Hub-Signature-256", signature}});
  };
  auto ok = post_form("form-1", form, github_signature(kWebhookSecret, form));
  REQUIRE(ok.status == 202);
  QueueClient q(r.w.queue().address());
  json job;
  REQUIRE_FALSE(q.get(body_of(ok)["job_id"].get<int64_t>(), &job));
  CHECK(job["head_sha"] == json::parse(json_body)["after"]);
  // Signed over the decoded JSON instead of the raw form: refused.
  CHECK(post_form("form-2", form, github_signature(kWebhookSecret, json_body)).status == 401);
  auto no_payload = post_form("form-3", "zen=1", github_signature(kWebhookSecret, "zen=1"));
  CHECK(no_payload.status == 400);
  CHECK(body_of(no_payload)["error"].get<std::string>().find("payload") != std::string::npos);
}

TEST_CASE("a captured delivery re-posted under a new id is answered with its first job", "[webhookd][door]") {
  Running r;
  QueueClient q(r.w.queue().address());
  std::string body = push_body(42);
  auto first = r.w.post("push", "original-delivery", body);
  REQUIRE(first.status == 202);
  int64_t id = body_of(first)["job_id"].get<int64_t>();
  REQUIRE_FALSE(q.cancel(id, "the first job has ended"));  // so "same work" no longer matches

  auto replay = r.w.post("push", "forged-delivery-id", body);
  CHECK(replay.status == 200);
  CHECK(body_of(replay)["job_id"].get<int64_t>() == id);
  std::vector<json> jobs;
  REQUIRE_FALSE(q.list("", 0, &jobs));
  CHECK(jobs.size() == 1);

  SECTION("across a restart of both daemons") {
    r.w.stop();
    r.w.queue().kill_hard();
    r.w.queue().start_and_wait();
    r.w.start();
    auto again = r.w.post("push", "forged-after-restart", body);
    CHECK(again.status == 200);
    CHECK(body_of(again)["job_id"].get<int64_t>() == id);
  }
  SECTION("an old pull_request event replayed does not move the recorded head back") {
    std::string opened = github_fixture("pull_request_opened.json");
    std::string sync = github_fixture("pull_request_synchronize.json");
    REQUIRE(r.w.post("pull_request", "pr-open", opened).status == 202);
    REQUIRE(r.w.post("pull_request", "pr-sync", sync).status == 202);
    json pr;
    REQUIRE_FALSE(q.get_pull_request("octo-org/widget", json::parse(sync)["number"].get<int64_t>(), &pr));
    std::string head = pr["head_sha"];
    auto old = r.w.post("pull_request", "pr-open-forged", opened);
    CHECK(old.status == 202);
    CHECK(body_of(old)["recorded"].get<std::string>().find("nothing changed") != std::string::npos);
    REQUIRE_FALSE(q.get_pull_request("octo-org/widget", json::parse(sync)["number"].get<int64_t>(), &pr));
    CHECK(pr["head_sha"] == head);
  }
}

namespace {

// The NOTIFY_SOCKET end of systemd, for counting WATCHDOG=1.
class NotifyListener {
 public:
  explicit NotifyListener(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
  ~NotifyListener() { ::close(fd_); }
  // Messages that arrive within `d`.
  std::vector<std::string> collect(milliseconds d) {
    std::vector<std::string> out;
    auto until = Clock::now() + d;
    for (;;) {
      auto left = std::max<long>(0, std::chrono::duration_cast<milliseconds>(until - Clock::now()).count());
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) {
        if (left == 0) return out;
        continue;
      }
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) out.emplace_back(buf, static_cast<size_t>(n));
    }
  }
  static size_t pings(const std::vector<std::string>& messages) {
    size_t n = 0;
    for (const auto& m : messages) n += m.find("WATCHDOG=1") != std::string::npos;
    return n;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// A duplicate of the daemon's listening socket on `port` (pidfd_getfd), so
// the test can break it under the running daemon.
int steal_listening_socket(pid_t pid, int port) {
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  REQUIRE(pidfd >= 0);
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d);
  int found = -1;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, std::atoi(e->d_name), 0));
    if (fd < 0) continue;
    int listening = 0;
    socklen_t n = sizeof listening;
    sockaddr_in a{};
    socklen_t alen = sizeof a;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &n) == 0 && listening &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &alen) == 0 && ntohs(a.sin_port) == port) {
      found = fd;
      break;
    }
    ::close(fd);
  }
  ::closedir(d);
  ::close(pidfd);
  REQUIRE(found >= 0);
  return found;
}

}  // namespace

TEST_CASE("the watchdog is petted only while webhookd answers through its socket", "[webhookd][door]") {
  WebhookdFixture w;
  NotifyListener notify(w.dir() / "notify");
  w.set_env("NOTIFY_SOCKET", w.dir() / "notify");
  w.set_env("WATCHDOG_USEC", "2000000");
  w.queue().start_and_wait();
  w.start();
  auto healthy = notify.collect(milliseconds(3000));
  INFO(w.log());
  CHECK(NotifyListener::pings(healthy) >= 2);
  CHECK(http_get(w.url("/healthz")).status == 200);

  // Break the listening socket under the running daemon: it stays alive,
  // its loop turns, but it no longer serves anyone.
  int stolen = steal_listening_socket(w.daemon().pid(), w.port());
  REQUIRE(::shutdown(stolen, SHUT_RDWR) == 0);
  ::close(stolen);
  REQUIRE(wait_until([&] { return w.log().find("not petting the watchdog") != std::string::npos; }, seconds(10)));
  notify.collect(milliseconds(0));  // pings from before the probes started failing
  auto broken = notify.collect(milliseconds(3000));
  CHECK(NotifyListener::pings(broken) == 0);
  CHECK(w.log().find("no HTTP self-probe of 127.0.0.1:" + std::to_string(w.port())) != std::string::npos);
  CHECK(w.daemon().running());  // systemd, not webhookd, ends it (WatchdogSec=)
}

TEST_CASE("the status line follows a burst of deliveries once, not once per delivery", "[webhookd][door]") {
  WebhookdFixture w;
  NotifyListener notify(w.dir() / "notify");
  w.set_env("NOTIFY_SOCKET", w.dir() / "notify");
  w.queue().start_and_wait();
  w.start();
  notify.collect(milliseconds(300));  // READY=1 and its status
  constexpr int kBurst = 40;
  // Read as systemd does, while the burst goes on (sd_notify blocks while
  // ten datagrams wait unread).
  std::atomic<int> accepted{0};
  std::atomic<bool> done{false};
  std::thread burst([&] {
    for (int i = 0; i < kBurst; ++i)
      accepted += w.post("push", "burst-" + std::to_string(i), push_body(200 + i)).status == 202;
    done = true;
  });
  std::vector<std::string> messages;
  while (!done) {
    auto more = notify.collect(milliseconds(100));
    messages.insert(messages.end(), more.begin(), more.end());
  }
  burst.join();
  auto rest = notify.collect(milliseconds(1000));
  messages.insert(messages.end(), rest.begin(), rest.end());
  REQUIRE(accepted == kBurst);
  std::vector<std::string> status;
  for (const auto& m : messages)
    if (m.rfind("STATUS=", 0) == 0) status.push_back(m);
  INFO(w.log());
  REQUIRE_FALSE(status.empty());
  // systemd makes each STATUS= a signal on the system bus: a handful for
  // the burst (one per 250 ms while it lasts), not one per delivery.
  CHECK(status.size() < kBurst / 4);
  CHECK(status.back().find(": serving webhooks: " + std::to_string(kBurst) + " accepted,") != std::string::npos);
}
