#include "report/github_wants.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/box_page.h"
#include "report/site_paths.h"
#include "stats/describe.h"
#include "util/text.h"

namespace bb::report {

namespace {

std::string full_report_note(const JobReport& report, const PostingPolicy& policy) {
  if (policy.site_url.empty())
    return "\n\n… cut here: GitHub's limit. The full report: `benchboxctl report " + std::to_string(report.job.id) + "`.\n";
  return "\n\n… cut here: GitHub's limit. The full report: " + policy.site_url +
         site::run_page(report.job.spec.repository, report.job.id) + "\n";
}

std::string details_url(const model::Job& job, const PostingPolicy& policy) {
  return policy.site_url.empty() ? "" : policy.site_url + site::run_page(job.spec.repository, job.id);
}

}  // namespace

std::string check_conclusion(const JobReport& report) {
  switch (report.overall) {
    case Overall::cancelled: return "cancelled";
    case Overall::failed:
    case Overall::regressed: return "failure";
    case Overall::inconclusive: return "neutral";
    default: break;
  }
  if (report.missing) return "failure";
  if (report.nothing_measured) return "neutral";
  return "success";
}

// Check runs belong to what GitHub sent: an operator's manual job (a
// re-run) and a job of a group (a backfill of old commits, a bisection
// step) post none.
bool posts_check_run(const model::Job& job) {
  return job.spec.kind != model::JobKind::manual && job.spec.group_id == 0;
}

std::optional<github_api::Want> check_run_want(const model::Job& job, const PostingPolicy& policy,
                                               const std::string& runner_refusal) {
  if (job.spec.head_sha.empty() || model::is_terminal(job.state) || !posts_check_run(job)) return std::nullopt;
  github_api::CheckRunWant c;
  c.repository = job.spec.repository;
  c.head_sha = job.spec.head_sha;
  c.external_id = std::to_string(job.id);
  c.details_url = details_url(job, policy);
  const std::string what = job.spec.kind == model::JobKind::pull_request ? "its merge-base and head, interleaved"
                                                                          : "it";
  if (job.state == model::JobState::queued) {
    c.status = "queued";
    c.title = "Queued";
    c.summary = "Job " + std::to_string(job.id) + " waits for the benchmark runner" +
                (job.attempts ? " (attempt " + std::to_string(job.attempts + 1) + ")" : std::string()) + ".";
    if (!runner_refusal.empty()) {
      c.title = "Queued: the runner claims no job";
      c.summary += "\n\nThe benchmark runner on this box claims no job: " + runner_refusal + ".";
    }
  } else {
    c.status = "in_progress";
    c.started_at = job.started;
    c.title = "Measuring";
    c.summary = "Job " + std::to_string(job.id) + ": " + (job.runner.empty() ? "a runner" : "`" + job.runner + "`") +
                " measures " + what + " on its benchmark cores.";
  }
  return github_api::Want{github_api::check_run_target(job.spec.repository, job.id), c};
}

std::string resolution_note(const JobReport& report, const std::string& box_health) {
  const auto by_suite = suite_resolutions(report);
  if (by_suite.empty()) return "";
  std::string out = "**What this box resolves now:** ";
  bool first = true;
  for (const auto& [suite, value] : by_suite) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "≥ %.1f %%", 100 * value);
    out += std::string(first ? "" : "; ") + "`" + suite + "` " + buf;
    first = false;
  }
  out += " (the median of its benchmarks' smallest detectable change in this comparison)";
  if (!box_health.empty()) out += "; its canary: " + box_health;
  return out + ".\n";
}

std::optional<github_api::Want> check_run_want(const JobReport& report, const PostingPolicy& policy) {
  const model::Job& job = report.job;
  if (report.head_commit.empty() || !posts_check_run(job)) return std::nullopt;
  github_api::CheckRunWant c;
  c.repository = job.spec.repository;
  c.head_sha = report.head_commit;
  c.external_id = std::to_string(job.id);
  c.status = "completed";
  c.conclusion = check_conclusion(report);
  c.started_at = job.started;
  c.completed_at = job.finished;
  c.details_url = details_url(job, policy);
  std::string why;
  const bool held = report.comparison && std::any_of(report.comparison->rows.begin(), report.comparison->rows.end(),
                                                     [](const auto& r) { return r.held.has_value(); });
  if (c.conclusion == "neutral")
    why = report.overall != Overall::inconclusive ? " (nothing was measured)"
          : held ? " (a change against another job's run, unconfirmed)"
                 : " (some changes could not be decided: more runs needed)";
  c.title = std::string(utf8_prefix("benchbox: " + std::string(to_string(report.overall)) + why, github_api::kMaxTitle));
  const std::string note = full_report_note(report, policy);
  // Before the report, which GitHub's limit may cut.
  const std::string resolves = resolution_note(report, policy.box_health);
  c.summary = utf8_cut(report.summary + "\n\n" + (resolves.empty() ? "" : resolves + "\n") + report.markdown,
                       github_api::kMaxSummary, note);
  return github_api::Want{github_api::check_run_target(job.spec.repository, job.id), c};
}

std::optional<github_api::Want> shards_check_run_want(const JobReport& report, const ShardProgress& progress,
                                                      const PostingPolicy& policy) {
  const model::Job& job = report.job;
  if (report.head_commit.empty() || !posts_check_run(job)) return std::nullopt;
  github_api::CheckRunWant c;
  c.repository = job.spec.repository;
  c.head_sha = report.head_commit;
  c.name = std::string(utf8_prefix("benchbox: " + progress.suite, github_api::kMaxTitle));
  c.external_id = "group-" + std::to_string(progress.group_id);
  c.started_at = job.started;
  c.details_url = policy.site_url.empty()
                      ? ""
                      : policy.site_url + site::run_page(job.spec.repository, site::group_run_id(progress.group_id));
  std::string title;
  if (progress.finished()) {
    c.status = "completed";
    c.conclusion = check_conclusion(report);
    c.completed_at = job.finished;
    title = "benchbox: " + std::string(to_string(report.overall)) + " (" + std::to_string(progress.shards) + " shards)";
  } else {
    c.status = progress.done || !progress.lost.empty() ? "in_progress" : "queued";
    title = std::to_string(progress.done) + " of " + std::to_string(progress.shards) + " shards done";
  }
  c.title = std::string(utf8_prefix(title, github_api::kMaxTitle));
  const std::string note = "\n\n… cut here: GitHub's limit. The full report: " +
                           (c.details_url.empty() ? "`benchboxctl report --group " + std::to_string(progress.group_id) + "`"
                                                  : c.details_url) +
                           "\n";
  c.summary = utf8_cut(report.summary + "\n\n" + report.markdown, github_api::kMaxSummary, note);
  return github_api::Want{github_api::shards_check_run_target(job.spec.repository, progress.group_id), c};
}

bool worth_a_comment(const JobReport& report) {
  switch (report.overall) {
    case Overall::failed:
    case Overall::regressed:
    case Overall::improved:
    case Overall::inconclusive: return true;
    default: return report.missing;
  }
}

std::optional<github_api::Want> comment_want(const JobReport& report, const PostingPolicy& policy) {
  const model::Job& job = report.job;
  if (job.spec.kind != model::JobKind::pull_request || job.spec.pr_number <= 0 || policy.pr_comment == "never")
    return std::nullopt;
  github_api::CommentWant c;
  c.repository = job.spec.repository;
  c.number = job.spec.pr_number;
  c.create = policy.pr_comment == "always" || worth_a_comment(report);
  // The marker the sender adds takes a line of its own.
  c.body = utf8_cut(report.markdown, github_api::kMaxBody - 64, full_report_note(report, policy));
  return github_api::Want{github_api::comment_target(job.spec.repository, job.spec.pr_number), c};
}

github_api::Want issue_want(const Regression& regression, const IssueLinks& links) {
  github_api::IssueWant i;
  i.repository = regression.repository;
  i.marker = regression.marker();
  i.title = std::string(utf8_prefix(regression_issue_title(regression), 256));
  const std::string note = links.site_url.empty()
                               ? "\n\n… cut here: GitHub's limit.\n"
                               : "\n\n… cut here: GitHub's limit. Everything is on the dashboard: " + links.site_url +
                                     site::repository_page(regression.repository) + "\n";
  i.body = utf8_cut(regression_issue_body(regression, links), github_api::kMaxBody - 200, note);
  i.labels = {"benchbox"};
  i.open = regression.open;
  if (!regression.open) i.closing_comment = regression_closing_comment(regression);
  return github_api::Want{github_api::issue_target(regression.repository, i.marker), i};
}

}  // namespace bb::report
