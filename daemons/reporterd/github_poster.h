// Posts to GitHub from the outbox (lib/github_api/outbox.h) on a thread of
// its own, so a slow or unreachable GitHub never stalls the reporter's bus
// interface. The reporter records Wants (durable before want() returns);
// this thread sends what is due, retries with backoff, honours GitHub's
// rate limits, and logs what it drops. Stopping leaves what is pending in
// outbox.db for the next start.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "config/appliance.h"
#include "github_api/outbox.h"
#include "github_api/sender.h"
#include "github_api/want.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::reporterd {

class GitHubPoster {
 public:
  // nullptr (and no error) when posting is off (reporter.auth_mode() "off").
  // Fails, naming the credential, when it is on but the credential
  // (github-app-key or github-token in $CREDENTIALS_DIRECTORY) is missing.
  static Result<std::unique_ptr<GitHubPoster>> create(const config::ApplianceConfig& config);
  ~GitHubPoster();

  // Records what GitHub should show; the thread posts it. A want outbox.db
  // cannot take (a full disk) is held in memory, the newest per target,
  // and stored by the thread as soon as it can be; the error says so.
  Status want(const github_api::Want& want);
  // What GitHub made of a target, once posted (e.g. an issue's html_url).
  std::optional<github_api::PostedObject> posted(const std::string& target);
  // What GitHub should show of a target, as last wanted.
  std::optional<github_api::Want> wanted(const std::string& target);
  Result<github_api::OutboxCounts> counts();

 private:
  struct Settings;  // what the worker builds its own Outbox, Client and Sender from
  GitHubPoster(std::unique_ptr<Settings> settings, github_api::Outbox outbox);
  void worker();
  // Sends what is due; returns when to look again (unix seconds, 0 = at once).
  int64_t step(github_api::Outbox& outbox, github_api::Sender& sender);
  void log_outcome(const github_api::OutboxItem& item, const github_api::SendOutcome& outcome);
  // Sleeps until `until` (unix seconds), a poke or stop; at most a few
  // seconds while a want waits to be stored.
  void sleep_until(int64_t until);
  // Stores the wants held in memory that outbox.db takes now.
  void store_held();
  bool stopping();

  std::unique_ptr<Settings> settings_;
  SystemClock clock_;
  std::mutex mutex_;           // guards outbox_ (the loop's connection) and the flags
  github_api::Outbox outbox_;
  std::map<std::string, github_api::Want> held_;  // target -> newest want not yet stored
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  std::atomic<bool> stop_flag_{false};  // the sender checks it between calls
  int64_t pause_logged_ = 0;   // the worker's: the rate-limit pause already logged
  std::thread thread_;         // last: started once everything above exists
};

}  // namespace bb::reporterd
