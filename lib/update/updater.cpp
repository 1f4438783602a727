#include "update/updater.h"

#include <algorithm>
#include <ctime>

#include "util/json_read.h"

namespace bb::update {

namespace {

constexpr Outcome kOutcomes[] = {Outcome::up_to_date, Outcome::upgraded, Outcome::refused,
                                 Outcome::rolled_back, Outcome::skipped, Outcome::failed};

std::string date_text(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  char buf[32];
  if (!::gmtime_r(&tt, &tm) || !std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm)) return std::to_string(t);
  return buf;
}

}  // namespace

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::up_to_date: return "up-to-date";
    case Outcome::upgraded: return "upgraded";
    case Outcome::refused: return "refused";
    case Outcome::rolled_back: return "rolled-back";
    case Outcome::skipped: return "skipped";
    case Outcome::failed: return "failed";
  }
  return "failed";
}

std::optional<Outcome> outcome_from_string(const std::string& s) {
  for (Outcome o : kOutcomes)
    if (s == to_string(o)) return o;
  return std::nullopt;
}

nlohmann::json to_json(const Attempt& a) {
  return {{"from", a.from},       {"to", a.to},           {"outcome", to_string(a.outcome)},
          {"reason", a.reason},   {"started", a.started}, {"finished", a.finished},
          {"cut_job", a.cut_job}};
}

const char* to_string(Intent::Phase p) {
  switch (p) {
    case Intent::Phase::installing: return "installing";
    case Intent::Phase::installed: return "installed";
    case Intent::Phase::rolling_back: return "rolling-back";
  }
  return "installing";
}

nlohmann::json to_json(const State& s) {
  nlohmann::json j = {{"bad_versions", s.bad_versions}, {"newest_index", s.newest_index}};
  j["last"] = s.last ? to_json(*s.last) : nlohmann::json(nullptr);
  if (s.intent)
    j["intent"] = {{"phase", to_string(s.intent->phase)}, {"from", s.intent->from},       {"to", s.intent->to},
                   {"kept", s.intent->kept},              {"services", s.intent->services},
                   {"started", s.intent->started}};
  else
    j["intent"] = nullptr;
  return j;
}

Result<State> state_from_json(const nlohmann::json& j) {
  auto bad = [](const std::string& what) {
    return Result<State>(make_error(Errc::parse, "update state: " + what));
  };
  if (!j.is_object()) return bad("not a JSON object");
  State s;
  if (!read_member(j, "bad_versions", s.bad_versions)) return bad("'bad_versions' is not a list of strings");
  if (!read_member(j, "newest_index", s.newest_index)) return bad("'newest_index' is not an integer");
  if (j.contains("last") && !j.at("last").is_null()) {
    const auto& l = j.at("last");
    Attempt a;
    std::string outcome;
    if (!l.is_object() || !read_member(l, "from", a.from) || !read_member(l, "to", a.to) ||
        !read_member(l, "outcome", outcome) || !read_member(l, "reason", a.reason) ||
        !read_member(l, "started", a.started) || !read_member(l, "finished", a.finished) ||
        !read_member(l, "cut_job", a.cut_job))
      return bad("'last' is not an update attempt");
    auto o = outcome_from_string(outcome);
    if (!o) return bad("unknown outcome '" + outcome + "'");
    a.outcome = *o;
    s.last = std::move(a);
  }
  if (j.contains("intent") && !j.at("intent").is_null()) {
    const auto& i = j.at("intent");
    Intent in;
    std::string phase;
    if (!i.is_object() || !read_member(i, "phase", phase) || !read_member(i, "from", in.from) ||
        !read_member(i, "to", in.to) || !read_member(i, "kept", in.kept) ||
        !read_member(i, "services", in.services) || !read_member(i, "started", in.started))
      return bad("'intent' is not an update in progress");
    bool known = false;
    for (auto p : {Intent::Phase::installing, Intent::Phase::installed, Intent::Phase::rolling_back})
      if (phase == to_string(p)) {
        in.phase = p;
        known = true;
      }
    if (!known) return bad("unknown phase '" + phase + "'");
    s.intent = std::move(in);
  }
  return s;
}

Attempt Updater::run() {
  Attempt a;
  try {
    a = state_.intent ? recover(*state_.intent) : attempt();
  } catch (const std::exception& e) {
    a.outcome = Outcome::failed;
    a.reason = std::string("internal error: ") + e.what();
  }
  a.finished = host_.now();
  state_.last = a;
  return a;
}

Attempt Updater::attempt() {
  Attempt a;
  a.started = host_.now();
  auto done = [&a](Outcome o, std::string why) {
    a.outcome = o;
    a.reason = std::move(why);
    return a;
  };
  auto installed = host_.installed_version();
  if (!installed && installed.error().code == Errc::conflict) {
    // Half-installed or half-configured: a dpkg run cut short, by us
    // before the journal or by someone else. Finish it, then look again.
    say(installed.error().message + ": running dpkg --configure -a");
    if (auto st = host_.configure_pending(); !st) say("dpkg --configure -a failed: " + st.error().message);
    installed = host_.installed_version();
  }
  if (!installed) return done(Outcome::failed, "cannot read the installed version: " + installed.error().message);
  a.from = *installed;

  if (auto st = host_.refresh(); !st) {
    bool trust = st.error().code == Errc::invalid_argument;
    return done(trust ? Outcome::refused : Outcome::failed,
                (trust ? "the archive is not trusted: " : "cannot refresh the archive: ") + st.error().message);
  }
  auto date = host_.index_date();
  if (!date) return done(Outcome::failed, "cannot read the archive's index date: " + date.error().message);
  if (*date < state_.newest_index)
    return done(Outcome::refused, "the archive's index (Date " + date_text(*date) +
                                      ") is older than one already accepted (Date " +
                                      date_text(state_.newest_index) + "): a replayed or stale Release");
  state_.newest_index = *date;

  auto offered = host_.offered_versions();
  if (!offered) return done(Outcome::failed, "cannot list the archive's versions: " + offered.error().message);
  if (offered->empty()) return done(Outcome::failed, "the archive offers no benchbox package");
  std::string newest = offered->front();
  for (const auto& v : *offered) {
    auto c = host_.compare_versions(v, newest);
    if (!c) return done(Outcome::failed, c.error().message);
    if (*c > 0) newest = v;
  }
  auto c = host_.compare_versions(newest, a.from);
  if (!c) return done(Outcome::failed, c.error().message);
  if (*c < 0)
    return done(Outcome::refused, "the archive offers " + newest + ", older than the installed " + a.from +
                                      ": not downgrading");
  if (*c == 0) return done(Outcome::up_to_date, a.from + " is the newest the archive offers");
  a.to = newest;
  if (std::find(state_.bad_versions.begin(), state_.bad_versions.end(), newest) != state_.bad_versions.end())
    return done(Outcome::skipped, newest + " did not come up before and was rolled back; publish a newer version");
  return upgrade(std::move(a));
}

bool runner_busy(const std::string& state) { return state != "idle" && state != "refusing"; }

bool Updater::wait_for_runner(Attempt& a) {
  const int64_t deadline = host_.now() + options_.max_wait.count();
  bool said = false;
  for (;;) {
    auto r = host_.runner();
    if (!r || !r->reachable || !r->busy) return true;
    if (host_.now() >= deadline) {
      a.cut_job = true;
      say("runnerd is still busy with job " + std::to_string(r->job) + " after " +
          std::to_string(options_.max_wait.count()) + " s: upgrading anyway; the job is re-queued by its lease");
      return false;
    }
    if (!said)
      say(r->job != 0           ? "waiting for runnerd to finish job " + std::to_string(r->job)
          : r->state == "canary" ? std::string("waiting for runnerd's canary run (the box's level before the update)")
                                 : "waiting for runnerd (" + r->state + ")");
    said = true;
    host_.sleep(options_.poll);
  }
}

Attempt Updater::upgrade(Attempt a) {
  auto done = [&a](Outcome o, std::string why) {
    a.outcome = o;
    a.reason = std::move(why);
    return a;
  };
  auto kept = host_.keep_package(a.from);
  if (!kept)
    return done(Outcome::failed, "cannot keep a package of " + a.from + " to roll back to: " + kept.error().message +
                                     "; not updating");
  auto services = host_.running_services();
  if (!services) return done(Outcome::failed, services.error().message);

  say("updating " + a.from + " -> " + a.to);
  (void)host_.pause_runner("benchbox-update: " + a.from + " -> " + a.to);
  wait_for_runner(a);

  // From here the box changes: the intent first, or nothing.
  Intent in{Intent::Phase::installing, a.from, a.to, *kept, *services, a.started};
  if (auto st = journal(in); !st) {
    (void)host_.resume_runner();
    return done(Outcome::failed, "cannot record the update's intent (" + st.error().message + "); not updating");
  }
  say("installing " + a.to);
  if (auto st = host_.install(a.to); !st) {
    bool trust = st.error().code == Errc::invalid_argument;
    std::string why = (trust ? "the package is not trusted: " : "installing " + a.to + " failed: ") +
                      st.error().message;
    // dpkg may have got half way: put the old version back whole.
    auto now = host_.installed_version();
    if (!now || *now != a.from) {
      (void)host_.install_file(*kept);
      why += "; reinstalled " + a.from;
    }
    (void)journal(std::nullopt);
    (void)host_.resume_runner();
    return done(trust ? Outcome::refused : Outcome::failed, why);
  }
  in.phase = Intent::Phase::installed;
  if (auto st = journal(in); !st) say("cannot record that " + a.to + " is installed: " + st.error().message);
  return finish_install(std::move(a), std::move(in));
}

}  // namespace bb::update
