// bench/webhook: how many signed deliveries benchbox-webhookd accepts per
// second when every one goes durably through Queue1.Enqueue into SQLite,
// their p50/p99 latency, and how fast it rejects bad signatures, each
// against baselines measured in the same run on the same machine:
//   - a trivial libmicrohttpd handler that reads the body and answers 200
//     (the HTTP floor), and
//   - Queue1.Enqueue called directly over D-Bus at the same concurrency
//     (the durable-queue floor webhookd cannot beat).
// Real processes: a private dbus-daemon, benchbox-queued with its SQLite
// file, benchbox-webhookd on loopback; libcurl multi as the load generator,
// a fresh connection per delivery as GitHub makes them.
//
//   bench-webhook [--count N] [--concurrency C] [--seconds S]
#include <curl/curl.h>
#include <microhttpd.h>
#include <systemd/sd-bus.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bus/connect.h"
#include "bus/dict.h"
#include "harness.h"

using namespace bb::test;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

constexpr const char* kSecret = "bench-secret";

struct Options {
  size_t count = 2000;
  size_t concurrency = 8;
  double seconds = 30;
};

struct Request {
  std::string body;
  std::vector<std::string> headers;
};

struct PhaseResult {
  std::string name;
  size_t done = 0;
  std::map<long, size_t> statuses;
  std::vector<double> latencies_ms;
  double seconds = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(done) / seconds : 0; }
  double percentile(double p) const {
    if (latencies_ms.empty()) return 0;
    std::vector<double> v = latencies_ms;
    std::sort(v.begin(), v.end());
    size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string sha_of(size_t n) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%040zx", n + 1);
  return buf;
}

// Bodies and signatures are made before the clock starts, so the client's
// HMAC does not count against the server.
std::vector<Request> make_requests(const json& push, size_t count, const std::string& run, bool good_signature,
                                   size_t sha_offset = 0) {
  std::vector<Request> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    json p = push;
    p["after"] = sha_of(sha_offset + i);  // a new commit each: a new job, not "same work"
    Request r;
    r.body = p.dump();
    std::string sig = good_signature ? github_signature(kSecret, r.body) : github_signature("wrong", r.body);
    r.headers = {"Content-Type: application/json", "X-GitHub-Event: push",
                 "X-GitHub-Delivery: " + run + "-" + std::to_string(i), "X-Hub-Signature-256: " + sig,
                 "Expect:"};
    out.push_back(std::move(r));
  }
  return out;
}

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

// Runs `requests` against `url` with `concurrency` transfers in flight,
// until all are done or `seconds` pass.
PhaseResult run_http(const std::string& name, const std::string& url, const std::vector<Request>& requests,
                     size_t concurrency, double seconds) {
  PhaseResult res;
  res.name = name;
  CURLM* multi = curl_multi_init();
  struct Slot {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    Clock::time_point start;
  };
  std::vector<Slot> slots(concurrency);
  size_t next = 0, active = 0;
  auto launch = [&](Slot& s) {
    if (next >= requests.size()) return false;
    const Request& r = requests[next++];
    if (s.headers) curl_slist_free_all(s.headers);
    s.headers = nullptr;
    for (const auto& h : r.headers) s.headers = curl_slist_append(s.headers, h.c_str());
    if (!s.easy) s.easy = curl_easy_init();
    curl_easy_setopt(s.easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(s.easy, CURLOPT_POST, 1L);
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDS, r.body.data());
    curl_easy_setopt(s.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    curl_easy_setopt(s.easy, CURLOPT_HTTPHEADER, s.headers);
    curl_easy_setopt(s.easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(s.easy, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(s.easy, CURLOPT_FORBID_REUSE, 1L);  // a new connection per delivery, like GitHub
    curl_easy_setopt(s.easy, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(s.easy, CURLOPT_PRIVATE, &s);
    s.start = Clock::now();
    curl_multi_add_handle(multi, s.easy);
    ++active;
    return true;
  };
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration<double>(seconds);
  for (auto& s : slots) launch(s);
  while (active > 0) {
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Slot* s = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&s));
      long status = 0;
      if (msg->data.result == CURLE_OK) curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &status);
      res.statuses[status]++;
      res.latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s->start).count());
      ++res.done;
      curl_multi_remove_handle(multi, msg->easy_handle);
      --active;
      if (Clock::now() < deadline) launch(*s);
    }
    if (active > 0) curl_multi_poll(multi, nullptr, 0, 50, nullptr);
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& s : slots) {
    if (s.easy) curl_easy_cleanup(s.easy);
    if (s.headers) curl_slist_free_all(s.headers);
  }
  curl_multi_cleanup(multi);
  return res;
}

// The HTTP floor: read the body, answer 200.
MHD_Result trivial_handler(void*, MHD_Connection* c, const char*, const char*, const char*, const char*,
                           size_t* upload_data_size, void** con_cls) {
  if (!*con_cls) {
    *con_cls = reinterpret_cast<void*>(1);
    return MHD_YES;
  }
  if (*upload_data_size) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  static const char body[] = "{}";
  MHD_Response* r = MHD_create_response_from_buffer(2, const_cast<char*>(body), MHD_RESPMEM_PERSISTENT);
  MHD_Result q = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r);
  return q;
}

// The durable-queue floor: Queue1.Enqueue straight over D-Bus, `concurrency`
// clients each on its own connection.
PhaseResult run_direct_enqueue(const std::string& address, const json& push, size_t count, size_t concurrency,
                               double seconds) {
  PhaseResult res;
  res.name = "Queue1.Enqueue over D-Bus (floor)";
  std::atomic<size_t> next{0};
  std::vector<std::vector<double>> lat(concurrency);
  std::vector<size_t> ok(concurrency), failed(concurrency);
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::duration<double>(seconds);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < concurrency; ++t) {
    threads.emplace_back([&, t] {
      auto bus = bb::bus::open_address(address);
      if (!bus) return;
      for (size_t i; (i = next++) < count && Clock::now() < deadline;) {
        json spec = {{"kind", "push"},
                     {"repository", push["repository"]["full_name"]},
                     {"clone_url", push["repository"]["clone_url"]},
                     {"ref", "refs/heads/main"},
                     {"head_sha", sha_of(1'000'000 + i)},
                     {"delivery_id", "direct-" + std::to_string(i)}};
        auto start = Clock::now();
        sd_bus_message *m = nullptr, *reply = nullptr;
        sd_bus_error err = SD_BUS_ERROR_NULL;
        sd_bus_message_new_method_call(bus->get(), &m, "org.benchbox.Queue1", "/org/benchbox/Queue1",
                                       "org.benchbox.Queue1", "Enqueue");
        bb::bus::append_dict(m, spec);
        int r = sd_bus_call(bus->get(), m, 30'000'000, &err, &reply);
        (r >= 0 ? ok[t] : failed[t])++;
        lat[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        sd_bus_error_free(&err);
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
      }
    });
  }
  for (auto& th : threads) th.join();
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (size_t t = 0; t < concurrency; ++t) {
    res.latencies_ms.insert(res.latencies_ms.end(), lat[t].begin(), lat[t].end());
    res.statuses[0] += failed[t];
    res.statuses[1] += ok[t];
    res.done += ok[t] + failed[t];
  }
  return res;
}

void print(const PhaseResult& r) {
  std::printf("  %-44s %6zu in %6.2f s  %8.1f /s   p50 %7.2f ms   p99 %7.2f ms   [", r.name.c_str(), r.done,
              r.seconds, r.rate(), r.percentile(0.50), r.percentile(0.99));
  bool first = true;
  for (const auto& [status, n] : r.statuses) {
    std::printf("%s%ld:%zu", first ? "" : " ", status, n);
    first = false;
  }
  std::printf("]\n");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--count") o.count = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--concurrency") o.concurrency = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--seconds") o.seconds = std::strtod(argv[i + 1], nullptr);
    else throw std::runtime_error("usage: bench-webhook [--count N] [--concurrency C] [--seconds S]");
  }
  if (o.count == 0 || o.concurrency == 0 || o.seconds <= 0) throw std::runtime_error("count, concurrency and seconds must be > 0");
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  Options opt = parse(argc, argv);
  if (!std::getenv("BENCHBOX_BUILD_ROOT")) ::setenv("BENCHBOX_BUILD_ROOT", BB_BUILD_ROOT, 1);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  json push = json::parse(read_text(std::string(BB_SOURCE_ROOT) + "/tests/fixtures/github/push_branch.json"));

  TempDir dir;
  run_shell("mkdir -p '" + (dir / "creds") + "' && printf %s '" + kSecret + "' > '" + (dir / "creds/webhook-secret") + "'");
  {
    std::ofstream cfg(dir / "benchbox.yml");
    cfg << "state_dir: " << (dir / "state") << "\nrepositories:\n  - name: octo-org/widget\n"
        << "    clone_url: " << (dir / "widget.git") << "\n";
  }
  PrivateBus bus;
  auto env = daemon_env(bus);
  env["CREDENTIALS_DIRECTORY"] = dir / "creds";
  Process queued({build_path("daemons/queued/benchbox-queued"), "--config", dir / "benchbox.yml"}, env, dir / "queued.log");
  int port = free_port();
  Process webhookd({build_path("daemons/webhookd/benchbox-webhookd"), "--config", dir / "benchbox.yml", "--listen",
                    "127.0.0.1:" + std::to_string(port)},
                   env, dir / "webhookd.log");
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/webhook";
  if (!wait_until([&] { return http_get(url).status == 405; })) throw std::runtime_error("webhookd did not start:\n" + webhookd.log());
  // Queue ready: a ping goes through webhookd without touching the queue, so ask the queue itself.
  if (!wait_until([&] { return run_shell("DBUS_SYSTEM_BUS_ADDRESS='" + bus.address() +
                                         "' busctl --system get-property org.benchbox.Queue1 /org/benchbox/Queue1 "
                                         "org.benchbox.Queue1 Version >/dev/null 2>&1") == 0; }))
    throw std::runtime_error("queued did not start:\n" + queued.log());

  int base_port = free_port();
  MHD_Daemon* trivial = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, static_cast<uint16_t>(base_port), nullptr,
                                         nullptr, &trivial_handler, nullptr, MHD_OPTION_END);
  if (!trivial) throw std::runtime_error("cannot start the baseline HTTP server");
  std::string base_url = "http://127.0.0.1:" + std::to_string(base_port) + "/webhook";

  std::printf("bench-webhook: %zu deliveries per phase (at most %.0f s), %zu concurrent connections, payload %zu bytes\n",
              opt.count, opt.seconds, opt.concurrency, make_requests(push, 1, "x", true)[0].body.size());
  // The HTTP-only phases are ~50x faster: give them 10x the requests so
  // they last long enough to measure.
  auto good = make_requests(push, opt.count, "accept", true);
  auto many = make_requests(push, opt.count * 10, "floor", true, 3'000'000);
  auto bad = make_requests(push, opt.count * 10, "reject", false);

  // Warm-up (connections, page cache, SQLite file growth), not counted.
  run_http("warm-up", url, make_requests(push, 50, "warm", true, 2'000'000), opt.concurrency, 10);
  run_http("warm-up", base_url, many, opt.concurrency, 1);

  PhaseResult base = run_http("baseline: trivial MHD handler, 200", base_url, many, opt.concurrency, opt.seconds);
  PhaseResult direct = run_direct_enqueue(bus.address(), push, opt.count, opt.concurrency, opt.seconds);
  PhaseResult accepted = run_http("webhookd: signed, Enqueue'd (202)", url, good, opt.concurrency, opt.seconds);
  PhaseResult rejected = run_http("webhookd: bad signature (401)", url, bad, opt.concurrency, opt.seconds);
  MHD_stop_daemon(trivial);

  // Durable means in the database: the queue must hold every accepted one.
  size_t accepted_ok = accepted.statuses[202];
  std::string out;
  run_shell("DBUS_SYSTEM_BUS_ADDRESS='" + bus.address() +
                "' busctl --system get-property org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Queued",
            &out);

  std::printf("\n");
  print(base);
  print(direct);
  print(accepted);
  print(rejected);
  std::printf("\n  accepted/s vs trivial HTTP handler   %.3f\n", accepted.rate() / base.rate());
  std::printf("  accepted/s vs direct Queue1.Enqueue  %.3f\n", accepted.rate() / direct.rate());
  std::printf("  rejected/s vs trivial HTTP handler   %.3f\n", rejected.rate() / base.rate());
  std::printf("  accepted p50 latency vs trivial      %.1fx\n", accepted.percentile(0.5) / base.percentile(0.5));
  std::printf("  queue holds: %s  (accepted 202: %zu, direct: %zu, warm-up: 50)\n",
              out.substr(0, out.find('\n')).c_str(), accepted_ok, direct.statuses[1]);
  bool all_good = accepted.statuses.size() == 1 && accepted_ok == accepted.done && rejected.statuses[401] == rejected.done;
  if (!all_good) std::printf("  WARNING: unexpected statuses (see brackets above)\n");
  curl_global_cleanup();
  return all_good ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench-webhook: %s\n", e.what());
  return 1;
}
