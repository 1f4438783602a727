#include "github_poster.h"

#include <algorithm>
#include <chrono>

#include "daemon/log.h"
#include "github_api/client.h"
#include "github_api/credentials.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_debug;
using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;
using github_api::OutboxItem;
using github_api::SendOutcome;

namespace {

// Nothing due and nothing pending: look again after this anyway (a poke
// comes sooner; the wall clock may have jumped).
constexpr int64_t kIdleSeconds = 3600;
// After a failure of our own (the outbox file, something unexpected).
constexpr int64_t kTroubleSeconds = 60;
// A want outbox.db could not take (a full disk) is tried again this often.
constexpr int64_t kHeldRetrySeconds = 2;

std::string repository_of(const github_api::Want& want) {
  return std::visit([](const auto& w) { return w.repository; }, want.what);
}

const char* noun_of(const github_api::Want& want) {
  switch (want.what.index()) {
    case 0: return "check run";
    case 1: return "comment";
    default: return "issue";
  }
}

}  // namespace

struct GitHubPoster::Settings {
  std::string api_url;
  github_api::Credentials credentials;
  std::string outbox_path;
  github_api::RetryPolicy policy;
};

Result<std::unique_ptr<GitHubPoster>> GitHubPoster::create(const config::ApplianceConfig& config) {
  const std::string mode = config.reporter.auth_mode();
  if (mode == "off") return std::unique_ptr<GitHubPoster>();
  auto credentials = github_api::load_credentials_from_env(mode, config.reporter.github_app_id);
  if (!credentials) return credentials.error();
  // reporter.outbox_database may name a directory of its own.
  const std::string path = config.outbox_database();
  if (auto slash = path.rfind('/'); slash != std::string::npos && slash > 0)
    if (auto st = make_dirs(path.substr(0, slash), 0755); !st) return st.error().with_context("the GitHub outbox");
  auto outbox = github_api::Outbox::open(path);
  if (!outbox) return outbox.error().with_context("the GitHub outbox");
  auto settings = std::make_unique<Settings>();
  settings->api_url = config.reporter.github_api_url;
  settings->credentials = std::move(*credentials);
  settings->outbox_path = path;
  settings->policy.retry_seconds = config.reporter.github_retry_seconds;
  settings->policy.retry_max_seconds = config.reporter.github_retry_max_seconds;
  settings->policy.give_up_seconds = static_cast<int64_t>(config.reporter.github_give_up_seconds);
  return std::unique_ptr<GitHubPoster>(new GitHubPoster(std::move(settings), std::move(*outbox)));
}

GitHubPoster::GitHubPoster(std::unique_ptr<Settings> settings, github_api::Outbox outbox)
    : settings_(std::move(settings)), outbox_(std::move(outbox)) {
  thread_ = std::thread([this] { worker(); });
}

GitHubPoster::~GitHubPoster() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  // A send of several calls stops after the one in flight; what it did
  // not finish stays pending in outbox.db.
  stop_flag_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status GitHubPoster::want(const github_api::Want& want) {
  Status stored;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stored = outbox_.put(want, clock_.now_unix());
    if (stored) held_.erase(want.target);  // a newer want is stored: the held one is stale
    else held_.insert_or_assign(want.target, want);
    poked_ = true;
  }
  wake_.notify_one();
  if (!stored)
    return stored.error().with_context("held in memory and stored as soon as outbox.db can take it (" +
                                       want.target + ")");
  return {};
}

void GitHubPoster::store_held() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = held_.begin(); it != held_.end();) {
    if (auto st = outbox_.put(it->second, clock_.now_unix()); !st) return;  // still full: later
    log_info("GitHub: " + it->first + " stored in outbox.db after all", {{"TARGET", it->first}});
    it = held_.erase(it);
  }
}

std::optional<github_api::PostedObject> GitHubPoster::posted(const std::string& target) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto p = outbox_.posted(target);
  return p ? *p : std::nullopt;
}

std::optional<github_api::Want> GitHubPoster::wanted(const std::string& target) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto h = held_.find(target); h != held_.end()) return h->second;
  auto w = outbox_.wanted(target);
  return w ? *w : std::nullopt;
}

Result<github_api::OutboxCounts> GitHubPoster::counts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return outbox_.counts();
}

bool GitHubPoster::stopping() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopping_;
}

void GitHubPoster::sleep_until(int64_t until) {
  int64_t seconds = std::clamp<int64_t>(until - clock_.now_unix(), 0, kIdleSeconds);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!held_.empty()) seconds = std::min<int64_t>(seconds, kHeldRetrySeconds);
  wake_.wait_for(lock, std::chrono::seconds(seconds), [this] { return poked_ || stopping_; });
  poked_ = false;
}

void GitHubPoster::worker() {
  // Built here, used only here: SQLite connections and curl are not shared
  // across threads.
  std::unique_ptr<github_api::Outbox> outbox;
  std::unique_ptr<github_api::Client> client;
  std::unique_ptr<github_api::Sender> sender;
  while (!stopping()) {
    int64_t next = 0;
    try {
      if (!sender) {
        auto opened = github_api::Outbox::open(settings_->outbox_path);
        if (!opened) {
          log_error("GitHub poster: cannot open the outbox: " + opened.error().message);
          sleep_until(clock_.now_unix() + kTroubleSeconds);
          continue;
        }
        outbox = std::make_unique<github_api::Outbox>(std::move(*opened));
        client = std::make_unique<github_api::Client>(settings_->api_url, settings_->credentials, clock_);
        client->set_abort_flag(&stop_flag_);
        sender = std::make_unique<github_api::Sender>(*client, *outbox, clock_, settings_->policy);
        sender->set_stop_flag(&stop_flag_);
      }
      store_held();
      next = step(*outbox, *sender);
    } catch (const std::exception& e) {
      log_error(std::string("GitHub poster: ") + e.what());
      next = clock_.now_unix() + kTroubleSeconds;
    } catch (...) {
      log_error("GitHub poster: unknown exception");
      next = clock_.now_unix() + kTroubleSeconds;
    }
    if (next != 0) sleep_until(next);
  }
}

int64_t GitHubPoster::step(github_api::Outbox& outbox, github_api::Sender& sender) {
  const int64_t now = clock_.now_unix();
  if (sender.paused_until() > now) return sender.paused_until();
  auto item = outbox.next_due(now);
  if (!item) {
    log_error("GitHub poster: reading the outbox: " + item.error().message);
    return now + kTroubleSeconds;
  }
  if (!item->has_value()) {
    auto wake = outbox.next_wakeup();
    if (!wake) {
      log_error("GitHub poster: reading the outbox: " + wake.error().message);
      return now + kTroubleSeconds;
    }
    return wake->has_value() ? std::max(**wake, now + 1) : now + kIdleSeconds;
  }
  SendOutcome outcome = sender.send(**item);
  if (outcome.interrupted) return 0;  // stopping: the item stays as it was
  if (auto st = github_api::record(outbox, **item, outcome); !st) {
    // Not recorded: it stays due, so wait rather than send it again at once.
    log_error("GitHub poster: cannot record the outcome for " + (*item)->want.target + ": " + st.error().message,
              {{"TARGET", (*item)->want.target}, {"REPOSITORY", repository_of((*item)->want)}});
    return now + kTroubleSeconds;
  }
  log_outcome(**item, outcome);
  return 0;  // more may be due
}

void GitHubPoster::log_outcome(const OutboxItem& item, const SendOutcome& outcome) {
  const std::string& target = item.want.target;
  const std::string repository = repository_of(item.want);
  const std::string noun = noun_of(item.want);
  switch (outcome.kind) {
    case SendOutcome::Kind::done:
      if (outcome.action.empty()) {
        log_debug("GitHub: nothing to post for " + target, {{"TARGET", target}, {"REPOSITORY", repository}});
      } else {
        std::string url = outcome.object.html_url.empty() ? "" : " " + outcome.object.html_url;
        log_info("GitHub: " + outcome.action + " " + noun + " " + std::to_string(outcome.object.id) + url,
                 {{"TARGET", target}, {"REPOSITORY", repository}});
      }
      break;
    case SendOutcome::Kind::retry:
      log_warning("GitHub: " + noun + " not posted yet, retrying at " + format_utc(outcome.retry_at) + ": " +
                      outcome.error,
                  {{"TARGET", target}, {"REPOSITORY", repository}, {"ATTEMPTS", std::to_string(item.attempts + 1)}});
      break;
    case SendOutcome::Kind::drop:
      log_error("GitHub: " + noun + " dropped: " + outcome.error, {{"TARGET", target}, {"REPOSITORY", repository}});
      break;
  }
  if (outcome.pause_until > pause_logged_) {
    pause_logged_ = outcome.pause_until;
    log_warning("GitHub: rate limit reached, all posting paused until " + format_utc(outcome.pause_until),
                {{"REPOSITORY", repository}});
  }
}

}  // namespace bb::reporterd
