// bench/webhook: benchbox-webhookd's door, each figure against a baseline
// measured in the same run on the same machine:
//   - signed deliveries accepted per second, each durably through
//     Queue1.Enqueue into SQLite, with p50/p99 latency, and bad signatures
//     rejected per second, against a trivial libmicrohttpd handler that
//     reads the body and answers 200 (the HTTP floor) and against
//     Queue1.Enqueue called directly over D-Bus with the very jobs webhookd
//     makes of such deliveries (the durable-queue floor), and with a job of
//     a few fields (the floor until 2026-12-07);
//   - each phase's CPU time per delivery, by process, and the machine's
//     idle share: the generator shares the two cores with the daemons;
//   - body throughput of a 25 MiB delivery (accepted, and refused at the
//     signature) against the trivial handler reading the same body;
//   - deliveries accepted per second while 200 hostile connections trickle
//     header bytes, against the same without them.
// Real processes: a private dbus-daemon, benchbox-queued with its SQLite
// file, benchbox-webhookd on loopback; libcurl multi as the load generator,
// a fresh connection per delivery as GitHub makes them.
//
//   bench-webhook [--count N] [--concurrency C] [--seconds S] [--big N]
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
#include "config/appliance.h"
#include "github/policy.h"
#include "model/job.h"
#include "cpu.h"
#include "crowd.h"
#include "harness.h"
#include "load.h"

using namespace bb::test;
using namespace bb::bench;
using nlohmann::json;

namespace {

constexpr const char* kSecret = "bench-secret";

struct Options {
  size_t count = 2000;
  size_t concurrency = 8;
  double seconds = 30;
  size_t big = 6;  // 25 MiB deliveries per body-throughput phase
};

constexpr size_t k25MiB = 25u * 1024 * 1024;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
// clients each on its own connection, one prepared job spec each.
PhaseResult run_direct_enqueue(const std::string& name, const std::string& address, const std::vector<json>& specs,
                               size_t concurrency, double seconds) {
  PhaseResult res;
  res.name = name;
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
      for (size_t i; (i = next++) < specs.size() && Clock::now() < deadline;) {
        auto start = Clock::now();
        sd_bus_message *m = nullptr, *reply = nullptr;
        sd_bus_error err = SD_BUS_ERROR_NULL;
        sd_bus_message_new_method_call(bus->get(), &m, "org.benchbox.Queue1", "/org/benchbox/Queue1",
                                       "org.benchbox.Queue1", "Enqueue");
        bb::bus::append_dict(m, specs[i]);
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

// The few fields a job needs, as the floor sent them until 2026-12-07.
std::vector<json> minimal_specs(const json& push, size_t count) {
  std::vector<json> out;
  for (size_t i = 0; i < count; ++i)
    out.push_back({{"kind", "push"},
                   {"repository", push["repository"]["full_name"]},
                   {"clone_url", push["repository"]["clone_url"]},
                   {"ref", "refs/heads/main"},
                   {"head_sha", sha_of(1'000'000 + i)},
                   {"delivery_id", "direct-" + std::to_string(i)}});
  return out;
}

// The jobs webhookd makes of `requests`: the same policy on the same
// bodies, the verified signature as the replay key, as the same dict. Made
// before the clock starts, as the requests' signatures are.
std::vector<json> webhook_specs(const std::string& config_path, const std::vector<Request>& requests) {
  auto config = bb::config::load_appliance_config(config_path);
  if (!config) throw std::runtime_error(config.error().message);
  std::vector<json> out;
  for (const Request& r : requests) {
    std::string delivery, signature;
    for (const auto& h : r.headers) {
      if (h.rfind("X-GitHub-Delivery: ", 0) == 0) delivery = h.substr(19);
      if (h.rfind("X-Hub-Signature-256: sha256=", 0) == 0) signature = h.substr(28);
    }
    auto event = bb::github::parse_event("push", r.body);
    if (!event) throw std::runtime_error(event.error().message);
    auto decision = bb::github::decide(*config, *event, delivery);
    if (!decision || decision->action != bb::github::Decision::Action::enqueue)
      throw std::runtime_error("the bench's push is not a job for webhookd's policy");
    decision->job.replay_key = signature;
    out.push_back(bb::model::to_json(decision->job));
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--count") o.count = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--concurrency") o.concurrency = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--seconds") o.seconds = std::strtod(argv[i + 1], nullptr);
    else if (k == "--big") o.big = std::strtoull(argv[i + 1], nullptr, 10);
    else throw std::runtime_error("usage: bench-webhook [--count N] [--concurrency C] [--seconds S] [--big N]");
  }
  if (o.count == 0 || o.concurrency == 0 || o.seconds <= 0 || o.big == 0)
    throw std::runtime_error("count, concurrency, seconds and big must be > 0");
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
              opt.count, opt.seconds, opt.concurrency, make_requests(push, 1, "x", true, kSecret)[0].body.size());
  // The HTTP-only phases are ~50x faster: give them 10x the requests so
  // they last long enough to measure.
  auto good = make_requests(push, opt.count, "accept", true, kSecret);
  // The floor enqueues the very jobs webhookd makes of these deliveries,
  // for commits of their own (sha_offset) so neither finds the other's.
  const auto same_jobs = webhook_specs(dir / "benchbox.yml", make_requests(push, opt.count, "floor-job", true, kSecret, 4'000'000));
  auto crowded = make_requests(push, opt.count, "crowded", true, kSecret, 5'000'000);
  auto many = make_requests(push, opt.count * 10, "floor", true, kSecret, 3'000'000);
  auto bad = make_requests(push, opt.count * 10, "reject", false, kSecret);
  // 25 MiB exactly: the padding fills the rest of GitHub's limit.
  size_t pad = k25MiB - make_requests(push, 1, "x", true, kSecret, 0, 1)[0].body.size() + 1;
  auto big_good = make_requests(push, opt.big, "big", true, kSecret, 7'000'000, pad);
  auto big_bad = make_requests(push, opt.big, "big-bad", false, kSecret, 7'000'000, pad);
  // No signature header at all: refused after the whole body is in, without
  // an HMAC over it, so this is the door's own reading.
  auto big_unsigned = big_bad;
  for (auto& r : big_unsigned) std::erase_if(r.headers, [](const std::string& h) { return h.rfind("X-Hub-Signature", 0) == 0; });
  if (big_good[0].body.size() != k25MiB) throw std::runtime_error("the large delivery is not 25 MiB");

  // Warm-up (connections, page cache, SQLite file growth), not counted.
  run_http("warm-up", url, make_requests(push, 50, "warm", true, kSecret, 2'000'000), opt.concurrency, 10);
  run_http("warm-up", base_url, many, opt.concurrency, 1);

  // Each phase's CPU time by process: the ratios below are throughputs on
  // two cores the generator shares with the daemons.
  std::map<const PhaseResult*, std::string> cpu;
  auto accounted = [&](PhaseResult& r, auto&& run) {
    const CpuSnapshot before = CpuSnapshot::take();
    r = run();
    cpu[&r] = cpu_per_delivery(before, CpuSnapshot::take(), r.done, r.seconds);
  };
  PhaseResult base, minimal, direct, accepted, rejected;
  accounted(base, [&] { return run_http("baseline: trivial MHD handler, 200", base_url, many, opt.concurrency, opt.seconds); });
  accounted(direct, [&] {
    return run_direct_enqueue("Queue1.Enqueue, webhookd's job (floor)", bus.address(), same_jobs, opt.concurrency,
                              opt.seconds);
  });
  accounted(minimal, [&] {
    return run_direct_enqueue("Queue1.Enqueue, a minimal job", bus.address(), minimal_specs(push, opt.count),
                              opt.concurrency, opt.seconds);
  });
  accounted(accepted, [&] { return run_http("webhookd: signed, Enqueue'd (202)", url, good, opt.concurrency, opt.seconds); });
  accounted(rejected, [&] { return run_http("webhookd: bad signature (401)", url, bad, opt.concurrency, opt.seconds); });
  // One 25 MiB delivery at a time, as a body-throughput figure.
  PhaseResult big_base = run_http("baseline: trivial MHD handler, 25 MiB", base_url, big_good, 1, opt.seconds * 4);
  PhaseResult big_acc = run_http("webhookd: 25 MiB signed (202)", url, big_good, 1, opt.seconds * 4);
  PhaseResult big_rej = run_http("webhookd: 25 MiB bad signature (401)", url, big_bad, 1, opt.seconds * 4);
  PhaseResult big_read = run_http("webhookd: 25 MiB unsigned (401, no HMAC)", url, big_unsigned, 1, opt.seconds * 4);
  MHD_stop_daemon(trivial);
  PhaseResult under_crowd;
  size_t crowd_cut = 0;
  {
    TrickleCrowd crowd(port, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    under_crowd = run_http("webhookd: 202 with 200 tricklers held", url, crowded, opt.concurrency, opt.seconds);
    crowd_cut = crowd.cut();
  }

  // Durable means in the database: the queue must hold every accepted one.
  size_t accepted_ok = accepted.statuses[202];
  std::string out;
  run_shell("DBUS_SYSTEM_BUS_ADDRESS='" + bus.address() +
                "' busctl --system get-property org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Queued",
            &out);

  auto mib_per_s = [](const PhaseResult& r) { return r.rate() * 25.0; };
  std::printf("\n");
  for (const PhaseResult* r : {&base, &minimal, &direct, &accepted, &rejected, &under_crowd, &big_base, &big_read, &big_rej, &big_acc}) {
    print(*r);
    if (auto c = cpu.find(r); c != cpu.end()) std::printf("      %s\n", c->second.c_str());
  }
  std::printf("\n  accepted/s vs trivial HTTP handler   %.3f\n", accepted.rate() / base.rate());
  std::printf("  accepted/s vs direct Queue1.Enqueue of the same jobs  %.3f\n", accepted.rate() / direct.rate());
  std::printf("  accepted/s vs direct Queue1.Enqueue of minimal jobs   %.3f\n", accepted.rate() / minimal.rate());
  std::printf("  rejected/s vs trivial HTTP handler   %.3f\n", rejected.rate() / base.rate());
  std::printf("  accepted p50 latency vs trivial      %.1fx\n", accepted.percentile(0.5) / base.percentile(0.5));
  std::printf("  accepted/s with 200 tricklers vs without  %.3f  (tricklers cut and back: %zu)\n",
              under_crowd.rate() / accepted.rate(), crowd_cut);
  std::printf("  25 MiB body, trivial handler %.0f MiB/s; webhookd:\n", mib_per_s(big_base));
  std::printf("    read and refused unsigned      %6.0f MiB/s  %.3f\n", mib_per_s(big_read), big_read.rate() / big_base.rate());
  std::printf("    read, HMAC, bad signature      %6.0f MiB/s  %.3f\n", mib_per_s(big_rej), big_rej.rate() / big_base.rate());
  std::printf("    read, HMAC, JSON, Enqueue      %6.0f MiB/s  %.3f\n", mib_per_s(big_acc), big_acc.rate() / big_base.rate());
  std::printf("  queue holds: %s  (accepted 202: %zu, direct: %zu and %zu, warm-up: 50)\n",
              out.substr(0, out.find('\n')).c_str(), accepted_ok, minimal.statuses[1], direct.statuses[1]);
  auto only = [](const PhaseResult& r, long status) { return r.statuses.size() == 1 && r.statuses.count(status); };
  bool all_good = only(accepted, 202) && only(rejected, 401) && only(under_crowd, 202) && only(big_acc, 202) &&
                  only(big_rej, 401) && only(big_read, 401) && only(big_base, 200);
  if (!all_good) std::printf("  WARNING: unexpected statuses (see brackets above)\n");
  curl_global_cleanup();
  return all_good ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench-webhook: %s\n", e.what());
  return 1;
}
