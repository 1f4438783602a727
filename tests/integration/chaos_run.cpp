// See chaos_run.h.
#include "chaos_run.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <nlohmann/json.hpp>

#include "github_api/fake_github.h"
#include "harness.h"

namespace bb::test {
namespace {

using nlohmann::json;

struct Box {
  ChaosSize size;
  TempDir dir;
  PrivateBus bus;
  std::string secret = "chaos-secret-0123456789";
  int port = free_port();
  std::string repo = dir / "loop.git";
  std::vector<std::string> commits;
  std::unique_ptr<bb::github_api::FakeGitHub> github;
  std::mutex mu;  // guards daemons
  std::map<std::string, std::unique_ptr<Process>> daemons;

  explicit Box(const ChaosSize& s) : size(s) {
    sh("chmod 0755 " + dir.path());
    const std::string work = dir / "work";
    sh("git init -q --bare " + repo + " && git init -q -b main " + work);
    std::ofstream(work + "/.benchbox.yml") << "version: 1\nsuites:\n  - name: quick\n    run: \"true\"\n"
                                              "    repetitions: 2\n    warmup: 0\n    timeout: 30\n";
    const std::string git = "git -C " + work + " -c user.name=t -c user.email=t@example.org ";
    for (int i = 0; i < size.commits + size.pulls; ++i) {
      std::ofstream(work + "/n") << i << "\n";
      sh(git + "add -A && " + git + "commit -qm c" + std::to_string(i));
      commits.push_back(sh(git + "rev-parse HEAD"));
    }
    sh(git + "push -q " + repo + " main");
    for (int p = 1; p <= size.pulls; ++p)
      sh("git -C " + repo + " update-ref refs/pull/" + std::to_string(p) + "/head " + commits[size.commits + p - 1]);

    sh("mkdir -p " + (dir / "creds") + " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out " +
       (dir / "creds/github-app-key") + " 2>/dev/null && openssl pkey -in " + (dir / "creds/github-app-key") +
       " -pubout -out " + (dir / "pub.pem"));
    std::ofstream(dir / "creds/webhook-secret") << secret;
    github = std::make_unique<bb::github_api::FakeGitHub>(slurp(dir / "pub.pem"), std::vector<std::string>{"demo/loop"});
    std::ofstream(dir / "benchbox.yml")
        << "state_dir: " << (dir / "state") << "\ncache_dir: " << (dir / "cache")
        << "\nrepositories:\n  - name: demo/loop\n    clone_url: " << repo
        << "\n    branches: [main]\n    blessers: [alice]\n"
        << "webhook:\n  queue_timeout_ms: 1000\n"
        << "queue:\n  lease_seconds: 4\n  max_attempts: 50\n"
        << "runner:\n  heartbeat_seconds: 1\n"
        << "tuner:\n  sysfs_root: /\n"
        << "reporter:\n  github_app_id: 77\n  github_api_url: " << github->url()
        << "\n  github_retry_seconds: 1\n  github_retry_max_seconds: 2\n";
    for (const char* name : {"queued", "tunerd", "reporterd", "runnerd", "webhookd"}) start(name);
    if (!wait_until([&] { return http_get(url()).status != 0; }))
      throw std::runtime_error("benchbox-webhookd did not answer on " + url() + "\n" + logs());
  }

  void start(const std::string& name) {
    std::vector<std::string> argv = {build_path("daemons/" + name + "/benchbox-" + name), "--config",
                                     dir / "benchbox.yml"};
    if (name == "webhookd") argv.insert(argv.end(), {"--listen", "127.0.0.1:" + std::to_string(port)});
    auto env = daemon_env(bus);
    env["CREDENTIALS_DIRECTORY"] = dir / "creds";
    std::lock_guard<std::mutex> lock(mu);
    daemons[name] = std::make_unique<Process>(argv, env, dir / (name + ".log"));
  }
  void kill_and_restart(const std::string& name) {
    {
      std::lock_guard<std::mutex> lock(mu);
      daemons[name]->kill_hard();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    start(name);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/webhook"; }
  std::string ctl() const { return build_path("cli/benchboxctl"); }
  json repository() const {
    return {{"full_name", "demo/loop"}, {"name", "loop"}, {"clone_url", repo},
            {"default_branch", "main"}, {"owner", {{"login", "demo"}}}};
  }
  HttpResponse deliver(const std::string& event, const std::string& body, const std::string& id) {
    return http_post(url(), body,
                     {{"Content-Type", "application/json"},
                      {"X-GitHub-Event", event},
                      {"X-GitHub-Delivery", id},
                      {"X-Hub-Signature-256", github_signature(secret, body)}},
                     std::chrono::seconds(15));
  }
  std::vector<json> jobs() {
    std::string out;
    if (run_shell("DBUS_SYSTEM_BUS_ADDRESS=" + bus.address() + " " + ctl() + " jobs list --limit 1000 --json 2>/dev/null",
                  &out) != 0)
      return {};
    json j = json::parse(out, nullptr, false);
    return j.is_array() ? j.get<std::vector<json>>() : std::vector<json>{};
  }
  std::string logs() {
    std::string all;
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [name, d] : daemons) all += "---- " + name + "\n" + d->log().substr(d->log().size() > 4000 ? d->log().size() - 4000 : 0);
    return all;
  }
};

// One delivery of the run: its event, body and id (a redelivery reuses both).
struct Delivery {
  std::string event, body, id;
};

json pull_request(const Box& b, int n) {
  json repo = b.repository();
  return {{"number", n},
          {"state", "open"},
          {"title", "change " + std::to_string(n)},
          {"user", {{"login", "mallory"}}},
          {"head", {{"sha", b.commits[b.size.commits + n - 1]}, {"ref", "topic-" + std::to_string(n)}, {"repo", repo}}},
          {"base", {{"sha", b.commits[0]}, {"ref", "main"}, {"repo", repo}}}};
}

// What GitHub would send, in a seeded order: each push and each pull
// request once, its blessing comment, and redeliveries of earlier ones.
std::vector<Delivery> plan(const Box& b, std::mt19937_64& rng) {
  std::vector<Delivery> firsts;
  json repo = b.repository();
  for (int i = 0; i < b.size.commits; ++i)
    firsts.push_back({"push",
                      json{{"ref", "refs/heads/main"}, {"before", i ? b.commits[i - 1] : std::string(40, '0')},
                           {"after", b.commits[i]}, {"created", i == 0}, {"deleted", false}, {"repository", repo},
                           {"sender", {{"login", "alice"}}}, {"head_commit", {{"id", b.commits[i]}}}}
                          .dump(),
                      "push-" + std::to_string(i)});
  for (int n = 1; n <= b.size.pulls; ++n) {
    firsts.push_back({"pull_request",
                      json{{"action", "opened"}, {"number", n}, {"pull_request", pull_request(b, n)},
                           {"repository", repo}, {"sender", {{"login", "mallory"}}}}
                          .dump(),
                      "pr-" + std::to_string(n)});
    firsts.push_back({"issue_comment",
                      json{{"action", "created"},
                           {"issue", {{"number", n}, {"pull_request", {{"url", "https://api.github.com/x"}}}}},
                           {"comment", {{"id", 100 + n}, {"body", "/benchbox run"}, {"user", {{"login", "alice"}}}}},
                           {"repository", repo}, {"sender", {{"login", "alice"}}}}
                          .dump(),
                      "bless-" + std::to_string(n)});
  }
  std::shuffle(firsts.begin(), firsts.end(), rng);
  // A pull request's blessing before it was opened is refused: keep each
  // opening ahead of its blessing.
  for (int n = 1; n <= b.size.pulls; ++n) {
    auto open = std::find_if(firsts.begin(), firsts.end(), [&](const Delivery& d) { return d.id == "pr-" + std::to_string(n); });
    auto bless = std::find_if(firsts.begin(), firsts.end(), [&](const Delivery& d) { return d.id == "bless-" + std::to_string(n); });
    if (bless < open) std::iter_swap(open, bless);
  }
  std::vector<Delivery> all;
  size_t next_first = 0;
  while (all.size() < size_t(b.size.deliveries)) {
    // Mostly redeliveries of what was sent, as GitHub does after a timeout.
    if (next_first < firsts.size() && (all.empty() || rng() % 10 < 2)) all.push_back(firsts[next_first++]);
    else all.push_back(all[rng() % all.size()]);
  }
  while (next_first < firsts.size()) all.push_back(firsts[next_first++]);
  return all;
}

}  // namespace

ChaosOutcome run_chaos(const ChaosSize& size, uint64_t seed, bool faults) {
  std::mt19937_64 rng(seed);
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Box box(size);
  std::vector<Delivery> deliveries = plan(box, rng);
  ChaosOutcome out;
  out.deliveries = int(deliveries.size());

  // The chaos: a daemon killed and restarted every ~1.1 s; now and then
  // GitHub answers 502s or says the rate limit is spent.
  std::atomic<bool> done{false};
  std::atomic<int> kills{0};
  std::thread chaos([&, seed] {
    if (!faults) return;
    std::mt19937_64 r(seed ^ 0x9e3779b97f4a7c15ull);
    const char* victims[] = {"webhookd", "queued", "runnerd", "reporterd"};
    while (!done && kills < size.kills) {
      std::this_thread::sleep_for(std::chrono::milliseconds(900 + r() % 400));
      box.kill_and_restart(victims[r() % 4]);
      ++kills;
      if (r() % 6 == 0) box.github->fail_next(4, 502);
      // A secondary rate limit with Retry-After: GitHub's own wait. (An
      // exhausted primary limit whose reset has passed by the time the
      // fake answers is waited out for a minute, as GitHub advises.)
      if (r() % 10 == 0)
        box.github->fail_next(2, 403, {{"retry-after", "1"}},
                              {{"message", "You have exceeded a secondary rate limit"}});
    }
  });

  const double first_delivery = seconds();
  std::map<std::string, int64_t> answered;  // delivery -> the job its 2xx answer named
  std::set<std::string> taken;               // deliveries answered 2xx at least once
  for (const auto& d : deliveries) {
    auto r = box.deliver(d.event, d.body, d.id);
    if (r.status == 0) ++out.refused_connections;
    if (r.status == 503) ++out.unavailable;
    if (r.status == 200 || r.status == 202) {
      taken.insert(d.id);
      json body = json::parse(r.body, nullptr, false);
      if (body.is_object() && body.contains("job_id")) answered[d.id] = body["job_id"].get<int64_t>();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
  }
  // What GitHub's redelivery of a failed delivery does, the chaos over:
  // each delivery never taken once more, and a blessing until it has its
  // job (blessing a pull request not yet recorded is answered without one).
  while (faults && kills < size.kills) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  done = true;
  chaos.join();
  std::set<std::string> resent;
  for (const auto& d : deliveries) {
    const bool wants_job = d.event != "pull_request";
    if ((wants_job ? answered.count(d.id) : taken.count(d.id)) || !resent.insert(d.id).second) continue;
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto r = box.deliver(d.event, d.body, d.id);
      if (r.status == 200 || r.status == 202) {
        json body = json::parse(r.body, nullptr, false);
        if (body.is_object() && body.contains("job_id")) answered[d.id] = body["job_id"].get<int64_t>();
        if (!wants_job || answered.count(d.id)) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  }
  const double last_delivery = seconds();
  out.deliver_seconds = last_delivery - first_delivery;

  // Quiet: every job finishes, every check run completes.
  std::vector<json> jobs;
  auto settled = [&] {
    jobs = box.jobs();
    if (jobs.empty()) {
      out.unsettled = "no job list";
      return false;
    }
    std::map<std::string, int> runs;
    for (const auto& run : box.github->check_runs())
      if (run.value("status", "") == "completed") ++runs[run.value("external_id", "")];
    out.unsettled.clear();
    for (const auto& j : jobs) {
      const std::string state = j.value("state", "");
      const std::string id = std::to_string(j["id"].get<int64_t>());
      if (state == "queued" || state == "running") out.unsettled += "job " + id + " " + state + "; ";
      else if (runs[id] < 1) out.unsettled += "job " + id + " " + state + " without a completed check run; ";
    }
    return out.unsettled.empty();
  };
  // Jobs take ~1 s each once the chaos is over; give a long run its time.
  const auto settle_limit = std::chrono::seconds(180 + 2 * (size.commits + size.pulls));
  out.quiet = wait_until(settled, settle_limit);
  out.settle_seconds = seconds() - last_delivery;
  out.kills = kills.load();
  out.logs = box.logs();
  // For the post-mortem: every daemon's whole log, kept.
  if (!out.quiet) {
    out.kept = "/tmp/benchbox-chaos-" + std::to_string(seed);
    run_shell("rm -rf " + out.kept + " && mkdir -p " + out.kept + " && cp " + (box.dir / "*.log") + " " + out.kept);
  }

  // Exactly one job per piece of work, one check run per job, completed.
  std::map<int64_t, std::string> state_of;
  std::map<std::string, int> work;  // kind + head sha -> jobs
  for (const auto& j : jobs) {
    state_of[j["id"].get<int64_t>()] = j["state"];
    ++work[j.value("kind", "") + " " + j.value("head_sha", "")];
  }
  for (const auto& [delivery, id] : answered)
    if (!state_of.count(id)) ++out.lost;
  for (const auto& [key, n] : work) out.duplicated += n - 1;
  std::map<std::string, int> runs_of;
  for (const auto& run : box.github->check_runs()) {
    ++runs_of[run.value("external_id", "")];
    if (run.value("status", "") != "completed") ++out.stuck;
  }
  for (const auto& [id, state] : state_of) {
    const int n = runs_of[std::to_string(id)];
    if (n > 1) out.duplicated += n - 1;
    if (state != "done") ++out.stuck;
  }
  for (int n = 1; n <= size.pulls; ++n)
    out.duplicated += std::max<int>(0, int(box.github->comments("demo/loop", n).size()) - 1);
  out.answered = answered.size();
  out.jobs = jobs.size();
  out.seconds = seconds();
  return out;
}

}  // namespace bb::test
