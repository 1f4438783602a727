// What benchbox wants GitHub to show: one check run per job, one sticky
// comment per pull request, one issue per regression. A Want is a desired
// state, not a call: the outbox (outbox.h) keeps the newest Want of each
// target and the sender (sender.h) makes GitHub show it, creating the
// object the first time and editing it after, so a Want can be repeated or
// replaced freely and nothing is posted twice.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "util/result.h"

namespace bb::github_api {

// GitHub's limits (characters; the sender cuts by bytes, which is never
// more): a check run's output.title/summary/text, a comment's or issue's
// body.
inline constexpr size_t kMaxTitle = 255;
inline constexpr size_t kMaxSummary = 65535;
inline constexpr size_t kMaxText = 65535;
inline constexpr size_t kMaxBody = 65536;

struct CheckRunWant {
  std::string repository;      // "owner/name"
  std::string head_sha;
  std::string name = "benchbox";
  std::string external_id;     // the job id: finds the run again after a lost reply
  std::string status;          // queued, in_progress, completed
  std::string conclusion;      // completed only: success, failure, neutral, cancelled
  std::string title, summary, text;  // output; empty title = no output
  std::string details_url;     // "" = none
  int64_t started_at = 0;      // unix seconds; 0 = not sent
  int64_t completed_at = 0;
};

// The one sticky comment of a pull request, found again by its marker
// (kStickyMarker, added by the sender) and edited in place.
struct CommentWant {
  std::string repository;
  int64_t number = 0;          // the pull request
  std::string body;
  // false: only edit a comment that exists, never create one (the report
  // has nothing to say, but an earlier comment must not go stale).
  bool create = true;
};

// An issue benchbox opens, updates and closes, found again by `marker` (an
// HTML comment the sender puts in its body) if its number was lost.
struct IssueWant {
  std::string repository;
  std::string marker;          // e.g. "regression:refs/heads/main:42" (no "--")
  std::string title, body;
  std::vector<std::string> labels;
  bool open = true;
  // Posted once, as a comment, when the issue goes from open to closed.
  std::string closing_comment;
};

struct Want {
  // Names the GitHub object for good: "check-run/<repo>/<job>",
  // "comment/<repo>/<pr>", "issue/<repo>/<marker>".
  std::string target;
  std::variant<CheckRunWant, CommentWant, IssueWant> what;
};

// "check_run", "comment" or "issue": the outbox's kind column and the JSON's.
const char* kind_of(const Want& want);
nlohmann::json to_json(const Want& want);
Result<Want> want_from_json(const nlohmann::json& j);

// The targets' canonical names.
std::string check_run_target(const std::string& repository, int64_t job_id);
// A sharded suite's one check run, for its job group of shard jobs.
std::string shards_check_run_target(const std::string& repository, int64_t group_id);
std::string comment_target(const std::string& repository, int64_t pr_number);
std::string issue_target(const std::string& repository, const std::string& marker);

// What GitHub made of a target once posted.
struct PostedObject {
  int64_t id = 0;              // check run id, comment id, or issue number
  std::string html_url;        // "" when GitHub did not say
};

}  // namespace bb::github_api
