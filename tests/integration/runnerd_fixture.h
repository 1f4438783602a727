// A real benchbox-queued and a real benchbox-runnerd on a private bus, and
// a real git "upstream" (a work repo pushing to a bare origin the runner
// fetches from). Shared by the runnerd_* integration tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "queued_client.h"
#include "queued_fixture.h"

namespace bb::test {

// A stand-in for a Google Benchmark binary with eight benchmarks, BM_a to
// BM_h: --benchmark_filter=REGEX (an anchored ERE, as the real one reads
// it) picks among them, `$filter` holds it ("." without one), and
// `before_output` (shell lines) runs before the JSON is printed, and
// `per_benchmark` (shell lines) once for each benchmark the filter picks.
std::string fake_google_benchmark(const std::string& before_output, const std::string& per_benchmark = "");

class RunnerdFixture {
 public:
  // A short lease and heartbeat so the kill -9 test runs in seconds.
  // `runner_yaml` is added to the config's runner section.
  explicit RunnerdFixture(const std::string& runner_yaml = "");
  // Another box of a fleet: its queue joins this PostgreSQL database, and
  // its runner is `runner_id`.
  RunnerdFixture(const std::string& runner_yaml, const std::string& postgres, const std::string& runner_id);

  // `wrapper` goes before runnerd's argv (e.g. setpriv, to run it as
  // another user).
  void start_runner(const std::map<std::string, std::string>& extra_env = {},
                    const std::vector<std::string>& wrapper = {});
  void kill_runner() { runner_->kill_hard(); }
  Process& runner() { return *runner_; }
  std::string runner_log() const { return runner_ ? runner_->log() : ""; }
  QueueClient& client() { return *client_; }
  QueuedFixture& queued() { return queued_; }
  TempDir& dir() { return queued_.dir(); }
  const std::string& address() const { return queued_.address(); }
  std::string config_path() const { return queued_.config_path(); }

  // The upstream repository. commit() writes files and commits them on the
  // current branch of the work repo and pushes; returns the sha.
  std::string git(const std::string& args);
  std::string commit(const std::string& path, const std::string& content, const std::string& message);
  std::string origin() { return dir() / "origin.git"; }
  // Makes refs/pull/<n>/head in origin point at `sha` (as GitHub does).
  void make_pr_ref(int n, const std::string& sha);

  // A push job of `sha` on acme/widget's `ref`, cloned from origin(); with
  // `before`, the push's previous head (github/policy.cpp's base_sha).
  nlohmann::json push_spec(const std::string& sha, const std::string& ref = "refs/heads/main",
                           const std::string& before = "") {
    nlohmann::json spec = {{"kind", "push"}, {"repository", "acme/widget"}, {"clone_url", origin()}, {"ref", ref},
                           {"head_sha", sha}};
    if (!before.empty()) spec["base_sha"] = before;
    return spec;
  }
  int64_t enqueue(const nlohmann::json& spec);
  // Waits for the job to reach a terminal state; returns the job.
  nlohmann::json wait_finished(int64_t id, int seconds = 60);
  nlohmann::json result_of(const nlohmann::json& job);
  // A Runner1 property read with busctl-like sd-bus calls.
  std::string runner_property(const char* name, const char* type);

 private:
  QueuedFixture queued_;
  std::unique_ptr<QueueClient> client_;
  std::unique_ptr<Process> runner_;
};

}  // namespace bb::test
