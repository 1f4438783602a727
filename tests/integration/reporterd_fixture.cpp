#include "reporterd_fixture.h"

#include <catch2/catch.hpp>

#include <fstream>

namespace bb::test {

model::ResultSet result_set(const std::string& commit, double seconds, const std::string& role, int64_t position) {
  model::ResultSet rs;
  rs.repository = "o/r";
  rs.commit = commit;
  rs.ref = "refs/heads/main";
  rs.role = role;
  rs.environment_key = "env";
  rs.commit_info.first_parent_position = position;
  rs.commit_info.time = position >= 0 ? 1700000000 + position * 60 : 0;
  rs.config_text = "version: 1\nsuites:\n  - name: micro\n    run: ./loop\n";
  model::Benchmark b;
  b.key = {"micro", "loop", {}, "wall_time"};
  for (int i = 0; i < 16; ++i) {
    b.samples.push_back(seconds * (1 + 0.002 * ((i * 7) % 5)));
    b.rounds.push_back(i);
  }
  rs.benchmarks.push_back(b);
  return rs;
}

model::JobResult push_result(const std::string& commit, double seconds, int64_t position) {
  model::JobResult jr;
  jr.kind = "push";
  jr.head = result_set(commit, seconds, "", position);
  return jr;
}

nlohmann::json pr_spec(const std::string& head, int64_t pr) {
  return {{"kind", "pull_request"}, {"repository", "o/r"}, {"clone_url", "https://github.com/o/r.git"},
          {"head_sha", head}, {"ref", "refs/pull/" + std::to_string(pr) + "/head"}, {"base_ref", "refs/heads/main"},
          {"pr_number", pr}, {"delivery_id", "d-" + head}};
}

nlohmann::json push_spec(const std::string& head) {
  return {{"kind", "push"}, {"repository", "o/r"}, {"clone_url", "https://github.com/o/r.git"}, {"head_sha", head},
          {"ref", "refs/heads/main"}, {"delivery_id", "p-" + head}};
}

ReporterFixture::ReporterFixture(const std::string& extra_config, const std::string& postgres) {
  REQUIRE(run_shell("mkdir -p " + (dir / "creds") + " && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out " +
                    private_key + " 2>/dev/null && openssl pkey -in " + private_key + " -pubout -out " +
                    (dir / "pub.pem")) == 0);
  // A plain token too, for the tests that switch reporter.github_auth to it.
  std::ofstream(dir / "creds/github-token") << "ghp_plain_test_token\n";
  github = std::make_unique<github_api::FakeGitHub>(slurp(dir / "pub.pem"), std::vector<std::string>{"o/r"});
  // Retries every second, so an outage ends in the test's time.
  std::ofstream(dir / "benchbox.yml") << "state_dir: " << (dir / "state") << "\nreporter:\n  github_app_id: 77\n"
                                      << "  github_api_url: " << github->url() << "\n"
                                      << "  site_url: https://bench.example.org/\n"
                                      << "  github_retry_seconds: 1\n  github_retry_max_seconds: 2\n"
                                      << (postgres.empty() ? "" : "  backend: postgresql\n") << extra_config;
  auto queued_env = daemon_env(bus.address());
  if (!postgres.empty()) {
    std::ofstream(dir / "benchbox.yml", std::ios::app) << "queue:\n  backend: postgresql\n";
    std::ofstream(dir / "creds/postgresql") << postgres << "\n";
    queued_env["CREDENTIALS_DIRECTORY"] = dir / "creds";
  }
  queued = std::make_unique<Process>(
      std::vector<std::string>{build_path("daemons/queued/benchbox-queued"), "--config", dir / "benchbox.yml"},
      queued_env, dir / "queued.log");
  queue = std::make_unique<QueueClient>(bus.address());
  std::string v;
  // 60 s: an ASan build of queued starts in well under a second on an idle
  // machine, but the test command compiles the next build beside these tests.
  // Its log is read once the wait failed: what it says then is the why.
  if (!wait_until([&] { return !queue->version(&v); }, std::chrono::seconds(60)))
    FAIL("queued did not answer Version within 60 s; its log:\n" << slurp(dir / "queued.log"));
  start_reporter();
}

void ReporterFixture::start_reporter() {
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

int64_t ReporterFixture::enqueue(const nlohmann::json& spec) {
  int64_t id = 0;
  bool created = false;
  REQUIRE_FALSE(queue->enqueue(spec, &id, &created));
  return id;
}

void ReporterFixture::claim(int64_t id) {
  int64_t claimed = 0;
  nlohmann::json job;
  REQUIRE_FALSE(queue->claim("test-runner", 60, &claimed, &job));
  REQUIRE(claimed == id);
}

void ReporterFixture::complete(int64_t id, model::JobResult jr) {
  jr.job_id = id;
  // As the runner does: history.db keys points by the result set's job.
  jr.head.job_id = id;
  if (jr.base) jr.base->job_id = id;
  std::string path = dir / ("result-" + std::to_string(id) + ".json");
  std::ofstream(path) << model::to_json(jr).dump();
  REQUIRE_FALSE(queue->complete(id, "test-runner", path));
}

int64_t ReporterFixture::run_job(const nlohmann::json& spec, const model::JobResult& jr) {
  const int64_t id = enqueue(spec);
  claim(id);
  complete(id, jr);
  return id;
}

std::string ReporterFixture::report_path(int64_t id) {
  return dir / ("state/reports/" + std::to_string(id) + "/report.md");
}

bool ReporterFixture::reported(int64_t id) { return run_shell("test -s " + report_path(id)) == 0; }

nlohmann::json ReporterFixture::check_run(int64_t id) {
  for (const auto& run : github->check_runs())
    if (run.value("external_id", "") == std::to_string(id)) return run;
  return nlohmann::json::object();
}

std::string ReporterFixture::logs() { return queued->log() + "\n---\n" + reporterd->log(); }

void ReporterFixture::restart_reporter() {
  REQUIRE(reporterd->terminate() == 0);
  start_reporter();
}

void ReporterFixture::write_canary(int64_t time, double cpu, double memory) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& [name, seconds] : {std::pair<const char*, double>{"cpu", cpu}, {"memory", memory}}) {
    nlohmann::json samples = nlohmann::json::array();
    for (int i = 0; i < 5; ++i) samples.push_back(seconds * (1 + 0.001 * i));
    benchmarks.push_back({{"suite", "canary"}, {"name", name}, {"metric", "wall_time"}, {"unit", "s"},
                          {"samples", samples}});
  }
  REQUIRE(run_shell("mkdir -p " + (dir / "state/results/canary")) == 0);
  std::ofstream(dir / ("state/results/canary/" + std::to_string(time) + ".json"))
      << nlohmann::json{{"repository", "benchbox/canary"}, {"ref", "canary"}, {"environment_key", "hw-1"},
                        {"benchbox_version", "test"}, {"benchmarks", benchmarks}}
             .dump();
}

void ReporterFixture::write_shifted_canary(int64_t t0, double cpu, double memory) {
  for (int i = 0; i < 5; ++i) write_canary(t0 + i * 60, 0.069, 0.166);
  // Two in a row: one run outside may be the box's own noise.
  write_canary(t0 + 300, 0.069 * cpu, 0.166 * memory);
  write_canary(t0 + 330, 0.069 * cpu, 0.166 * memory);
  restart_reporter();
  REQUIRE(box_health().find("shifted") != std::string::npos);
}

std::string ReporterFixture::box_health() {
  std::string out;
  run_shell("busctl --address=" + bus.address() +
                " get-property org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 BoxHealth",
            &out);
  return out;
}

}  // namespace bb::test
