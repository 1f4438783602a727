// benchbox-reporterd with a real queue and a local fake of GitHub's API: the
// test plays the runner (claims jobs, writes result files, completes them)
// and checks the reports, the check runs, the sticky comment and the issue.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "github_api/fake_github.h"
#include "harness.h"
#include "model/result_set.h"
#include "queued_client.h"
#include "queued_fixture.h"

using namespace bb;
using namespace bb::test;
using nlohmann::json;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

model::ResultSet result_set(const std::string& commit, double seconds, const std::string& role, int64_t job) {
  model::ResultSet rs;
  rs.repository = "o/r";
  rs.commit = commit;
  rs.ref = "refs/heads/main";
  rs.role = role;
  rs.job_id = job;
  rs.environment_key = "env";
  model::Benchmark b;
  b.key = {"micro", "loop", {}, "wall_time"};
  for (int i = 0; i < 16; ++i) {
    b.samples.push_back(seconds * (1 + 0.002 * ((i * 7) % 5)));
    b.rounds.push_back(i);
  }
  rs.benchmarks.push_back(b);
  return rs;
}

struct Setup {
  TempDir dir;
  OpenBus bus{dir.path()};  // any user may connect: a test calls as "nobody"
  std::string private_key = dir / "creds/github-app-key";
  std::unique_ptr<github_api::FakeGitHub> github;
  std::unique_ptr<Process> queued, reporterd;
  std::unique_ptr<QueueClient> queue;

  Setup() {
    REQUIRE(run_shell("mkdir -p " + (dir / "creds") + " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out " +
                      private_key + " 2>/dev/null && openssl pkey -in " + private_key + " -pubout -out " +
                      (dir / "pub.pem")) == 0);
    github = std::make_unique<github_api::FakeGitHub>(slurp(dir / "pub.pem"), std::vector<std::string>{"o/r"});
    std::ofstream(dir / "benchbox.yml") << "state_dir: " << (dir / "state") << "\nreporter:\n  github_app_id: 77\n"
                                        << "  github_api_url: " << github->url() << "\n";
    queued = std::make_unique<Process>(
        std::vector<std::string>{build_path("daemons/queued/benchbox-queued"), "--config", dir / "benchbox.yml"},
        daemon_env(bus.address()), dir / "queued.log");
    queue = std::make_unique<QueueClient>(bus.address());
    std::string v;
    REQUIRE(wait_until([&] { return !queue->version(&v); }));
    start_reporter();
  }

  void start_reporter() {
    auto env = daemon_env(bus.address());
    env["CREDENTIALS_DIRECTORY"] = dir / "creds";
    reporterd = std::make_unique<Process>(
        std::vector<std::string>{build_path("daemons/reporterd/benchbox-reporterd"), "--config", dir / "benchbox.yml"},
        env, dir / "reporterd.log");
    REQUIRE(wait_until([&] {
      return run_shell("busctl --address=" + bus.address() +
                       " get-property org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 Version"
                       " >/dev/null 2>&1") == 0;
    }));
  }

  // Enqueues, claims and completes a job with the given results.
  int64_t run_job(const json& spec, const model::JobResult& jr_in) {
    int64_t id = 0;
    bool created = false;
    REQUIRE_FALSE(queue->enqueue(spec, &id, &created));
    int64_t claimed = 0;
    json job;
    REQUIRE_FALSE(queue->claim("test-runner", 60, &claimed, &job));
    REQUIRE(claimed == id);
    model::JobResult jr = jr_in;
    jr.job_id = id;
    // As the runner does: history.db keys points by the result set's job.
    jr.head.job_id = id;
    if (jr.base) jr.base->job_id = id;
    std::string path = dir / ("result-" + std::to_string(id) + ".json");
    std::ofstream(path) << model::to_json(jr).dump();
    REQUIRE_FALSE(queue->complete(id, "test-runner", path));
    return id;
  }

  std::string report_path(int64_t id) { return dir / ("state/reports/" + std::to_string(id) + "/report.md"); }
  bool posted(int64_t id) { return run_shell("test -s " + (dir / ("state/reports/" + std::to_string(id) + "/github.json"))) == 0; }
  std::string logs() { return queued->log() + "\n---\n" + reporterd->log(); }
};

json pr_spec(const std::string& head) {
  return {{"kind", "pull_request"}, {"repository", "o/r"}, {"clone_url", "/srv/r.git"}, {"head_sha", head},
          {"ref", "refs/pull/3/head"}, {"pr_number", 3}, {"delivery_id", "d-" + head}};
}

json push_spec(const std::string& head) {
  return {{"kind", "push"}, {"repository", "o/r"}, {"clone_url", "/srv/r.git"}, {"head_sha", head},
          {"ref", "refs/heads/main"}, {"delivery_id", "p-" + head}};
}

}  // namespace

TEST_CASE("a PR regression becomes a failing check run and one sticky comment, edited on the next run") {
  Setup s;
  std::string base = fake_sha(1), head = fake_sha(2), head2 = fake_sha(3);
  model::JobResult jr;
  jr.kind = "pull_request";
  jr.base = result_set(base, 0.100, "base", 0);
  jr.head = result_set(head, 0.115, "head", 0);
  int64_t id = s.run_job(pr_spec(head), jr);
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.posted(id); }));
  CHECK(slurp(s.report_path(id)).find("Overall: regressed") != std::string::npos);
  auto runs = s.github->check_runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["head_sha"] == head);
  CHECK(runs[0]["conclusion"] == "failure");
  auto comments = s.github->comments("o/r", 3);
  REQUIRE(comments.size() == 1);
  CHECK(comments[0]["body"].get<std::string>().find("Overall: regressed") != std::string::npos);

  // The PR is fixed: the same comment is edited, not a second one added.
  jr.head = result_set(head2, 0.100, "head", 0);
  int64_t id2 = s.run_job(pr_spec(head2), jr);
  REQUIRE(wait_until([&] { return s.posted(id2); }));
  comments = s.github->comments("o/r", 3);
  REQUIRE(comments.size() == 1);
  std::string body = comments[0]["body"];
  INFO(body);
  CHECK(body.find("Overall: regressed") == std::string::npos);
  CHECK(body.find("Overall: ") != std::string::npos);
  CHECK(s.github->check_runs().size() == 2);
  CHECK(s.github->issues().empty());
}

TEST_CASE("Ingest is for operators, Report for anyone") {
  if (::geteuid() != 0) {
    WARN("not root: cannot call as another user");
    return;
  }
  Setup s;
  model::JobResult jr;
  jr.kind = "pull_request";
  jr.base = result_set(fake_sha(1), 0.100, "base", 0);
  jr.head = result_set(fake_sha(2), 0.100, "head", 0);
  int64_t id = s.run_job(pr_spec(fake_sha(2)), jr);
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.posted(id); }));
  const std::string call = "busctl --address=" + s.bus.address() +
                           " call org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 ";
  std::string out;
  CHECK(run_as_nobody(call + "Ingest x " + std::to_string(id), &out) != 0);
  CHECK(out.find("Access denied") != std::string::npos);
  CHECK(slurp(s.dir / "reporterd.log").find("refused a bus call: Ingest is for root") != std::string::npos);
  CHECK(run_as_nobody(call + "Report x " + std::to_string(id), &out) == 0);
  CHECK(out.find("Overall") != std::string::npos);
  CHECK(run_shell(call + "Ingest x " + std::to_string(id) + " >/dev/null 2>&1") == 0);  // root may
}

TEST_CASE("a main-branch regression against the previous push opens an issue; failures are failures") {
  Setup s;
  model::JobResult first;
  first.kind = "push";
  first.head = result_set(fake_sha(10), 0.100, "", 0);
  int64_t a = s.run_job(push_spec(fake_sha(10)), first);
  REQUIRE(wait_until([&] { return s.posted(a); }));
  CHECK(slurp(s.report_path(a)).find("First run") != std::string::npos);

  model::JobResult second = first;
  second.head = result_set(fake_sha(11), 0.120, "", 0);
  int64_t b = s.run_job(push_spec(fake_sha(11)), second);
  INFO(s.logs());
  REQUIRE(wait_until([&] { return s.posted(b); }));
  CHECK(slurp(s.report_path(b)).find("Overall: regressed") != std::string::npos);
  auto issues = s.github->issues();
  REQUIRE(issues.size() == 1);
  CHECK(issues[0]["title"].get<std::string>().find(fake_sha(11).substr(0, 12)) != std::string::npos);

  // A failed job: reported as failed with its reason, never as success.
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(s.queue->enqueue(push_spec(fake_sha(12)), &id, &created));
  int64_t claimed = 0;
  json job;
  REQUIRE_FALSE(s.queue->claim("test-runner", 60, &claimed, &job));
  REQUIRE_FALSE(s.queue->fail(id, "test-runner", ".benchbox.yml:4:12: suites[0].timeout: expected a non-negative integer"));
  REQUIRE(wait_until([&] { return s.posted(id); }));
  CHECK(slurp(s.report_path(id)).find(".benchbox.yml:4:12") != std::string::npos);
  CHECK(s.github->check_runs().back()["conclusion"] == "failure");
}

TEST_CASE("a step on the main branch is reported as a change point with its commit range") {
  Setup s;
  // Eight pushes at 100 ms, then five at 112 ms: E-divisive needs four runs
  // after the step before it can tell a step from noise.
  int64_t last = 0;
  for (int i = 0; i < 13; ++i) {
    model::JobResult jr;
    jr.kind = "push";
    jr.head = result_set(fake_sha(30 + i), i < 8 ? 0.100 : 0.112, "", 0);
    last = s.run_job(push_spec(fake_sha(30 + i)), jr);
    REQUIRE(wait_until([&] { return s.posted(last); }));
  }
  INFO(s.logs());
  std::string report = slurp(s.report_path(last));
  INFO(report);
  CHECK(report.find("### Change points on refs/heads/main") != std::string::npos);
  std::string range = fake_sha(37).substr(0, 12) + ".." + fake_sha(38).substr(0, 12);
  CHECK(report.find(range) != std::string::npos);
  auto j = json::parse(slurp(s.dir / ("state/reports/" + std::to_string(last) + "/report.json")));
  REQUIRE(j["change_points"].size() == 1);
  CHECK(j["change_points"][0]["ratio"].get<double>() == Approx(1.12).epsilon(0.01));
  CHECK(slurp(s.dir / "state/site/o_r.html").find(range + " ×1.12") != std::string::npos);
}

TEST_CASE("jobs that finish while the reporter is down are reported when it comes back") {
  Setup s;
  REQUIRE(s.reporterd->terminate() == 0);
  model::JobResult jr;
  jr.kind = "push";
  jr.head = result_set(fake_sha(20), 0.1, "", 0);
  int64_t id = s.run_job(push_spec(fake_sha(20)), jr);
  s.start_reporter();
  INFO(s.logs());
  REQUIRE(wait_until([&] { return run_shell("test -s " + s.report_path(id)) == 0; }));
}

TEST_CASE("posting to GitHub without the github-app-key credential is refused at start, clearly") {
  TempDir dir;
  PrivateBus bus;
  std::ofstream(dir / "benchbox.yml") << "state_dir: " << (dir / "state") << "\nreporter:\n  github_app_id: 77\n";
  Process p({build_path("daemons/reporterd/benchbox-reporterd"), "--config", dir / "benchbox.yml"}, daemon_env(bus.address()),
            dir / "reporterd.log");
  REQUIRE(wait_until([&] { return !p.running(); }));
  CHECK(p.log().find("github-app-key") != std::string::npos);
}
