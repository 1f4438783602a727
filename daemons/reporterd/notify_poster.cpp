#include "notify_poster.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "config/notify_config.h"
#include "daemon/credential.h"
#include "daemon/log.h"
#include "notify/deliver.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using notify::Delivery;

namespace {

// As the GitHub poster's: nothing due, look again anyway after an hour;
// after trouble of our own, a minute; a held notification, every 2 s.
constexpr int64_t kNotifyIdleSeconds = 3600;
constexpr int64_t kNotifyTroubleSeconds = 60;
constexpr int64_t kNotifyHeldRetrySeconds = 2;

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
  return name;
}

github_api::RetryPolicy policy_of(const config::ReporterConfig& r) {
  github_api::RetryPolicy p;
  p.retry_seconds = r.github_retry_seconds;
  p.retry_max_seconds = r.github_retry_max_seconds;
  p.give_up_seconds = static_cast<int64_t>(r.github_give_up_seconds);
  return p;
}

const config::NotifyDestination* find_destination(const config::ApplianceConfig& c, const std::string& repository,
                                                  const std::string& name) {
  const config::RepositoryPolicy* repo = c.find_repository(repository);
  if (!repo) return nullptr;
  for (const auto& d : repo->notify)
    if (d.name == name) return &d;
  return nullptr;
}

bool any_destination(const config::ApplianceConfig& c) {
  return std::any_of(c.repositories.begin(), c.repositories.end(), [](const auto& r) { return !r.notify.empty(); });
}

std::string credential_hint(const std::string& name) {
  return "; store the webhook's key with `benchbox-credentials set " + name +
         " KEY-FILE` (it gives benchbox-reporterd.service the credential), then `systemctl daemon-reload && "
         "systemctl restart benchbox-reporterd` (docs/notifications.md)";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> destinations_for(const config::ApplianceConfig& config,
                                                                  const notify::Notification& n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& repo : config.repositories) {
    if (!n.repository.empty() && repo.name != n.repository) continue;
    for (const auto& d : repo.notify)
      if (config::wants_event(d, n.event)) out.emplace_back(repo.name, d.name);
  }
  return out;
}

Result<std::unique_ptr<NotifyPoster>> NotifyPoster::create(const config::ApplianceConfig& config) {
  if (!any_destination(config)) return std::unique_ptr<NotifyPoster>();
  const std::string path = config.notify_outbox_database();
  if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0)
    if (auto st = make_dirs(path.substr(0, slash), 0755); !st)
      return st.error().with_context("the notifications outbox");
  auto outbox = notify::Outbox::open(path);
  if (!outbox) return outbox.error().with_context("the notifications outbox");
  // A missing key is said at start, where the operator looks; its items
  // wait (retried) until it is there.
  for (const auto& repo : config.repositories)
    for (const auto& d : repo.notify)
      if (d.kind == "webhook")
        if (auto key = daemon::read_credential(d.secret_credential, credential_hint(d.secret_credential)); !key)
          log_error("notifications to " + repo.name + "/" + d.name + " wait: " + key.error().message,
                    {{"REPOSITORY", repo.name}, {"DESTINATION", d.name}});
  return std::unique_ptr<NotifyPoster>(new NotifyPoster(config, std::move(*outbox)));
}

NotifyPoster::NotifyPoster(const config::ApplianceConfig& config, notify::Outbox outbox)
    : box_(host_name()), config_(config), outbox_(std::move(outbox)) {
  thread_ = std::thread([this] { worker(); });
}

NotifyPoster::~NotifyPoster() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  // A delivery in flight ends within a fraction of a second, recorded as
  // nothing: its item stays pending for the next start.
  stop_flag_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status NotifyPoster::notify(const notify::Notification& n) {
  BB_TRY(notify::validate(n));
  std::string failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [repository, destination] : destinations_for(config_, n)) {
      auto put = outbox_.put(repository, destination, n, clock_.now_unix());
      if (put) continue;
      held_.push_back({repository, destination, n});
      failed = put.error().message;
    }
    poked_ = true;
  }
  wake_.notify_one();
  if (!failed.empty())
    return make_error(Errc::io, failed + "; held in memory and stored as soon as notify-outbox.db can take it (" +
                                    n.id + ")");
  return {};
}

void NotifyPoster::set_config(const config::ApplianceConfig& config) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    config_ = config;
    poked_ = true;  // a destination may have come back, or gone
  }
  wake_.notify_one();
}

Result<notify::OutboxCounts> NotifyPoster::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return outbox_.counts();
}

void NotifyPoster::store_held() {
  std::lock_guard<std::mutex> lock(mutex_);
  while (!held_.empty()) {
    const Held& h = held_.front();
    if (!outbox_.put(h.repository, h.destination, h.notification, clock_.now_unix())) return;  // still full: later
    log_info("notification " + h.notification.id + " for " + h.repository + "/" + h.destination +
                 " stored in notify-outbox.db after all",
             {{"REPOSITORY", h.repository}, {"DESTINATION", h.destination}});
    held_.erase(held_.begin());
  }
}

bool NotifyPoster::stopping() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopping_;
}

void NotifyPoster::sleep_until(int64_t until) {
  int64_t seconds = std::clamp<int64_t>(until - clock_.now_unix(), 0, kNotifyIdleSeconds);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!held_.empty()) seconds = std::min<int64_t>(seconds, kNotifyHeldRetrySeconds);
  wake_.wait_for(lock, std::chrono::seconds(seconds), [this] { return poked_ || stopping_; });
  poked_ = false;
}

void NotifyPoster::worker() {
  // Its own connection: SQLite connections are not shared across threads.
  std::unique_ptr<notify::Outbox> outbox;
  while (!stopping()) {
    int64_t next = 0;
    try {
      if (!outbox) {
        std::string path;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          path = config_.notify_outbox_database();
        }
        auto opened = notify::Outbox::open(path);
        if (!opened) {
          log_error("notifications: cannot open the outbox: " + opened.error().message);
          sleep_until(clock_.now_unix() + kNotifyTroubleSeconds);
          continue;
        }
        outbox = std::make_unique<notify::Outbox>(std::move(*opened));
      }
      store_held();
      next = step(*outbox);
    } catch (const std::exception& e) {
      log_error(std::string("notifications: ") + e.what());
      next = clock_.now_unix() + kNotifyTroubleSeconds;
    } catch (...) {
      log_error("notifications: unknown exception");
      next = clock_.now_unix() + kNotifyTroubleSeconds;
    }
    if (next != 0) sleep_until(next);
  }
}

int64_t NotifyPoster::step(notify::Outbox& outbox) {
  const int64_t now = clock_.now_unix();
  auto item = outbox.next_due(now);
  if (!item) {
    log_error("notifications: reading the outbox: " + item.error().message);
    return now + kNotifyTroubleSeconds;
  }
  if (!item->has_value()) {
    auto wake = outbox.next_wakeup();
    if (!wake) {
      log_error("notifications: reading the outbox: " + wake.error().message);
      return now + kNotifyTroubleSeconds;
    }
    return wake->has_value() ? std::max(**wake, now + 1) : now + kNotifyIdleSeconds;
  }
  const notify::OutboxItem& it = **item;
  const Delivery d = attempt(it);
  if (d.interrupted) return 0;  // stopping: the item stays as it was
  github_api::RetryPolicy policy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    policy = policy_of(config_.reporter);
  }
  const notify::Recorded r = notify::judge(it, d, clock_.now_unix(), policy);
  auto say = [&](int priority, const std::string& message) {
    daemon::log(priority, message,
                {{"REPOSITORY", it.repository}, {"DESTINATION", it.destination},
                 {"NOTIFICATION", it.notification.id}, {"EVENT", it.notification.event}});
  };
  if (auto st = notify::record(outbox, it, r); !st) {
    // Not recorded: it stays due, so wait rather than deliver it again at once.
    say(LOG_ERR, "notifications: cannot record the outcome for " + it.key + ": " + st.error().message);
    return now + kNotifyTroubleSeconds;
  }
  const std::string what = "notification " + it.notification.event + " to " + it.repository + "/" + it.destination;
  switch (r.kind) {
    case Delivery::Kind::done: say(LOG_INFO, what + " delivered"); break;
    case Delivery::Kind::retry:
      say(LOG_WARNING, what + " not delivered yet, retrying at " + format_utc(r.retry_at) + ": " + r.error);
      break;
    case Delivery::Kind::drop: say(LOG_ERR, what + " dropped: " + r.error); break;
  }
  return 0;  // more may be due
}

Delivery NotifyPoster::attempt(const notify::OutboxItem& item) {
  config::NotifyDestination d;
  config::ReporterConfig reporter;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const config::NotifyDestination* found = find_destination(config_, item.repository, item.destination);
    if (!found)
      return Delivery{Delivery::Kind::drop, 0, "the destination is no longer in the config", false};
    d = *found;
    reporter = config_.reporter;
  }
  const auto timeout = std::chrono::seconds(reporter.notify_timeout_seconds);
  if (d.kind == "email") {
    const std::string from = reporter.mail_from.empty() ? "benchbox@" + box_ : reporter.mail_from;
    auto message = notify::render_email(item.notification, d, from, box_);
    if (!message) return Delivery{Delivery::Kind::drop, 0, message.error().message, false};
    return notify::send_mail(reporter.sendmail, *message, timeout, &stop_flag_);
  }
  std::string secret;
  if (d.kind == "webhook") {
    auto key = daemon::read_credential(d.secret_credential, credential_hint(d.secret_credential));
    // An operator can add it: tried again, and given up on as anything else.
    if (!key) return Delivery{Delivery::Kind::retry, 0, key.error().message, false};
    secret = std::move(*key);
  }
  auto post = notify::render_http(item.notification, d, secret, box_);
  if (!post) return Delivery{Delivery::Kind::drop, 0, post.error().message, false};
  return notify::post(*post, timeout, &stop_flag_);
}

}  // namespace bb::reporterd
