#include "manager.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>

#include "daemon/log.h"
#include "github/payload.h"
#include "github/signature.h"
#include "http/form.h"
#include "util/version.h"

namespace bb::webhookd {

namespace {

using Action = github::Decision::Action;
using Kind = Outcome::Kind;
using nlohmann::json;

// How often the spool is retried while it holds deliveries (also on the
// queue's NameOwnerChanged, which is usually sooner).
constexpr uint64_t kReplayIntervalUsec = 5'000'000;
// How late the STATUS= line may follow a delivery. systemd turns every
// STATUS= into a PropertiesChanged signal of the unit on the system bus:
// one per delivery was thousands a second in a burst.
constexpr uint64_t kStatusDelayUsec = 250'000;
// Before every other exit handler, sd-bus's (which closes the bus) included.
constexpr int64_t kDrainPriority = -1'000'000;

int64_t now_usec() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Outcome outcome(Kind kind, std::string message) {
  Outcome o;
  o.kind = kind;
  o.message = std::move(message);
  return o;
}

// A queue error as an outcome: the queue being slow, absent or unable to
// write is worth retrying from the spool; a refused argument is not. A
// refused caller is the box's misconfiguration (webhookd not among Enqueue's
// callers), not the delivery's fault: spooled, it survives until the
// operator fixes the identities.
Outcome from_error(const Error& e) {
  switch (e.code) {
    case Errc::timeout:
    case Errc::unavailable:
    case Errc::io:
    case Errc::permission_denied:
      return outcome(Kind::unavailable, e.message);
    case Errc::invalid_argument:
    case Errc::parse:
      return outcome(Kind::rejected, e.message);
    default:
      return outcome(Kind::failed, e.message);
  }
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::pong: return "pong";
    case Kind::queued: return "queued";
    case Kind::recorded: return "recorded";
    case Kind::ignored: return "ignored";
    case Kind::unavailable: return "unavailable";
    case Kind::rejected: return "rejected";
    case Kind::failed: return "failed";
  }
  return "failed";
}

// The door's limits from the config's webhook section.
HttpLimits http_limits(const config::WebhookConfig& w) {
  HttpLimits l;
  l.max_connections = w.max_connections;
  l.max_header_bytes = w.max_header_bytes;
  l.max_body_bytes = w.max_body_bytes;
  l.max_body_bytes_in_flight = w.max_body_bytes_in_flight;
  l.header_timeout_seconds = w.header_timeout_seconds;
  l.idle_timeout_seconds = w.idle_timeout_seconds;
  l.request_timeout_seconds = w.request_timeout_seconds;
  return l;
}

// GitHub's delivery ids are GUIDs. Whatever else arrives must at least be
// printable ASCII: it travels on the bus (valid UTF-8 only), into the
// journal and into a spool file name.
bool valid_delivery_id(const std::string& id) {
  return !id.empty() && id.size() <= 128 &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; });
}

// The verified signature is HMAC(secret, body): the body's durable name.
std::string replay_key_of(const std::string& verified_signature) {
  std::string key = verified_signature.substr(std::string_view("sha256=").size());
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

}  // namespace

Manager::Manager(sd_event* event, sd_bus* bus, Conf conf, std::string secret)
    : event_(event),
      bus_(bus),
      conf_(std::move(conf)),
      secret_(std::move(secret)),
      spool_(conf_.appliance.spool_dir()),
      queue_(bus, conf_.appliance.webhook.queue_timeout_ms) {}

Manager::~Manager() { *alive_ = false; }

Status Manager::start(int listen_fd) {
  auto http = HttpServer::start(event_, listen_fd, http_limits(conf_.appliance.webhook),
                                [this](HttpRequest&& r, Responder respond) { on_request(std::move(r), std::move(respond)); });
  if (!http) return http.error();
  http_ = std::move(*http);

  sd_event_source* src = nullptr;
  int r = sd_event_add_time(event_, &src, CLOCK_MONOTONIC, UINT64_MAX, 0, on_replay_timer, this);
  if (r < 0) return errno_error("add the replay timer", -r);
  replay_timer_.reset(src);
  if (auto st = queue_.watch_queue([this] {
        daemon::log_info("the queue appeared on the bus; replaying the spool");
        schedule_replay(0);
      });
      !st)
    return st;
  // Drain when the loop is asked to exit (SIGTERM), before sd-bus's own exit
  // handler closes the connection: requests waiting for the queue get their
  // answer (or their 503 and a spool file) instead of a reset.
  if ((r = sd_event_add_exit(event_, &src, on_exit, this)) < 0) return errno_error("add the exit handler", -r);
  exit_source_.reset(src);
  sd_event_source_set_priority(exit_source_.get(), kDrainPriority);
  schedule_replay(0);  // what an earlier run could not deliver
  return {};
}

int Manager::on_exit(sd_event_source*, void* userdata) {
  try {
    static_cast<Manager*>(userdata)->drain();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("draining failed: ") + e.what());
  }
  return 0;
}

void Manager::on_request(HttpRequest&& request, Responder respond) {
  auto req = std::make_shared<HttpRequest>(std::move(request));
  auto refuse = [&](unsigned status, const std::string& message) {
    ++refused_;
    daemon::log_warning("refused delivery: " + message,
                        {{"DELIVERY_ID", req->delivery_id}, {"EVENT", req->event}, {"REMOTE_ADDR", req->peer}});
    respond(http::error(status, message));
  };
  // The signature first, over the raw bytes: nothing about an
  // unauthenticated request is looked at.
  if (auto st = github::verify_signature(secret_, req->body, req->signature); !st)
    return refuse(401, st.error().message);
  if (req->event.empty()) return refuse(400, "missing X-GitHub-Event header");
  if (req->delivery_id.empty()) return refuse(400, "missing X-GitHub-Delivery header");
  if (!valid_delivery_id(req->delivery_id))
    return refuse(400, "X-GitHub-Delivery is not 1 to 128 printable ASCII characters");
  if (req->content_type == "application/x-www-form-urlencoded") {
    auto payload = http::form_field(req->body, "payload");
    if (!payload) return refuse(400, "form-encoded delivery: " + payload.error().message);
    req->body = std::move(*payload);
  }
  const std::string replay_key = replay_key_of(req->signature);

  int64_t received = now_usec();
  std::weak_ptr<bool> alive = alive_;
  process(req->event, req->delivery_id, req->body, replay_key,
          [this, alive, req, respond, received, replay_key](Outcome o) {
    if (alive.expired()) return;
    if (o.kind == Kind::unavailable) {
      auto spooled = spool_.put(req->event, req->delivery_id, req->body, received, replay_key);
      if (spooled) {
        ++spooled_;
        daemon::log_warning("queue unavailable (" + o.message + "); delivery spooled for replay",
                            {{"DELIVERY_ID", req->delivery_id}, {"EVENT", req->event}, {"SPOOL_FILE", *spooled}});
        o.message = "queue unavailable; delivery spooled for replay: " + o.message;
        schedule_replay(kReplayIntervalUsec);
      } else {
        daemon::log_error("queue unavailable and the delivery could not be spooled: " +
                              spooled.error().message,
                          {{"DELIVERY_ID", req->delivery_id}, {"EVENT", req->event}});
        o.message = "queue unavailable; delivery NOT spooled: " + o.message;
      }
    }
    respond(answer_for(o));
    status_changed();
  });
}

http::Response Manager::answer_for(const Outcome& o) {
  switch (o.kind) {
    case Kind::pong: return http::json(200, {{"pong", true}});
    case Kind::queued: return http::json(o.created ? 202u : 200u, {{"job_id", o.job_id}});
    case Kind::recorded: return http::json(202, {{"recorded", o.message}});
    case Kind::ignored: return http::json(202, {{"ignored", o.message}});
    case Kind::unavailable: return http::error(503, o.message);
    case Kind::rejected: return http::error(400, o.message);
    case Kind::failed: return http::error(500, o.message);
  }
  return http::error(500, "unknown outcome");
}

void Manager::process(const std::string& event, const std::string& delivery_id, const std::string& body,
                      const std::string& replay_key, std::function<void(Outcome)> done) {
  auto parsed = github::parse_event(event, body);
  std::string repository = parsed ? github::repository_of(*parsed) : "";
  // Every delivery ends in exactly one log line with its fields.
  auto finish = [this, event, delivery_id, repository, done = std::move(done)](Outcome o) {
    std::string line = std::string("delivery ") + kind_name(o.kind) + ": " + o.message;
    switch (o.kind) {
      case Kind::queued:
        ++accepted_;
        daemon::log_info(line, {{"DELIVERY_ID", delivery_id}, {"REPOSITORY", repository}, {"EVENT", event},
                                {"JOB_ID", std::to_string(o.job_id)}});
        break;
      case Kind::recorded:
      case Kind::pong:
        ++accepted_;
        daemon::log_info(line, {{"DELIVERY_ID", delivery_id}, {"REPOSITORY", repository}, {"EVENT", event}});
        break;
      case Kind::ignored:
        ++ignored_;
        daemon::log_info(line, {{"DELIVERY_ID", delivery_id}, {"REPOSITORY", repository}, {"EVENT", event}});
        break;
      case Kind::rejected:
        ++refused_;
        daemon::log_warning(line, {{"DELIVERY_ID", delivery_id}, {"REPOSITORY", repository}, {"EVENT", event}});
        break;
      case Kind::unavailable:
      case Kind::failed:
        daemon::log_error(line, {{"DELIVERY_ID", delivery_id}, {"REPOSITORY", repository}, {"EVENT", event}});
        break;
    }
    done(std::move(o));
  };
  if (!parsed) return finish(outcome(Kind::rejected, parsed.error().message));
  auto decision = github::decide(conf_.appliance, *parsed, delivery_id);
  if (!decision) return finish(outcome(Kind::rejected, decision.error().message));
  execute(std::move(*decision), replay_key, std::move(finish));
}

void Manager::execute(github::Decision d, const std::string& replay_key, std::function<void(Outcome)> done) {
  std::weak_ptr<bool> alive = alive_;
  d.job.replay_key = replay_key;
  if (d.record) d.record->replay_key = replay_key;
  auto recorded = [](const std::string& summary, bool changed) {
    return outcome(Kind::recorded, changed ? summary : summary + " (this body was accepted before; nothing changed)");
  };
  switch (d.action) {
    case Action::pong:
      return done(outcome(Kind::pong, "pong"));
    case Action::ignore:
      return done(outcome(Kind::ignored, d.reason));
    case Action::record:
      return queue_.record_pull_request(*d.record, [done, recorded, summary = d.reason](Result<bool> r) {
        done(r ? recorded(summary, *r) : from_error(r.error()));
      });
    case Action::enqueue:
      if (!d.record) return enqueue(d.job, d.reason, std::move(done));
      // Labeled: keep the record fresh, then run it.
      return queue_.record_pull_request(*d.record, [this, alive, d, done](Result<bool> r) {
        if (alive.expired()) return;
        if (!r) return done(from_error(r.error()));
        enqueue(d.job, d.reason, done);
      });
    case Action::bless:
      return queue_.get_pull_request(
          d.bless.repository, d.bless.number,
          [this, alive, bless = d.bless, replay_key, done](Result<std::optional<model::PullRequest>> pr) {
            if (alive.expired()) return;
            if (!pr) return done(from_error(pr.error()));
            execute(github::bless_job(conf_.appliance, bless, *pr), replay_key, done);
          });
  }
}

void Manager::enqueue(const model::JobSpec& job, const std::string& summary, std::function<void(Outcome)> done) {
  queue_.enqueue(job, [done, summary](Result<Enqueued> r) {
    if (!r) return done(from_error(r.error()));
    Outcome o = outcome(Kind::queued, summary + (r->created ? "" : " (already accepted)"));
    o.job_id = r->id;
    o.created = r->created;
    done(std::move(o));
  });
}

void Manager::schedule_replay(uint64_t delay_usec) {
  if (!replay_timer_) return;
  uint64_t now = 0;
  sd_event_now(event_, CLOCK_MONOTONIC, &now);
  uint64_t when = now + delay_usec;
  // Never postpone a replay that is already due sooner.
  int enabled = SD_EVENT_OFF;
  uint64_t current = 0;
  sd_event_source_get_enabled(replay_timer_.get(), &enabled);
  sd_event_source_get_time(replay_timer_.get(), &current);
  if (enabled != SD_EVENT_OFF && current <= when) return;
  sd_event_source_set_time(replay_timer_.get(), when);
  sd_event_source_set_enabled(replay_timer_.get(), SD_EVENT_ONESHOT);
}

void Manager::status_changed() {
  if (status_timer_) return;  // one is due already
  sd_event_source* raw = nullptr;
  if (sd_event_add_time_relative(event_, &raw, CLOCK_MONOTONIC, kStatusDelayUsec, 50'000, on_status_timer, this) < 0) {
    sd_notifyf(0, "STATUS=%s", status_line().c_str());  // no timer: now, as before
    return;
  }
  status_timer_.reset(raw);
}

int Manager::on_status_timer(sd_event_source*, uint64_t, void* userdata) {
  auto* self = static_cast<Manager*>(userdata);
  self->status_timer_.reset();
  try {
    sd_notifyf(0, "STATUS=%s", self->status_line().c_str());
  } catch (const std::exception& e) {  // no exception crosses sd-event
    daemon::log_error(std::string("status line failed: ") + e.what());
  }
  return 0;
}

int Manager::on_replay_timer(sd_event_source*, uint64_t, void* userdata) {
  try {
    static_cast<Manager*>(userdata)->replay();
  } catch (const std::exception& e) {
    daemon::log_error(std::string("spool replay failed: ") + e.what());
  }
  return 0;
}

void Manager::replay() {
  if (replaying_) return;
  auto files = spool_.list();
  if (!files) {
    daemon::log_error("cannot read the spool: " + files.error().message);
    return schedule_replay(kReplayIntervalUsec);
  }
  if (files->empty()) return;
  daemon::log_info("replaying " + std::to_string(files->size()) + " spooled deliveries",
                   {{"SPOOL_DIR", spool_.dir()}});
  replaying_ = true;
  replay_next(std::make_shared<std::vector<std::string>>(std::move(*files)), 0);
}

void Manager::replay_next(std::shared_ptr<std::vector<std::string>> files, size_t index) {
  if (index == files->size()) {
    replaying_ = false;
    auto left = spool_.list();  // deliveries spooled while this round ran
    if (left && !left->empty()) schedule_replay(kReplayIntervalUsec);
    status_changed();
    return;
  }
  const std::string path = (*files)[index];
  auto d = spool_.load(path);
  if (!d) {
    daemon::log_error("unreadable spool file set aside: " + d.error().message, {{"SPOOL_FILE", path}});
    (void)spool_.reject(path);
    return replay_next(files, index + 1);
  }
  std::weak_ptr<bool> alive = alive_;
  std::string key = d->replay_key;
  if (key.empty()) key = replay_key_of(github::sign(secret_, d->body));  // spooled before replay keys
  process(d->event, d->delivery_id, d->body, key, [this, alive, files, index, path, id = d->delivery_id](Outcome o) {
    if (alive.expired()) return;
    if (o.kind == Kind::unavailable) {
      replaying_ = false;
      schedule_replay(kReplayIntervalUsec);
      return;
    }
    if (o.kind == Kind::rejected || o.kind == Kind::failed) {
      daemon::log_error("spooled delivery refused by the queue, set aside: " + o.message,
                        {{"DELIVERY_ID", id}, {"SPOOL_FILE", path}});
      if (auto st = spool_.reject(path); !st) daemon::log_error(st.error().message, {{"SPOOL_FILE", path}});
    } else {
      ++replayed_;
      if (auto st = spool_.remove(path); !st) daemon::log_error(st.error().message, {{"SPOOL_FILE", path}});
    }
    replay_next(files, index + 1);
  });
}

// The config and the secret reload independently: a bad config keeps the
// old one but a rotated secret still takes effect, and the other way round.
Status Manager::reload() {
  std::string failed;
  auto appliance = config::load_appliance_config(conf_.source);
  if (!appliance) {
    failed = appliance.error().message;
  } else {
    conf_.appliance = std::move(*appliance);
    spool_ = Spool(conf_.appliance.spool_dir());
    queue_.set_timeout_ms(conf_.appliance.webhook.queue_timeout_ms);
    if (http_) http_->set_limits(http_limits(conf_.appliance.webhook));
    daemon::log_info("config reloaded from " + conf_.source.path);
  }
  auto secret = read_secret();
  if (!secret) {
    failed += (failed.empty() ? "" : "; ") + std::string("secret: ") + secret.error().message;
  } else {
    secret_ = std::move(*secret);
  }
  schedule_replay(0);
  if (!failed.empty()) return make_error(Errc::invalid_argument, failed);
  return {};
}

void Manager::drain() {
  if (!http_) return;
  http_->stop_accepting();
  auto now = std::chrono::steady_clock::now;
  // A connection accepted just before the signal may not have been read
  // yet (it is not an open request until its headers are): keep running MHD
  // a moment so it is answered rather than reset.
  auto grace = now() + std::chrono::milliseconds(200);
  auto deadline = now() + std::chrono::milliseconds(conf_.appliance.webhook.queue_timeout_ms) * 2 +
                  std::chrono::seconds(1);
  while ((http_->open_requests() > 0 || now() < grace) && now() < deadline) {
    while (sd_bus_process(bus_, nullptr) > 0) {
    }
    http_->run_once();
    sd_bus_wait(bus_, 10'000);
  }
  if (http_->open_requests() > 0) {
    // Not expected: every queue call times out before the deadline.
    daemon::log_warning(std::to_string(http_->open_requests()) + " requests still open at shutdown; answering 503");
    http_->answer_all_waiting(http::error(503, "benchbox-webhookd is shutting down"));
    auto flush = now() + std::chrono::milliseconds(200);
    while (http_->open_requests() > 0 && now() < flush) {
      http_->run_once();
      sd_bus_wait(bus_, 10'000);
    }
  }
  http_.reset();
}

std::string Manager::status_line() const {
  // The version first: `systemctl status` and `benchboxctl status` show
  // which build answers (webhookd owns no bus name to ask).
  return std::string("benchbox-webhookd ") + bb::version() + ": serving webhooks: " + std::to_string(accepted_) + " accepted, " + std::to_string(ignored_) +
         " ignored, " + std::to_string(refused_) + " refused, " + std::to_string(spooled_) + " spooled, " +
         std::to_string(replayed_) + " replayed";
}

}  // namespace bb::webhookd
