// Delivers notifications (docs/notifications.md) from their outbox
// (lib/notify/outbox.h) on a thread of its own, so a slow receiver or MTA
// never stalls the reporter's bus interface. The reporter raises events
// (notify(): durable before it returns, once per event and destination);
// this thread renders each for its destination when it is due, delivers it
// (lib/notify/deliver.h), and retries or gives up under the GitHub
// poster's policy. Stopping leaves what is pending in notify-outbox.db for
// the next start.
//
// The destinations are looked up when an item is delivered, in the config
// as it is then (a reload may remove one: its items are dropped, saying
// so). A webhook's secret is read from $CREDENTIALS_DIRECTORY at each
// attempt, so an operator who adds a missing credential needs no restart.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config/appliance.h"
#include "notify/notification.h"
#include "notify/outbox.h"
#include "util/clock.h"
#include "util/result.h"

namespace bb::reporterd {

class NotifyPoster {
 public:
  // nullptr (and no error) when no repository has a notify list.
  static Result<std::unique_ptr<NotifyPoster>> create(const config::ApplianceConfig& config);
  ~NotifyPoster();

  // Puts `n` for every destination that wants its event: those of
  // n.repository, or of every repository for the box's own events (an
  // empty repository). An event already put for a destination is not put
  // again. What notify-outbox.db cannot take (a full disk) is held in
  // memory and stored by the thread as soon as it can be; the error says so.
  Status notify(const notify::Notification& n);
  void set_config(const config::ApplianceConfig& config);
  Result<notify::OutboxCounts> counts();
  // The box's name in every message (its host name).
  const std::string& box() const { return box_; }

 private:
  struct Held {
    std::string repository, destination;
    notify::Notification notification;
  };

  NotifyPoster(const config::ApplianceConfig& config, notify::Outbox outbox);
  void worker();
  // Delivers what is due; returns when to look again (unix seconds, 0 = at once).
  int64_t step(notify::Outbox& outbox);
  // The attempt at `item` with the config as it is now.
  notify::Delivery attempt(const notify::OutboxItem& item);
  void sleep_until(int64_t until);
  void store_held();
  bool stopping();

  SystemClock clock_;
  std::string box_;            // the host name: in every message, and the default sender
  std::mutex mutex_;           // guards config_, outbox_ (the loop's connection), held_ and the flags
  config::ApplianceConfig config_;
  notify::Outbox outbox_;
  std::vector<Held> held_;
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  std::atomic<bool> stop_flag_{false};  // a delivery in flight looks at it
  std::thread thread_;         // last: started once everything above exists
};

// The destinations of `config` that want `n` (repository, destination name).
std::vector<std::pair<std::string, std::string>> destinations_for(const config::ApplianceConfig& config,
                                                                  const notify::Notification& n);

}  // namespace bb::reporterd
