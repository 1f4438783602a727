// What a job should look like on GitHub, as github_api::Wants: its check
// run through queued → in_progress → completed, the pull request's sticky
// comment, and a branch's regression issue. Pure: reporterd hands these to
// the outbox, which makes GitHub show them.
#pragma once

#include <optional>
#include <string>

#include "github_api/want.h"
#include "model/job.h"
#include "report/history.h"
#include "report/job_report.h"
#include "report/regression.h"
#include "report/shard_merge.h"

namespace bb::report {

struct PostingPolicy {
  std::string site_url;                 // "" = no details_url, no links
  std::string pr_comment = "changes";   // changes, always, never
  std::string box_health;               // the canary's verdict on the box (canary::Health::describe); "" = unknown
};

// What this box resolves now, per suite, for the check run's summary
// (docs/canary.md): the median, over the suite's benchmarks in this
// comparison, of the smallest change it would have caught, and the
// canary's verdict on the box. "" when the comparison has none.
std::string resolution_note(const JobReport& report, const std::string& box_health);

// The check-run conclusion of a finished job: failure (a regression, a
// failed or missing benchmark, a failed job), neutral (inconclusive, or
// nothing measured), cancelled, success.
std::string check_conclusion(const JobReport& report);

// A queued or running job's check run; nullopt when its commit is not known
// yet (a blessed PR whose head is resolved only when it runs). A queued
// job's summary says why it waits when `runner_refusal` says why this
// box's runner claims no job (Runner1.Refusal).
std::optional<github_api::Want> check_run_want(const model::Job& job, const PostingPolicy& policy,
                                               const std::string& runner_refusal = "");
// A finished job's, completed: title, summary and text within GitHub's
// limits, cut on a character boundary with a link to the full report.
std::optional<github_api::Want> check_run_want(const JobReport& report, const PostingPolicy& policy);

// A sharded suite's check run ("benchbox: <suite>", one per job group of
// shards, report/shard_merge.h): in progress with "3 of 8 shards done"
// while shards are pending, then completed as one job's would be. The full
// report is `benchboxctl report --group G`.
std::optional<github_api::Want> shards_check_run_want(const JobReport& report, const ShardProgress& progress,
                                                      const PostingPolicy& policy);

// The sticky comment of a PR job's report; nullopt when the policy says
// never. With "changes" a report with nothing to say only edits an
// existing comment (so it never goes stale), never creates one.
std::optional<github_api::Want> comment_want(const JobReport& report, const PostingPolicy& policy);

// The issue of a regression (open, or closed with its comment).
github_api::Want issue_want(const Regression& regression, const IssueLinks& links);

// True when a report has something to tell a pull request.
bool worth_a_comment(const JobReport& report);

}  // namespace bb::report
