#include "canary.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "canary/runs.h"
#include "canary/workload.h"
#include "model/result_set.h"
#include "util/file.h"
#include "util/version.h"

namespace bb::runnerd {

std::optional<CanaryRecord> newest_canary(const std::string& dir) {
  const auto runs = canary::run_files(dir);
  if (runs.empty()) return std::nullopt;
  std::optional<CanaryRecord> newest = CanaryRecord{runs.back().time, "", runs.back().path};
  // Its version: a run this benchbox cannot read stands for an older one.
  auto text = read_file(newest->path, 16 << 20);
  if (text) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object()) newest->version = j.value("benchbox_version", "");
  }
  return newest;
}

Result<CanaryRecord> run_canary(const CanaryRequest& req, int64_t now) {
  if (!req.runner) return make_error(Errc::internal, "the canary needs a command runner");
  exec::Command c;
  c.argv = {req.program, "--rounds", std::to_string(req.rounds)};
  c.cwd = "/";
  c.cpus = req.cpus;
  // About 0.25 s a round and a warm-up; a box ten times slower still ends.
  c.timeout = std::chrono::seconds(60 + 3 * req.rounds);
  c.unit_name = "benchbox-canary-" + std::to_string(now) + ".scope";
  c.log_fields = {{"CANARY", req.why}};
  c.max_output_bytes = 8 << 20;
  auto outcome = req.runner->run(c, req.cancel);
  req.runner->end_job();
  if (!outcome) return outcome.error().with_context("the canary could not start");
  if (outcome->cancelled) return make_error(Errc::cancelled, "the canary was cancelled");
  if (!outcome->success()) {
    std::string said = outcome->stderr_text.substr(0, 500);
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    return make_error(Errc::internal, "the canary failed (" + outcome->describe() + ")" + (said.empty() ? "" : ": " + said));
  }
  auto j = nlohmann::json::parse(outcome->stdout_text, nullptr, false);
  if (j.is_discarded()) return make_error(Errc::parse, "the canary printed something other than JSON");
  auto rs = model::result_set_from_json(j);
  if (!rs) return rs.error().with_context("the canary's result set");
  // Its history's key: the hardware class, the CPUs and the isolation, and
  // the canary's version in place of a suite's toolchain.
  model::Environment env = req.environment;
  model::SuiteEnvironment suite;
  suite.name = "canary";
  suite.run = "benchbox-canary v" + std::to_string(canary::kVersion);
  suite.format = "benchbox";
  env.suites = {suite};
  rs->environment_key = env.key();
  rs->environment = env.to_json();
  rs->ref = "canary";
  rs->created = now;
  rs->cpus = req.cpus;
  rs->isolation = outcome->isolation;
  rs->tuning = req.tuning;
  rs->benchbox_version = bb::version();
  rs->config_text = "why: " + req.why + "\n";
  if (auto st = make_dirs(req.dir, 0755); !st) return st.error();
  // A second run in the same second (a test's clock) takes the next name.
  int64_t time = now;
  while (path_exists(canary::run_file(req.dir, time))) ++time;
  const std::string path = canary::run_file(req.dir, time);
  BB_TRY(write_file_atomic(path, model::to_json(*rs).dump(1) + "\n"));
  return CanaryRecord{time, bb::version(), path};
}

}  // namespace bb::runnerd
