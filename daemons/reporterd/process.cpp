// One finished job, end to end: its report, history, the branch's
// regression, the dashboard, and what GitHub should show.
#include <exception>
#include <map>

#include "bus/errors.h"
#include "bus/names.h"
#include "compare/compare.h"
#include "daemon/log.h"
#include "manager.h"
#include "report/notices.h"
#include "report/github_wants.h"
#include "report/not_affected.h"
#include "report/profile_diff.h"
#include "report/regression.h"
#include "util/file.h"

namespace bb::reporterd {

using daemon::log_error;
using daemon::log_info;
using daemon::log_warning;

namespace {

Result<model::JobResult> parse_job_result(const std::string& text, const std::string& where) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error(Errc::parse, where + ": not valid JSON");
  auto jr = model::job_result_from_json(j);
  if (!jr) return jr.error().with_context(where);
  return jr;
}

bool branch_push(const model::Job& job) {
  return job.spec.kind == model::JobKind::push && job.spec.ref.rfind("refs/heads/", 0) == 0;
}

// A push or tag job of a group is a backfill's: bisections group compare
// jobs, and a shards group's jobs are shards.
bool backfilled(const model::Job& job) {
  return job.spec.group_id != 0 && job.spec.shard == 0 &&
         (job.spec.kind == model::JobKind::push || job.spec.kind == model::JobKind::tag);
}

// A result set with only the benchmarks named.
model::ResultSet only(const model::ResultSet& rs, const std::set<std::string>& keys) {
  model::ResultSet out = rs;
  out.benchmarks.clear();
  for (const auto& b : rs.benchmarks)
    if (keys.count(b.key.to_string())) out.benchmarks.push_back(b);
  return out;
}

}  // namespace

// The result set the job was completed with: from the queue, where a runner
// on any box of the fleet left it (Queue1.GetResult), or, from a runner
// that did not, the file its result path names on this box.
Result<model::JobResult> Manager::load_job_result(const model::Job& job) {
  bus::BusError error;
  sd_bus_message* reply = nullptr;
  int r = sd_bus_call_method(bus_, bus::kQueueName, bus::kQueuePath, bus::kQueueInterface, "GetResult", error.get(),
                             &reply, "x", job.id);
  bus::MessagePtr owned(reply);
  if (r >= 0) {
    const char* text = nullptr;
    if ((r = sd_bus_message_read(reply, "s", &text)) < 0) return errno_error("read Queue1.GetResult", -r);
    return parse_job_result(text, "the result of job " + std::to_string(job.id) + " in the queue");
  }
  // NotFound (an older runner), or an older queued without the method.
  auto e = bus::from_bus_error(error.get(), r, "Queue1.GetResult");
  auto text = read_file(job.result_path, size_t(1) << 30);
  if (!text) return e.code == Errc::not_found ? text.error() : text.error().with_context(e.message + "; and the file");
  return parse_job_result(*text, job.result_path);
}

Status Manager::process(const model::Job& job) {
  std::string id = std::to_string(job.id);
  std::optional<model::JobResult> result;
  model::Job effective = job;
  if (job.state == model::JobState::done) {
    auto jr = load_job_result(job);
    if (!jr) {
      // A done job whose results cannot be read is reported as failed,
      // never as success.
      effective.state = model::JobState::failed;
      effective.error = "result file unreadable: " + jr.error().message;
    } else {
      result = std::move(*jr);
    }
  }
  // Suites the pull request did not touch: their benchmarks beside their
  // last value on the base branch, reported skipped (not affected).
  if (result && report::has_not_affected(*result)) {
    model::ResultSet probe;
    probe.repository = job.spec.repository;
    probe.ref = job.spec.base_ref.rfind("refs/", 0) == 0 ? job.spec.base_ref : "refs/heads/" + job.spec.base_ref;
    probe.job_id = job.id;
    auto last = history_.latest_run(probe, "push");
    if (!last) return last.error();
    report::add_not_affected(*result, *last);
  }

  std::optional<model::ResultSet> previous, elsewhere;
  if (result && !result->base) {
    // A shard: the run before it of the same shard, not another shard's.
    const std::string with_key = job.spec.shard > 0 && !result->head.benchmarks.empty()
                                     ? result->head.benchmarks.front().key.to_string()
                                     : std::string();
    auto prev = history_.previous_run(result->head, result->kind, with_key);
    if (!prev) return prev.error();
    previous = std::move(*prev);
    if (!previous) {
      // A first run in this environment: the report says what changed.
      auto other = history_.latest_run(result->head, result->kind);
      if (!other) return other.error();
      elsewhere = std::move(*other);
    }
  }

  compare::Options options;
  report::JobReport rep =
      report::build_report(effective, result, previous, options, elsewhere, {config_.reporter.site_url});
  if (result && (result->base || previous))
    report::add_profile_diffs(rep, result->base ? *result->base : *previous, result->head, {config_.reporter.site_url});

  Status ingested;
  // A compare job re-measures two commits of a branch to decide one
  // question (a confirmation, a bisection step): its runs are not points of
  // the branch's trend, which has them already.
  if (result && job.spec.kind != model::JobKind::compare) {
    if (result->base) ingested = history_.ingest(*result->base, result->kind);
    if (ingested) ingested = history_.ingest(result->head, result->kind);
  }
  // A confirmation or a bisection step: the bisection moves on, and the
  // report says where it stands.
  if (job.spec.kind == model::JobKind::compare && job.spec.group_id != 0) bisection_job_finished(job, rep, result);
  // The report is written, and GitHub told, even when history could not
  // take the run.
  if (!ingested) {
    post_report(rep);
    if (auto st = write_report(rep, report_dir(job.id)); !st) return st;
    return ingested;
  }
  report::JobSummary summary{job.id,          job.spec.repository, model::to_string(job.spec.kind), job.spec.ref,
                             job.spec.pr_number, rep.head_commit,  rep.comparison ? rep.comparison->base_commit : "",
                             job.created,     job.finished,        model::to_string(job.state),
                             report::to_string(rep.overall), rep.summary,
                             result ? result->head.commit_info.time : 0,
                             backfilled(job)};
  if (auto st = history_.record_job(summary); !st) return st;
  // One shard measures part of a suite, and the run before it in history
  // may be another shard of the same commit: nothing to judge a branch's
  // regression by until the shards are merged.
  if (result && branch_push(job) && config_.reporter.regression_issues && job.spec.shard > 0)
    log_info("a shard of a sharded suite: the branch's regression stays as it is", {{"JOB_ID", id}});
  else if (result && branch_push(job) && config_.reporter.regression_issues) {
    auto later = history_.has_later_run(result->head);
    if (!later) log_warning("regression not tracked: " + later.error().message, {{"JOB_ID", id}});
    else if (*later) log_info("a backfilled commit: the branch's regression stays as it is", {{"JOB_ID", id}});
    else track_regression(rep, *result);
  }
  // Change points of the series this push measured, now including it (the
  // newest points of each; changes_ spares series that did not change):
  // on the windows the dashboard's trends are drawn with, so its trends go
  // first, which job_finished then leaves as they are.
  if (result && branch_push(job)) {
    if (auto st = site_->write_job_series(job.spec.repository, *result); !st)
      log_warning("dashboard's trends not updated: " + st.error().message, {{"JOB_ID", id}});
    if (auto st = site_->add_change_points(rep, *result); !st)
      log_warning("change points not computed: " + st.error().message, {{"JOB_ID", id}});
  }
  if (auto st = site_->job_finished(rep, result); !st)
    log_warning("dashboard not updated: " + st.error().message, {{"JOB_ID", id}});
  post_report(rep);
  shard_changed(job);
  // Last: report.json marks the job reported (handle(), catch_up()). A
  // reporterd killed before this line does it all again at its next start
  // (history upserts; the outbox keeps the newest want per object), rather
  // than leave a check run in progress for good, as it would when
  // report.json came first.
  if (auto st = write_report(rep, report_dir(job.id)); !st) return st;

  ++jobs_reported_;
  sd_bus_emit_properties_changed(bus_, bus::kReporterPath, bus::kReporterInterface, "JobsReported", nullptr);
  std::string md_path = path_join(report_dir(job.id), "report.md");
  sd_bus_emit_signal(bus_, bus::kReporterPath, bus::kReporterInterface, "ReportReady", "xss", job.id,
                     report::to_string(rep.overall), md_path.c_str());
  log_info(rep.summary, {{"JOB_ID", id},
                         {"REPOSITORY", job.spec.repository},
                         {"COMMIT", rep.head_commit},
                         {"VERDICT", report::to_string(rep.overall)}});
  return {};
}

// The branch's regression after this push: opened, grown, still there, or
// gone (docs/configuration.md, "Reporting").
void Manager::track_regression(const report::JobReport& rep, const model::JobResult& result) {
  const model::Job& job = rep.job;
  const std::string id = std::to_string(job.id);
  auto open = history_.open_regression(job.spec.repository, job.spec.ref);
  if (!open) {
    log_warning("regression not tracked: " + open.error().message, {{"JOB_ID", id}});
    return;
  }
  // This push against each still-regressed benchmark's last good run.
  std::map<std::string, compare::BenchmarkComparison> against;
  if (*open) {
    std::map<std::pair<int64_t, std::string>, std::set<std::string>> by_run;  // (job, role) -> keys
    for (const auto& b : (*open)->benchmarks)
      if (b.resolved_by.empty()) by_run[{b.last_good_job, b.last_good_role}].insert(b.key);
    for (const auto& [good_run, keys] : by_run) {
      auto good = history_.run(good_run.first, good_run.second);
      if (!good || !*good) continue;
      compare::Options options;
      options.seed = static_cast<uint64_t>(job.id);
      const auto c = compare::compare(only(**good, keys), only(result.head, keys), options);
      for (const auto& row : c.rows) against[row.key.to_string()] = row;
    }
  }
  const bool was_open = open->has_value();
  report::RegressionStep step = report::step_regression(std::move(*open), rep, against, clock_.now_unix());
  if (!step.regression) return;
  report::Regression& r = *step.regression;
  if (auto st = history_.save_regression(r); !st) {
    log_error("regression not saved: " + st.error().message, {{"JOB_ID", id}});
    return;
  }
  // A new regression is confirmed before anyone is told (bisector.cpp);
  // found while the box has shifted, it is held until the box is steady,
  // then confirmed whatever confirm_regressions says (hold.cpp).
  if (step.opened && health_.level == canary::Level::shifted) {
    if (auto st = hold_regression(r, job); !st)
      log_error("regression not held: " + st.error().message, {{"JOB_ID", id}});
  } else if (step.opened && config_.reporter.confirm_regressions) {
    if (auto st = start_confirmation(r, job); !st)
      log_error("regression not sent for confirmation: " + st.error().message, {{"JOB_ID", id}});
  }
  // Those who were told of it (fileable: confirmed, or confirmation off)
  // hear that it is confirmed or gone; a pending one is told once confirmed.
  if (r.fileable() && step.opened)
    tell(report::regression_confirmed_notice(r, config_.reporter.site_url, "", clock_.now_unix()));
  if (r.fileable() && step.closed)
    tell(report::regression_closed_notice(r, config_.reporter.site_url, issue_url(r), clock_.now_unix()));
  const char* what = step.opened ? "opened" : step.closed ? "closed" : step.grew ? "grew" : "still open";
  log_info(std::string("regression on ") + job.spec.ref + " " + what + ": " + r.latest_status,
           {{"JOB_ID", id}, {"REPOSITORY", job.spec.repository}, {"REGRESSION", std::to_string(r.id)}});
  if (!poster_ || (!was_open && !step.opened) || !r.fileable()) return;
  report::IssueLinks links{config_.reporter.site_url, job.spec.clone_url, result.head.config_text};
  if (auto st = poster_->want(report::issue_want(r, links)); !st)
    log_error("regression issue not recorded for GitHub: " + st.error().message, {{"JOB_ID", id}});
}

void Manager::post_state(const model::Job& job) {
  shard_changed(job);
  if (!poster_) return;
  const report::PostingPolicy policy = posting_policy();
  auto want = report::check_run_want(job, policy, runner_refusal_);
  if (!want) return;
  if (auto st = poster_->want(*want); !st)
    log_error("check run not recorded for GitHub: " + st.error().message, {{"JOB_ID", std::to_string(job.id)}});
}

void Manager::post_report(const report::JobReport& rep) {
  if (!poster_) return;
  const report::PostingPolicy policy = posting_policy();
  const std::string id = std::to_string(rep.job.id);
  for (auto want : {report::check_run_want(rep, policy), report::comment_want(rep, policy)}) {
    if (!want) continue;
    if (auto st = poster_->want(*want); !st)
      log_error("not recorded for GitHub: " + st.error().message, {{"JOB_ID", id}, {"TARGET", want->target}});
  }
}

}  // namespace bb::reporterd
