// benchbox-queued and benchbox-reporterd on a private bus, with the local
// fake of GitHub's API behind reporterd's outbox. The test plays the runner:
// it enqueues, claims and completes jobs with result files it writes.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "github_api/fake_github.h"
#include "harness.h"
#include "model/result_set.h"
#include "queued_client.h"
#include "queued_fixture.h"

namespace bb::test {

// One benchmark "micro/loop:wall_time" at `seconds`, 16 samples with a
// little noise, on refs/heads/main of o/r.
model::ResultSet result_set(const std::string& commit, double seconds, const std::string& role, int64_t position = -1);

// A push job's result: result_set() of `commit` alone (no previous head beside it).
model::JobResult push_result(const std::string& commit, double seconds, int64_t position);

nlohmann::json pr_spec(const std::string& head, int64_t pr = 3);
nlohmann::json push_spec(const std::string& head);

struct ReporterFixture {
  TempDir dir;
  OpenBus bus{dir.path()};  // any user may connect: a test calls as "nobody"
  std::string private_key = dir / "creds/github-app-key";
  std::unique_ptr<github_api::FakeGitHub> github;
  std::unique_ptr<Process> queued, reporterd;
  std::unique_ptr<QueueClient> queue;

  // `extra_config`: more lines of the reporter section. `postgres`: the
  // connection string of a shared database where this box's queue (joining
  // the fleet's) and history live ("" = SQLite files of its own).
  explicit ReporterFixture(const std::string& extra_config = "", const std::string& postgres = "");
  void start_reporter();

  int64_t enqueue(const nlohmann::json& spec);
  void claim(int64_t id);
  // Writes the result file and completes the job.
  void complete(int64_t id, model::JobResult result);
  // enqueue + claim + complete.
  int64_t run_job(const nlohmann::json& spec, const model::JobResult& result);

  std::string report_path(int64_t id);
  bool reported(int64_t id);
  // The check run of a job as GitHub shows it now ({} when none).
  nlohmann::json check_run(int64_t id);
  std::string logs();

  // Stops reporterd and starts it again (it reads the canary's runs at start).
  void restart_reporter();
  // A canary run as runnerd keeps it (<state>/results/canary/<time>.json):
  // the two workloads at about these seconds, environment "hw-1".
  void write_canary(int64_t time, double cpu, double memory);
  // A box that slowed down: five steady canary runs a minute apart from
  // t0, then two in a row at `cpu` and `memory` times their level (at
  // t0 + 300 and + 330); reporterd is restarted to read them and BoxHealth
  // is "shifted". The next runs go from t0 + 360.
  void write_shifted_canary(int64_t t0, double cpu, double memory);
  // Reporter1.BoxHealth as busctl prints it (non-ASCII escaped).
  std::string box_health();
};

}  // namespace bb::test
