// GitHub webhook payloads, parsed into the few fields benchbox acts on.
// The event name comes from the X-GitHub-Event header; the body is the JSON
// GitHub sent (content type application/json). Field names follow GitHub's
// "Webhook events and payloads" reference.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "util/result.h"

namespace bb::github {

struct Repository {
  std::string full_name;  // repository.full_name, "owner/name"
  std::string clone_url;  // repository.clone_url

  bool operator==(const Repository&) const = default;
};

// Sent once when a webhook is created. Repository hooks carry the repository;
// organization hooks do not.
struct PingEvent {
  std::string zen;
  int64_t hook_id = 0;
  std::string repository;  // "" for an organization hook

  bool operator==(const PingEvent&) const = default;
};

// A push to a branch or of a tag (ref "refs/heads/..." or "refs/tags/...").
// A deleted ref arrives as a push with deleted=true and an all-zero `after`.
struct PushEvent {
  Repository repository;
  std::string ref;
  std::string before;
  std::string after;
  bool created = false;
  bool deleted = false;
  bool forced = false;
  std::string sender;  // sender.login

  bool operator==(const PushEvent&) const = default;
};

// A branch or tag was created. `ref` is the short name ("v1.2.0"), not a
// full ref, and the payload carries no commit id.
struct CreateEvent {
  Repository repository;
  std::string ref;
  std::string ref_type;  // "branch" or "tag"
  std::string sender;

  bool operator==(const CreateEvent&) const = default;
};

struct PullRequestEvent {
  Repository repository;     // the base repository
  std::string action;        // opened, synchronize, reopened, closed, labeled, ...
  int64_t number = 0;
  std::string state;         // pull_request.state: "open" or "closed"
  bool merged = false;
  std::string head_sha;      // pull_request.head.sha
  std::string head_ref;      // pull_request.head.ref, the branch name in the head repository
  std::string title;         // pull_request.title
  std::string author;        // pull_request.user.login
  std::string head_clone_url;  // pull_request.head.repo.clone_url ("" when the fork is gone)
  std::string base_sha;      // pull_request.base.sha
  std::string base_ref;      // pull_request.base.ref, the branch name ("main")
  std::string label;         // label.name, for labeled/unlabeled
  std::string sender;

  bool operator==(const PullRequestEvent&) const = default;
};

struct IssueCommentEvent {
  Repository repository;
  std::string action;        // created, edited, deleted
  int64_t issue_number = 0;  // issue.number (the PR number when on a PR)
  bool on_pull_request = false;  // issue.pull_request is present
  std::string body;          // comment.body
  std::string commenter;     // comment.user.login
  std::string sender;

  bool operator==(const IssueCommentEvent&) const = default;
};

// Any other event: kept only for the log line that says it was ignored.
struct OtherEvent {
  std::string name;
  std::string repository;  // "" when the payload has none

  bool operator==(const OtherEvent&) const = default;
};

using Event = std::variant<PingEvent, PushEvent, CreateEvent, PullRequestEvent, IssueCommentEvent,
                           OtherEvent>;

// Parses `body` as the payload of `event_name`. Malformed JSON is an
// Errc::parse error with the parser's line and column; a missing or mistyped field is an
// Errc::invalid_argument error naming the field ("push payload: missing
// field 'repository.full_name'").
Result<Event> parse_event(std::string_view event_name, std::string_view body);

// The repository named in any event ("" when there is none), for logs.
std::string repository_of(const Event& event);

}  // namespace bb::github
