// What the queue remembers about a pull request between its `pull_request`
// webhook and a later blessing comment, which carries no commit ids.
// Travels on the bus as an a{sv} with exactly these keys (Queue1.RecordPullRequest).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/job.h"
#include "util/result.h"

namespace bb::model {

// GitHub allows 256 characters in a title; bytes, with room for UTF-8.
inline constexpr size_t kMaxPullRequestTitle = 1024;

struct PullRequest {
  std::string repository;  // "owner/name"
  int64_t number = 0;
  std::string head_sha;
  std::string head_ref;    // the branch name in the head repository
  std::string base_ref;
  std::string base_sha;
  std::string state = "open";  // "open" or "closed"
  std::string clone_url;       // where the head commit can be fetched
  int64_t updated = 0;         // unix seconds, set by the store
  // As JobSpec::replay_key: a body recorded once within the replay window
  // changes nothing when it comes again. Input only, never stored.
  std::string replay_key;
  // For people: the pull request's title and its author's login, as the
  // last event said (the dashboard's pull request page shows them). Last,
  // so that brace-initialised records elsewhere keep their meaning.
  std::string title;           // at most kMaxPullRequestTitle bytes
  std::string author;
};

nlohmann::json to_json(const PullRequest& pr);
Result<PullRequest> pull_request_from_json(const nlohmann::json& j);
// repository and a positive number are required; shas are full hex ids;
// state is "open" or "closed".
Status validate(const PullRequest& pr);

}  // namespace bb::model
