// The whole appliance on one private bus: signed webhooks in, reports out.
// Same chain as scripts/demo.sh, with assertions on every hop.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness.h"

using namespace bb::test;
using nlohmann::json;

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

struct Appliance {
  TempDir dir;
  PrivateBus bus;
  std::string secret = "e2e-secret-0123456789";
  int port = free_port();
  std::string repo = dir / "demo.git";
  std::string main_sha, pr_sha;
  std::vector<std::unique_ptr<Process>> daemons;

  Appliance() {
    // Run as root, runnerd gives each job its own uid, which must be able
    // to pass through this directory to reach its work tree below it.
    sh("chmod 0755 " + dir.path());
    std::string work = dir / "work";
    sh("git init -q --bare " + repo + " && git init -q -b main " + work);
    write(work + "/bench.c",
          "#include <stdio.h>\n#include \"work.h\"\nint main(void){volatile unsigned long x=1;"
          "for(unsigned long i=0;i<WORK;++i)x=x*6364136223846793005ul+i;printf(\"%lu\\n\",(unsigned long)x);}\n");
    write(work + "/work.h", "#define WORK 20000000ul\n");
    write(work + "/.benchbox.yml",
          "version: 1\nsuites:\n  - name: loop\n    build: cc -O2 -o bench bench.c\n    run: ./bench\n"
          "    format: command\n    repetitions: 12\n    warmup: 1\n    timeout: 60\n");
    std::string git = "git -C " + work + " -c user.name=t -c user.email=t@example.org ";
    sh(git + "add -A && " + git + "commit -qm base && " + git + "push -q " + repo + " main");
    main_sha = sh(git + "rev-parse HEAD");
    // Three times the work: the push job against the PR job below is an
    // unpaired comparison of two jobs that ran at different moments, and a
    // loaded CI host (the ASan run beside other tests) masked a 20 % change.
    write(work + "/work.h", "#define WORK 60000000ul\n");
    sh(git + "checkout -q -b slower && " + git + "commit -qam slower && " + git + "push -q " + repo + " slower");
    pr_sha = sh(git + "rev-parse HEAD");
    sh("git -C " + repo + " update-ref refs/pull/1/head " + pr_sha);

    sh("mkdir -p " + (dir / "creds"));
    write(dir / "creds/webhook-secret", secret);
    write(dir / "benchbox.yml",
          "state_dir: " + (dir / "state") + "\ncache_dir: " + (dir / "cache") +
              "\nrepositories:\n  - name: demo/loop\n    clone_url: " + repo +
              "\n    branches: [main]\n    blessers: [alice]\nqueue:\n  lease_seconds: 60\n"
              "runner:\n  heartbeat_seconds: 5\ntuner:\n  sysfs_root: /\n");
    auto env = daemon_env(bus);
    auto start = [&](const std::string& name, std::vector<std::string> extra = {},
                     std::map<std::string, std::string> more_env = {}) {
      std::vector<std::string> argv = {build_path("daemons/" + name + "/benchbox-" + name), "--config",
                                       dir / "benchbox.yml"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      auto e = env;
      e.insert(more_env.begin(), more_env.end());
      daemons.push_back(std::make_unique<Process>(argv, e, dir / (name + ".log")));
    };
    start("queued");
    start("tunerd");
    start("reporterd");
    start("runnerd");
    start("webhookd", {"--listen", "127.0.0.1:" + std::to_string(port)}, {{"CREDENTIALS_DIRECTORY", dir / "creds"}});
    ::setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address().c_str(), 1);
    REQUIRE(wait_until([&] { return http_get(url()).status != 0; }));
    REQUIRE(wait_until([&] { return run_shell(ctl() + " status >/dev/null 2>&1") == 0; }));
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/webhook"; }
  std::string ctl() const { return build_path("cli/benchboxctl"); }

  HttpResponse deliver(const std::string& event, const json& body, const std::string& delivery) {
    std::string text = body.dump();
    return http_post(url(), text,
                     {{"Content-Type", "application/json"},
                      {"X-GitHub-Event", event},
                      {"X-GitHub-Delivery", delivery},
                      {"X-Hub-Signature-256", github_signature(secret, text)}});
  }

  json repository() const {
    return {{"full_name", "demo/loop"}, {"name", "loop"}, {"clone_url", repo},
            {"default_branch", "main"}, {"owner", {{"login", "demo"}}}};
  }

  std::string logs() {
    std::string all;
    for (auto& d : daemons) all += d->log() + "\n----\n";
    return all;
  }

  json job(int64_t id) {
    std::string out;
    run_shell(ctl() + " jobs show " + std::to_string(id) + " 2>/dev/null", &out);
    return json::parse(out, nullptr, false);
  }
};

}  // namespace

TEST_CASE("a push and a blessed pull request run end to end and the PR regression is reported") {
  Appliance a;
  json repo = a.repository();

  auto push = a.deliver("push",
                        {{"ref", "refs/heads/main"}, {"before", std::string(40, '0')}, {"after", a.main_sha},
                         {"created", true}, {"deleted", false}, {"repository", repo},
                         {"sender", {{"login", "alice"}}}, {"head_commit", {{"id", a.main_sha}}}},
                        "delivery-push-1");
  INFO(push.body << a.logs());
  REQUIRE(push.status == 202);
  int64_t push_job = json::parse(push.body)["job_id"];

  json pr = {{"number", 1}, {"state", "open"}, {"user", {{"login", "mallory"}}},
             {"head", {{"sha", a.pr_sha}, {"ref", "slower"}, {"repo", repo}}},
             {"base", {{"sha", a.main_sha}, {"ref", "main"}, {"repo", repo}}}};
  auto opened = a.deliver("pull_request",
                          {{"action", "opened"}, {"number", 1}, {"pull_request", pr}, {"repository", repo},
                           {"sender", {{"login", "mallory"}}}},
                          "delivery-pr-1");
  REQUIRE((opened.status == 202 || opened.status == 200));

  auto comment = [&](const std::string& who) {
    return json{{"action", "created"},
                {"issue", {{"number", 1}, {"pull_request", {{"url", "https://api.github.com/repos/demo/loop/pulls/1"}}}}},
                {"comment", {{"id", 5}, {"body", "/benchbox run"}, {"user", {{"login", who}}}}},
                {"repository", repo},
                {"sender", {{"login", who}}}};
  };
  auto refused = a.deliver("issue_comment", comment("mallory"), "delivery-comment-1");
  CHECK(refused.status == 202);
  CHECK(refused.body.find("job_id") == std::string::npos);

  auto blessed = a.deliver("issue_comment", comment("alice"), "delivery-comment-2");
  INFO(blessed.body << a.logs());
  REQUIRE(blessed.status == 202);
  int64_t pr_job = json::parse(blessed.body)["job_id"];
  CHECK(pr_job != push_job);

  // A repeated delivery is answered 200 with the same job.
  auto again = a.deliver("issue_comment", comment("alice"), "delivery-comment-2");
  CHECK(again.status == 200);
  CHECK(json::parse(again.body)["job_id"] == pr_job);

  for (int64_t id : {push_job, pr_job}) {
    bool finished = wait_until(
        [&] {
          json j = a.job(id);
          return j.is_object() && (j["state"] == "done" || j["state"] == "failed");
        },
        std::chrono::minutes(5));
    INFO("job " << id << ": " << a.job(id).dump() << "\n" << a.logs());
    REQUIRE(finished);
    REQUIRE(a.job(id)["state"] == "done");
    REQUIRE(wait_until([&] { return run_shell(a.ctl() + " report " + std::to_string(id) + " >/dev/null 2>&1") == 0; }));
  }

  // The PR result holds base and head, paired by round, on the same cores.
  std::string result_path = a.job(pr_job)["result_path"];
  json result = json::parse(std::ifstream(result_path));
  REQUIRE(result["base"].is_object());
  CHECK(result["base"]["commit"] == a.main_sha);
  CHECK(result["head"]["commit"] == a.pr_sha);
  CHECK(result["head"]["benchmarks"][0]["rounds"].size() == 12);
  CHECK(result["head"]["cpus"] == result["base"]["cpus"]);

  std::string report;
  run_shell(a.ctl() + " report " + std::to_string(pr_job), &report);
  INFO(report);
  CHECK(report.find("Overall: regressed") != std::string::npos);
  std::string push_report;
  run_shell(a.ctl() + " report " + std::to_string(push_job), &push_report);
  CHECK(push_report.find("First run") != std::string::npos);
  CHECK(bb::test::run_shell("test -s " + (a.dir / "state/site/index.html")) == 0);

  // benchboxctl compare takes job ids of the running appliance: one PR job
  // is its merge-base against its head (a regression: exit 1).
  std::string compared;
  CHECK(run_shell(a.ctl() + " compare " + std::to_string(pr_job) + " 2>&1", &compared) == 1);
  CHECK(compared.find("regressed") != std::string::npos);
  // The push job against the PR job: main's run as base, the PR head as head.
  CHECK(run_shell(a.ctl() + " compare " + std::to_string(push_job) + " " + std::to_string(pr_job) + " >/dev/null 2>&1") == 1);
  std::string missing;
  CHECK(run_shell(a.ctl() + " compare 999 2>&1", &missing) == 2);
  CHECK(missing.find("no job 999") != std::string::npos);
}
