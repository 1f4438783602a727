#include "model/pull_request.h"

#include "util/json_read.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>

namespace bb::model {

nlohmann::json to_json(const PullRequest& pr) {
  return {{"repository", pr.repository}, {"number", pr.number},     {"head_sha", pr.head_sha},
          {"head_ref", pr.head_ref},     {"base_ref", pr.base_ref}, {"base_sha", pr.base_sha},
          {"state", pr.state},           {"clone_url", pr.clone_url}, {"updated", pr.updated},
          {"title", pr.title},           {"author", pr.author},     {"replay_key", pr.replay_key}};
}

namespace {

template <class T>
Status take_pr(const nlohmann::json& j, const char* key, T& out) {
  return take_member(j, key, out, "pull request field");
}

}  // namespace

Result<PullRequest> pull_request_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error(Errc::invalid_argument, "pull request is not an object");
  static const char* const known[] = {"repository", "number",   "head_sha", "head_ref", "base_ref",
                                      "base_sha",   "state",    "clone_url", "updated", "replay_key",
                                      "title",      "author"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (std::find_if(std::begin(known), std::end(known), [&key](const char* k) { return key == k; }) ==
        std::end(known))
      return make_error(Errc::invalid_argument, "unknown pull request field '" + key + "'");
  }
  PullRequest pr;
  for (auto st : {take_pr(j, "repository", pr.repository), take_pr(j, "number", pr.number),
                  take_pr(j, "head_sha", pr.head_sha), take_pr(j, "head_ref", pr.head_ref),
                  take_pr(j, "base_ref", pr.base_ref), take_pr(j, "base_sha", pr.base_sha),
                  take_pr(j, "state", pr.state), take_pr(j, "clone_url", pr.clone_url),
                  take_pr(j, "updated", pr.updated), take_pr(j, "replay_key", pr.replay_key),
                  take_pr(j, "title", pr.title), take_pr(j, "author", pr.author)})
    if (!st) return st.error();
  return pr;
}

Status validate(const PullRequest& pr) {
  auto bad = [](std::string m) { return Status(make_error(Errc::invalid_argument, std::move(m))); };
  if (pr.repository.empty() || pr.repository.find('/') == std::string::npos)
    return bad("pull request needs a repository 'owner/name'");
  if (pr.number <= 0) return bad("pull request needs a positive number");
  if (!is_commit_id(pr.head_sha)) return bad("pull request head_sha '" + pr.head_sha + "' is not a full hex commit id");
  if (!pr.base_sha.empty() && !is_commit_id(pr.base_sha))
    return bad("pull request base_sha '" + pr.base_sha + "' is not a full hex commit id");
  if (pr.state != "open" && pr.state != "closed")
    return bad("pull request state '" + pr.state + "' is not 'open' or 'closed'");
  if (!pr.replay_key.empty() && !is_hex(pr.replay_key, 64)) return bad("replay_key is not 64 hex digits");
  if (pr.title.size() > kMaxPullRequestTitle)
    return bad("pull request title is longer than " + std::to_string(kMaxPullRequestTitle) + " bytes");
  if (pr.author.size() > 64) return bad("pull request author '" + pr.author.substr(0, 64) + "...' is not a login");
  return {};
}

}  // namespace bb::model
