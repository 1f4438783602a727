#include "report/notices.h"

#include "report/regression.h"
#include "report/site_paths.h"
#include "util/text.h"

namespace bb::report {

namespace {

// The fields every regression event carries, and its one id per event.
notify::Notification base(const char* event, const Regression& r, const std::string& site_url,
                          const std::string& issue_url, int64_t now) {
  notify::Notification n;
  n.event = event;
  n.id = std::string(event) + ":" + r.repository + ":" + r.ref + ":" + std::to_string(r.id);
  n.repository = r.repository;
  n.time = now;
  n.url = !issue_url.empty() ? issue_url : site_url.empty() ? "" : site_url + site::repository_page(r.repository);
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& b : r.benchmarks)
    benchmarks.push_back({{"benchmark", b.key},
                          {"metric", b.metric},
                          {"ratio", b.ratio},
                          {"ci_low", b.ci_low},
                          {"ci_high", b.ci_high},
                          {"last_good", b.last_good},
                          {"first_bad", b.first_bad},
                          {"resolved_by", b.resolved_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.resolved_by)}});
  n.details = {{"regression_id", r.id},
               {"ref", r.ref},
               {"last_good", r.last_good()},
               {"first_bad", r.first_bad()},
               {"benchmarks", benchmarks},
               {"issue_url", issue_url.empty() ? nlohmann::json(nullptr) : nlohmann::json(issue_url)}};
  return n;
}

// One line per benchmark, at most a few: the rest is on the issue.
std::string effects(const Regression& r) {
  std::string out;
  size_t shown = 0;
  for (const auto& b : r.benchmarks) {
    if (shown++ == 5) {
      out += "… and " + std::to_string(r.benchmarks.size() - 5) + " more\n";
      break;
    }
    out += b.key + ": " + effect_phrase(b.ratio, b.ci_low, b.ci_high, b.metric, b.higher_is_better) + "\n";
  }
  return out;
}

}  // namespace

notify::Notification regression_confirmed_notice(const Regression& r, const std::string& site_url,
                                                 const std::string& issue_url, int64_t now) {
  notify::Notification n = base("regression_confirmed", r, site_url, issue_url, now);
  n.title = regression_issue_title(r);
  n.summary = "between " + short_sha(r.last_good()) + " and " + short_sha(r.first_bad()) + " on " +
              site::ref_name(r.ref) + "\n" + effects(r);
  n.details["confirmation"] = r.confirmation.empty() ? "not asked" : r.confirmation;
  return n;
}

notify::Notification culprit_named_notice(const Regression& r, const Bisection& b, const std::string& site_url,
                                          const std::string& issue_url, int64_t now) {
  notify::Notification n = base("culprit_named", r, site_url, issue_url, now);
  const nlohmann::json bisection = site_json(b);
  const nlohmann::json& culprit = bisection["culprit"];
  const std::string subject = culprit.is_object() ? culprit.value("subject", "") : "";
  n.title = "Culprit found on " + site::ref_name(r.ref) + ": " + short_sha(b.culprit) +
            (subject.empty() ? "" : " " + subject);
  n.summary = "the first bad commit of the regression " + short_sha(r.last_good()) + ".." +
              short_sha(r.first_bad()) + "\n";
  if (culprit.is_object() && !culprit.value("author", "").empty()) n.summary += "by " + culprit.value("author", "") + "\n";
  if (culprit.is_object() && !culprit.value("effect", "").empty()) n.summary += culprit.value("effect", "") + "\n";
  n.details["culprit"] = culprit;
  return n;
}

notify::Notification regression_closed_notice(const Regression& r, const std::string& site_url,
                                              const std::string& issue_url, int64_t now) {
  notify::Notification n = base("regression_closed", r, site_url, issue_url, now);
  n.title = "Regression gone on " + site::ref_name(r.ref) + " (" + short_sha(r.last_good()) + ".." +
            short_sha(r.first_bad()) + ")";
  n.summary = r.fixed_by.empty() ? r.latest_status + "\n"
                                 : "fixed by " + short_sha(r.fixed_by) + ": every benchmark is back at its last good level\n";
  n.details["fixed_by"] = r.fixed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.fixed_by);
  return n;
}

std::optional<notify::Notification> update_notice(const update::Attempt& a, const std::string& site_url,
                                                  int64_t now) {
  constexpr int64_t kNewsSeconds = 24 * 3600;
  const bool upgraded = a.outcome == update::Outcome::upgraded;
  if ((!upgraded && a.outcome != update::Outcome::rolled_back) || a.to.empty() || now - a.finished > kNewsSeconds)
    return std::nullopt;
  notify::Notification n;
  n.event = upgraded ? "update_applied" : "update_rolled_back";
  n.id = n.event + ":" + a.from + ":" + a.to + ":" + std::to_string(a.finished);
  n.time = a.finished;
  n.title = upgraded ? "benchbox updated from " + a.from + " to " + a.to
                     : "benchbox update to " + a.to + " rolled back, still on " + a.from;
  n.summary = a.reason + "\n";
  if (a.cut_job) n.summary += "a running job was cut and queued again\n";
  n.url = site_url;
  n.details = {{"from", a.from},       {"to", a.to},           {"outcome", update::to_string(a.outcome)},
               {"reason", a.reason},   {"started", a.started}, {"finished", a.finished},
               {"cut_job", a.cut_job}};
  return n;
}

std::optional<notify::Notification> health_notice(const canary::Health& was, const canary::Health& now,
                                                  const std::string& box, const std::string& site_url) {
  const bool held = now.level == canary::Level::shifted && was.level != canary::Level::shifted;
  const bool released = was.level == canary::Level::shifted && now.level == canary::Level::steady;
  if (!held && !released) return std::nullopt;
  notify::Notification n;
  n.event = held ? "health_held" : "health_released";
  n.id = n.event + ":" + box + ":" + std::to_string(now.since);
  n.time = now.since;
  n.url = site_url;
  if (held) {
    n.title = box + " is not delivering its usual speed: regressions are held";
    n.summary = "the canary " + now.describe() + "\nregressions found from now on are held until it is steady, "
                "then confirmed\n";
  } else {
    n.title = box + " is steady again";
    n.summary = "the canary is " + now.describe() + "\nheld regressions are confirmed now\n";
  }
  n.details = {{"box", box},
               {"level", canary::to_string(now.level)},
               {"since", now.since},
               {"workload", now.workload},
               {"ratio", now.ratio},
               {"band", now.band},
               {"new_level", now.new_level}};
  return n;
}

}  // namespace bb::report
