// benchbox-webhookd under test: a real benchbox-queued on a private bus
// (QueuedFixture), the webhook secret as a credentials directory, a config
// with one watched repository, and signed HTTP over loopback.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness.h"
#include "queued_fixture.h"

namespace bb::test {

inline constexpr const char* kWebhookSecret = "It's a Secret to Everybody";

class WebhookdFixture {
 public:
  // `webhook_yaml`: lines of the config's `webhook:` section (indented).
  explicit WebhookdFixture(const std::string& webhook_yaml = "", const std::string& extra_yaml = "");

  QueuedFixture& queue() { return queue_; }
  TempDir& dir() { return dir_; }
  int port() const { return port_; }
  std::string url(const std::string& path = "/webhook") const;
  std::string config_path() const { return dir_ / "webhookd.yml"; }
  std::string spool_dir() const { return dir_ / "spool"; }
  std::map<std::string, std::string> env() const;
  // Extra environment for the next start() (NOTIFY_SOCKET, WATCHDOG_USEC).
  void set_env(const std::string& key, const std::string& value) { extra_env_[key] = value; }
  std::string daemon_path() const { return build_path("daemons/webhookd/benchbox-webhookd"); }

  // Starts webhookd with --listen on port() and waits until it answers.
  void start();
  Process& daemon() { return *daemon_; }
  std::string log() const { return daemon_ ? daemon_->log() : ""; }
  void stop() { daemon_.reset(); }
  // Replaces the config (then SIGHUP the daemon to apply it).
  void write_config(const std::string& webhook_yaml, const std::string& extra_yaml = "");

  // POSTs `body` as `event` with a valid signature (or `signature` if given).
  HttpResponse post(const std::string& event, const std::string& delivery, const std::string& body,
                    const std::string* signature = nullptr,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::vector<std::string> spooled() const;

 private:
  TempDir dir_;
  QueuedFixture queue_;
  int port_ = 0;
  std::unique_ptr<Process> daemon_;
  std::map<std::string, std::string> extra_env_;
};

// A field of /proc/<pid>/status in kB ("VmSize", "VmRSS"), -1 if absent.
long proc_status_kb(pid_t pid, const std::string& field);

// A fixture payload from tests/fixtures/github.
std::string github_fixture(const std::string& name);
nlohmann::json github_fixture_json(const std::string& name);

// A raw TCP client on 127.0.0.1, for clients that misbehave on purpose.
class RawClient {
 public:
  explicit RawClient(int port);
  ~RawClient();
  bool send(const std::string& bytes);  // false once the server closed
  // Reads until the server closes or `timeout`; returns what arrived.
  std::string read_all(std::chrono::milliseconds timeout);
  bool closed_by_server(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
};

}  // namespace bb::test
