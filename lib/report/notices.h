// The notifications a regression raises (docs/notifications.md, "Events"),
// built from what the reporter already knows. Pure: the reporter decides
// when (a regression becoming fileable, a culprit named, a close) and puts
// them in the notifications outbox, which tells each event once: an id
// names the event for good, so raising it again (a job reported twice, a
// restart) is harmless.
#pragma once

#include <optional>
#include <string>

#include "canary/health.h"
#include "notify/notification.h"
#include "report/bisection.h"
#include "report/history.h"
#include "update/updater.h"

namespace bb::report {

// `site_url` ("" = none) gives the notification's link to the repository's
// dashboard page; `issue_url` (GitHub's html_url of the regression's
// issue, "" = not known yet) is preferred where it is known.
notify::Notification regression_confirmed_notice(const Regression& r, const std::string& site_url,
                                                 const std::string& issue_url, int64_t now);
// The bisection `b` of `r` named its culprit (b.culprit not empty).
notify::Notification culprit_named_notice(const Regression& r, const Bisection& b, const std::string& site_url,
                                          const std::string& issue_url, int64_t now);
notify::Notification regression_closed_notice(const Regression& r, const std::string& site_url,
                                              const std::string& issue_url, int64_t now);

// The box's own update (benchbox-update's last attempt, its state.json):
// update_applied for an upgrade, update_rolled_back for a rollback, told
// to every destination that wants it. nullopt for any other outcome, and
// for an attempt that finished more than a day before `now`: old news to a
// destination configured since.
std::optional<notify::Notification> update_notice(const update::Attempt& a, const std::string& site_url,
                                                  int64_t now);

// The box's health changed (docs/canary.md): health_held when the canary
// shifted (`now` is shifted), health_released when it is steady again
// after a shift (`was` shifted). nullopt for any other change (learning,
// steady to steady). Told to every destination that wants it.
std::optional<notify::Notification> health_notice(const canary::Health& was, const canary::Health& now,
                                                  const std::string& box, const std::string& site_url);

}  // namespace bb::report
