// Confirm before alerting, then bisect (report/bisection.h): the reporter's
// side. A regression a push opened is not filed yet; a compare job of its
// last good and first bad commits goes into a new bisection group in the
// queue. Each finished job of the group moves the bisection on, updates
// the regression's investigation (and the issue, once confirmed), and
// queues the next step. Everything is in history.db before the next job is
// asked for, so a restart resumes from the recorded steps.
#include <set>

#include "bus/errors.h"
#include "bus/dict.h"
#include "bus/enqueue_group.h"
#include "bus/names.h"
#include "daemon/log.h"
#include "manager.h"
#include "report/regression.h"
#include "report/notices.h"
#include "model/job_group.h"
#include "report/github_wants.h"
#include "util/text.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;

namespace {

std::string bid(const report::Bisection& b) { return std::to_string(b.id); }

}  // namespace

Status Manager::start_confirmation(report::Regression& r, const model::Job& job) {
  report::Bisection b = report::confirmation_of(r, job.spec.clone_url);
  if (auto st = history_.save_bisection(b, clock_.now_unix()); !st) return st;
  r.confirmation = "pending";
  r.investigation = "Confirming: measuring `" + short_sha(b.good) + "` and `" + short_sha(b.bad) +
                    "` interleaved on the same cores before filing this.\n";
  if (auto st = history_.save_regression(r); !st) return st;
  log_info("regression " + std::to_string(r.id) + " is confirmed before it is filed",
           {{"BISECTION", bid(b)}, {"REPOSITORY", r.repository}, {"COMMIT", b.bad}});
  queue_next(b);
  return {};
}

// Asks the queue for the bisection's next job (in its group, made with the
// first one) and records it. A queue that does not answer leaves the
// bisection waiting for resume_bisections().
void Manager::queue_next(report::Bisection& b) {
  auto spec = report::next_job(b);
  if (!spec) return;
  auto waits = [&](const Error& e) {
    log_warning("bisection waits for the queue: " + e.message, {{"BISECTION", bid(b)}, {"REPOSITORY", b.repository}});
  };
  if (b.group_id == 0) {
    model::GroupSpec group;
    group.kind = model::GroupKind::bisect;
    group.repository = b.repository;
    // The bisection's id first: `benchboxctl bisect --follow ID` shows it.
    group.description = utf8_cut("bisection " + bid(b) + ": " + b.repository + " " + short_sha(b.good) + ".." +
                                     short_sha(b.bad),
                                 200, "");
    group.requested_by = spec->requested_by;
    group.skip_measured = false;  // a rerun of an inconclusive step is the point
    auto queued = bus::enqueue_group(bus_, model::to_json(group), {model::to_json(*spec)});
    if (!queued) return waits(queued.error());
    if (queued->jobs.empty() || queued->jobs.front().id == 0)
      return waits(make_error(Errc::io, "Queue1.EnqueueGroup: no job in the answer"));
    b.group_id = queued->group_id;
    b.waiting_job = queued->jobs.front().id;
  } else {
    bus::BusError error;
    sd_bus_message* raw = nullptr;
    int r = sd_bus_message_new_method_call(bus_, &raw, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface,
                                           "Enqueue");
    bus::MessagePtr call(raw);
    spec->group_id = b.group_id;
    nlohmann::json j = model::to_json(*spec);
    j.erase("replay_key");
    if (r >= 0) r = bus::append_dict(raw, j);
    sd_bus_message* reply_raw = nullptr;
    if (r >= 0) r = sd_bus_call(bus_, raw, 0, error.get(), &reply_raw);
    bus::MessagePtr reply(reply_raw);
    int64_t job_id = 0;
    int created = 0;
    if (r >= 0) r = sd_bus_message_read(reply_raw, "xb", &job_id, &created);
    if (r > 0) b.waiting_job = job_id;
    if (r <= 0 || b.waiting_job == 0) return waits(bus::from_bus_error(error.get(), r < 0 ? r : -EIO, "Queue1"));
  }
  if (auto st = history_.save_bisection(b, clock_.now_unix()); !st) {
    log_error("bisection not saved: " + st.error().message, {{"BISECTION", bid(b)}});
    return;
  }
  const std::string step = report::step_text(b);
  log_info("bisection queued job " + std::to_string(b.waiting_job) + ": " + step,
           {{"BISECTION", bid(b)}, {"JOB_ID", std::to_string(b.waiting_job)}, {"GROUP_ID", std::to_string(b.group_id)}});
  set_group_step(b.group_id, step);
}

Result<int64_t> Manager::bisect(const std::string& repository, const std::string& clone_url, const std::string& ref,
                                const std::string& good, const std::string& bad,
                                const std::vector<std::string>& benchmarks) {
  auto bad_arg = [](std::string m) { return make_error(Errc::invalid_argument, std::move(m)); };
  if (repository.find('/') == std::string::npos) return bad_arg("the repository is OWNER/NAME, got '" + repository + "'");
  if (clone_url.empty()) return bad_arg("a bisection needs the repository's clone URL");
  if (ref.rfind("refs/heads/", 0) != 0) return bad_arg("a bisection runs on a branch (refs/heads/...), got '" + ref + "'");
  if (!model::is_commit_id(good) || !model::is_commit_id(bad))
    return bad_arg("good and bad must be full commit ids (benchboxctl bisect resolves names)");
  if (good == bad) return bad_arg("good and bad are the same commit");
  report::Bisection b;
  b.repository = repository;
  b.clone_url = clone_url;
  b.ref = ref;
  b.good = good;
  b.bad = bad;
  b.keys = benchmarks;
  b.requested_by = "operator";
  if (auto st = history_.save_bisection(b, clock_.now_unix()); !st) return st.error();
  log_info("bisection asked for: " + short_sha(good) + ".." + short_sha(bad), {{"BISECTION", bid(b)}, {"REPOSITORY", repository}});
  queue_next(b);
  return b.id;
}

Result<std::string> Manager::bisection_json(int64_t id) {
  auto b = history_.bisection(id);
  if (!b) return b.error();
  if (!*b) return make_error(Errc::not_found, "no bisection " + std::to_string(id));
  nlohmann::json j = report::to_json(**b);
  j["step"] = report::step_text(**b);
  j["markdown"] = report::markdown(**b);
  return j.dump();
}

void Manager::set_group_step(int64_t group_id, const std::string& step) {
  if (group_id == 0) return;
  bus::BusError error;
  sd_bus_message* reply = nullptr;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "SetGroupStep",
                             error.get(), &reply, "xs", group_id, utf8_cut(step, 500, "…").c_str());
  bus::MessagePtr owned(reply);
  if (r < 0)
    log_warning("group step not set: " + bus::from_bus_error(error.get(), r, "Queue1.SetGroupStep").message,
                {{"GROUP_ID", std::to_string(group_id)}});
}

// Bisections whose next job was never queued (the queue was away), at
// start, when the queue appears and on the retention timer.
void Manager::resume_bisections() {
  auto active = history_.active_bisections();
  if (!active) {
    log_warning("bisections not resumed: " + active.error().message);
    return;
  }
  for (auto& b : *active)
    if (b.waiting_job == 0 && !held(b)) queue_next(b);
}

void Manager::bisection_job_finished(const model::Job& job, report::JobReport& rep,
                                     const std::optional<model::JobResult>& result) {
  const std::string id = std::to_string(job.id);
  // The bisection of the job's group, and any other that waits for this job
  // (the queue answered its enqueue with this job, the same work).
  std::vector<report::Bisection> concerned;
  auto by_group = history_.bisection_by_group(job.spec.group_id);
  if (!by_group) {
    log_warning("bisection not found: " + by_group.error().message, {{"JOB_ID", id}});
    return;
  }
  if (*by_group) concerned.push_back(std::move(**by_group));
  if (auto active = history_.active_bisections())
    for (auto& b : *active)
      if (b.waiting_job == job.id && (concerned.empty() || b.id != concerned.front().id)) concerned.push_back(std::move(b));
  const compare::Comparison* comparison = rep.comparison ? &*rep.comparison : nullptr;
  for (size_t i = 0; i < concerned.size(); ++i) {
    report::Bisection& b = concerned[i];
    const report::Advance a =
        report::advance(b, job, comparison, result ? result->range : std::vector<model::RangeCommit>{});
    // The report says it every time: a job reported again (a restart, a
    // repeated signal) keeps its section, though it moves nothing now.
    if (i == 0) report::add_to_report(b, rep.markdown, rep.json);
    if (!a.used) continue;
    if (auto st = history_.save_bisection(b, clock_.now_unix()); !st) {
      log_error("bisection not saved: " + st.error().message, {{"BISECTION", bid(b)}, {"JOB_ID", id}});
      continue;
    }
    log_info("bisection: " + report::step_text(b), {{"BISECTION", bid(b)}, {"JOB_ID", id}, {"REPOSITORY", b.repository}});
    update_regression(b, a);
    if (b.finished()) set_group_step(b.group_id, report::step_text(b));
    else queue_next(b);
  }
}

// The regression learns what the bisection found; GitHub hears of it once
// it is confirmed.
void Manager::update_regression(const report::Bisection& b, const report::Advance& a) {
  if (b.regression_id == 0) return;
  auto found = history_.regression(b.regression_id);
  if (!found || !*found) return;
  report::Regression& r = **found;
  const bool was_fileable = r.fileable();
  r.investigation = report::markdown(b);
  if (a.confirmed) r.confirmation = "confirmed";
  if (a.refuted) {
    r.confirmation = "refuted";
    r.open = false;
    r.closed = clock_.now_unix();
    r.latest_status = b.outcome;
  }
  if (b.state == report::BisectionState::failed && r.confirmation == "pending") r.confirmation = "unconfirmed";
  if (auto st = history_.save_regression(r); !st) {
    log_error("regression not saved: " + st.error().message, {{"REGRESSION", std::to_string(r.id)}});
    return;
  }
  if (a.refuted)
    log_info("regression " + std::to_string(r.id) + " " + b.outcome, {{"REGRESSION", std::to_string(r.id)}});
  // The culprit named: its mark on the trends of what the bisection followed,
  // and a word in the check runs of the pushes that found it.
  if (b.state == report::BisectionState::done) {
    if (auto st = site_->investigation_changed(r.repository, r.ref, b.keys); !st)
      log_warning("dashboard: the culprit's trends not written: " + st.error().message,
                  {{"REGRESSION", std::to_string(r.id)}});
    tell_finding_runs(r, b);
  }
  if (a.confirmed && !was_fileable && r.fileable() && r.open)
    tell(report::regression_confirmed_notice(r, config_.reporter.site_url, issue_url(r), clock_.now_unix()));
  if (b.state == report::BisectionState::done && !b.culprit.empty() && r.fileable())
    tell(report::culprit_named_notice(r, b, config_.reporter.site_url, issue_url(r), clock_.now_unix()));
  if (!poster_ || !r.fileable() || (!r.open && !was_fileable)) return;
  // The first bad run's .benchbox.yml gives the reproduce commands.
  std::string config_text;
  if (!r.benchmarks.empty())
    if (auto run = history_.run(r.benchmarks.front().first_bad_job, ""); run && *run) config_text = (*run)->config_text;
  report::IssueLinks links{config_.reporter.site_url, b.clone_url, config_text};
  if (auto st = poster_->want(report::issue_want(r, links)); !st)
    log_error("regression issue not recorded for GitHub: " + st.error().message, {{"REGRESSION", std::to_string(r.id)}});
}

// The check run of each push that found the regression gains what came of
// it (the confirmation, the culprit), so a maintainer who looks at that
// commit on GitHub learns it there too. Its verdict stays as it was.
void Manager::tell_finding_runs(const report::Regression& r, const report::Bisection& b) {
  if (!poster_) return;
  std::set<int64_t> jobs;
  for (const auto& rb : r.benchmarks)
    if (rb.first_bad_job) jobs.insert(rb.first_bad_job);
  static const std::string kHeading = "\n\n## What came of it\n\n";
  for (int64_t job : jobs) {
    const std::string target = github_api::check_run_target(r.repository, job);
    auto w = poster_->wanted(target);
    if (!w) continue;
    auto* c = std::get_if<github_api::CheckRunWant>(&w->what);
    if (!c || c->status != "completed") continue;
    const size_t earlier = c->summary.find(kHeading);
    if (earlier != std::string::npos) c->summary.erase(earlier);
    c->summary = utf8_cut(c->summary + kHeading + report::markdown(b), github_api::kMaxSummary, "\n\n… cut here: GitHub's limit.\n");
    if (auto st = poster_->want(*w); !st)
      log_warning("check run of job " + std::to_string(job) + " not updated: " + st.error().message,
                  {{"REGRESSION", std::to_string(r.id)}});
  }
}

}  // namespace bb::reporterd
