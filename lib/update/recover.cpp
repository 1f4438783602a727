// The second half of an update, and the end of one that was interrupted:
// an updater killed anywhere (SIGKILL, a power cut, a full disk) left its
// intent in state.json, and the next run finishes or undoes it before it
// tries anything new.
#include <algorithm>

#include "update/updater.h"

namespace bb::update {

namespace {

Attempt ended(Attempt a, Outcome o, std::string why) {
  a.outcome = o;
  a.reason = std::move(why);
  return a;
}

}  // namespace

Status Updater::journal(std::optional<Intent> intent) {
  state_.intent = std::move(intent);
  return save_ ? save_(state_) : Status{};
}

Attempt Updater::recover(const Intent& in) {
  Attempt a;
  a.started = host_.now();
  a.from = in.from;
  a.to = in.to;
  say("finishing an update that was interrupted: " + in.from + " -> " + in.to + " (" + to_string(in.phase) + ")");
  (void)host_.pause_runner("benchbox-update: finishing " + in.from + " -> " + in.to);
  if (in.phase == Intent::Phase::installed) return finish_install(std::move(a), in);
  // dpkg may have been cut off while unpacking or configuring: until it
  // finishes, every later apt or dpkg run fails on the half-done state.
  if (auto st = host_.configure_pending(); !st) say("dpkg --configure -a failed: " + st.error().message);
  if (in.phase == Intent::Phase::rolling_back)
    return roll_back(std::move(a), in, "a rollback to " + in.from + " was interrupted", false);

  auto now = host_.installed_version();
  if (now && *now == in.to) {
    Intent installed = in;
    installed.phase = Intent::Phase::installed;
    if (auto st = journal(installed); !st) say("cannot record that " + in.to + " is installed: " + st.error().message);
    return finish_install(std::move(a), std::move(installed));
  }
  if (now && *now == in.from) {
    (void)journal(std::nullopt);
    (void)host_.resume_runner();
    return ended(std::move(a), Outcome::failed,
                 "interrupted before " + in.to + " was installed; " + in.from +
                     " is still installed, unchanged; the next attempt tries again");
  }
  // Neither version whole: put the old one back. The new version did
  // nothing wrong, so it is not marked bad.
  const std::string state = now ? *now + " installed" : now.error().message;
  return roll_back(std::move(a), in, "interrupted while installing " + in.to + " (" + state + ")", false);
}

Attempt Updater::finish_install(Attempt a, Intent in) {
  auto healthy = host_.wait_healthy(in.to, in.services, options_.health_timeout);
  if (!healthy) {
    const std::string why = in.to + " did not come up (" + healthy.error().message + ")";
    say(why + "; rolling back to " + in.from);
    return roll_back(std::move(a), std::move(in), why, true);
  }
  if (auto next = host_.keep_package(in.to); !next) say("cannot keep the package of " + in.to + ": " + next.error().message);
  if (auto st = journal(std::nullopt); !st) say("cannot clear the update's intent: " + st.error().message);
  (void)host_.resume_runner();  // the new runnerd starts unpaused; an old one may still run
  return ended(std::move(a), Outcome::upgraded, in.from + " -> " + in.to);
}

Attempt Updater::roll_back(Attempt a, Intent in, const std::string& why, bool mark_bad) {
  if (mark_bad && std::find(state_.bad_versions.begin(), state_.bad_versions.end(), in.to) == state_.bad_versions.end())
    state_.bad_versions.push_back(in.to);
  in.phase = Intent::Phase::rolling_back;
  if (auto st = journal(in); !st) say("cannot record the rollback: " + st.error().message);
  auto fail = [&](const std::string& more) {
    (void)host_.resume_runner();
    return ended(std::move(a), Outcome::failed, why + more);
  };
  // The intent stays while the rollback has not worked: the next run tries
  // it again rather than leave a box on a broken version.
  if (auto st = host_.install_file(in.kept); !st)
    return fail(" and reinstalling " + in.from + " failed: " + st.error().message);
  auto back = host_.wait_healthy(in.from, in.services, options_.health_timeout);
  if (!back) return fail("; " + in.from + " is reinstalled but not healthy either: " + back.error().message);
  if (auto st = journal(std::nullopt); !st) say("cannot clear the update's intent: " + st.error().message);
  (void)host_.resume_runner();
  return ended(std::move(a), Outcome::rolled_back, why + "; back on " + in.from);
}

}  // namespace bb::update
