#include "github/policy.h"

#include <algorithm>
#include <cctype>

#include "util/text.h"

namespace bb::github {

namespace {

using Action = Decision::Action;
using config::RepositoryPolicy;

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// GitHub names are case-insensitive; the config may spell them differently.
const RepositoryPolicy* find_policy(const config::ApplianceConfig& c, const std::string& name) {
  for (const auto& r : c.repositories)
    if (iequals(r.name, name)) return &r;
  return nullptr;
}

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
  return std::any_of(globs.begin(), globs.end(), [&](const auto& g) { return glob_match(g, name); });
}

bool may_bless(const RepositoryPolicy& p, const std::string& login) {
  return std::any_of(p.blessers.begin(), p.blessers.end(),
                     [&](const auto& b) { return iequals(b, login); });
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool all_zero(const std::string& sha) {
  return !sha.empty() && sha.find_first_not_of('0') == std::string::npos;
}

Decision ignore(std::string reason) {
  Decision d;
  d.action = Action::ignore;
  d.reason = std::move(reason);
  return d;
}

Decision not_watched(const std::string& repository) {
  return ignore("repository '" + repository + "' is not watched");
}

std::string clone_url_for(const RepositoryPolicy& p, const std::string& from_payload) {
  return p.clone_url.empty() ? from_payload : p.clone_url;
}

std::string full_branch_ref(const std::string& ref) {
  if (ref.empty() || starts_with(ref, "refs/")) return ref;
  return "refs/heads/" + ref;
}

Result<Decision> enqueue(model::JobSpec job, std::string summary) {
  if (auto st = model::validate(job); !st) return st.error();
  Decision d;
  d.action = Action::enqueue;
  d.reason = std::move(summary);
  d.job = std::move(job);
  return d;
}

Result<Decision> decide_push(const config::ApplianceConfig& c, const PushEvent& e,
                             const std::string& delivery_id) {
  const RepositoryPolicy* p = find_policy(c, e.repository.full_name);
  if (!p) return not_watched(e.repository.full_name);
  if (e.deleted || all_zero(e.after)) return ignore("push deletes " + e.ref);

  model::JobSpec job;
  job.delivery_id = delivery_id;
  job.repository = e.repository.full_name;
  job.clone_url = clone_url_for(*p, e.repository.clone_url);
  job.ref = e.ref;
  job.head_sha = e.after;
  job.suite = p->suite;
  job.requested_by = e.sender;
  if (starts_with(e.ref, "refs/heads/")) {
    std::string branch = e.ref.substr(11);
    if (!matches_any(p->branches, branch))
      return ignore("branch '" + branch + "' is not among the branches watched in " + p->name);
    job.kind = model::JobKind::push;
    // The branch's previous head: runnerd measures it again, interleaved
    // with this commit, for the suites whose push_baseline says so. None
    // for a new branch (`before` is all zeros).
    if (model::is_commit_id(e.before) && !all_zero(e.before) && e.before != e.after) job.base_sha = e.before;
    return enqueue(std::move(job), "push to " + branch);
  }
  if (starts_with(e.ref, "refs/tags/")) {
    std::string tag = e.ref.substr(10);
    if (!matches_any(p->tags, tag))
      return ignore("tag '" + tag + "' matches none of the tag patterns of " + p->name);
    job.kind = model::JobKind::tag;
    return enqueue(std::move(job), "tag " + tag);
  }
  return ignore("ref '" + e.ref + "' is neither a branch nor a tag");
}

// A tag push arrives twice, as `create` (no commit id) and as `push` (with
// the commit). Only the push is measured, so a tag never runs twice.
Decision decide_create(const config::ApplianceConfig& c, const CreateEvent& e) {
  if (!find_policy(c, e.repository.full_name)) return not_watched(e.repository.full_name);
  return ignore(e.ref_type + " '" + e.ref + "' is measured from its push event, which carries the commit");
}

model::PullRequest record_of(const PullRequestEvent& e) {
  model::PullRequest r;
  r.repository = e.repository.full_name;
  r.number = e.number;
  r.head_sha = e.head_sha;
  r.head_ref = e.head_ref;
  r.title = utf8_cut(e.title, model::kMaxPullRequestTitle, "…");
  r.author = e.author.substr(0, 64);
  r.base_ref = full_branch_ref(e.base_ref);
  r.base_sha = e.base_sha;
  r.state = e.state == "open" ? "open" : "closed";
  r.clone_url = e.head_clone_url.empty() ? e.repository.clone_url : e.head_clone_url;
  return r;
}

model::JobSpec pull_request_job(const RepositoryPolicy& p, const model::PullRequest& pr,
                                const std::string& clone_url, const std::string& requested_by,
                                const std::string& delivery_id) {
  model::JobSpec job;
  job.kind = model::JobKind::pull_request;
  job.delivery_id = delivery_id;
  job.repository = pr.repository;
  job.clone_url = clone_url_for(p, clone_url);
  // The base repository always has refs/pull/N/head, even for a fork whose
  // branch is gone; the runner fetches that.
  job.ref = "refs/pull/" + std::to_string(pr.number) + "/head";
  job.head_sha = pr.head_sha;
  job.base_ref = full_branch_ref(pr.base_ref);
  job.base_sha = pr.base_sha;
  job.pr_number = pr.number;
  job.suite = p.suite;
  job.requested_by = requested_by;
  return job;
}

std::string pr_name(const std::string& repository, int64_t number) {
  return repository + "#" + std::to_string(number);
}

Result<Decision> decide_pull_request(const config::ApplianceConfig& c, const PullRequestEvent& e,
                                     const std::string& delivery_id) {
  const RepositoryPolicy* p = find_policy(c, e.repository.full_name);
  if (!p) return not_watched(e.repository.full_name);
  const std::string name = pr_name(e.repository.full_name, e.number);
  if (e.number <= 0) return make_error(Errc::invalid_argument, "pull_request payload: 'number' must be positive");
  model::PullRequest record = record_of(e);
  {
    model::JobSpec probe;  // reuse the job validation for the commit ids
    probe.repository = record.repository;
    probe.clone_url = record.clone_url.empty() ? "-" : record.clone_url;
    probe.head_sha = record.head_sha;
    probe.base_sha = record.base_sha;
    if (auto st = model::validate(probe); !st)
      return st.error().with_context("pull_request payload");
  }

  const std::string& a = e.action;
  if (a == "opened" || a == "synchronize" || a == "reopened" || a == "closed") {
    Decision d;
    d.action = Action::record;
    d.reason = "record " + name + " (" + a + ")";
    d.record = std::move(record);
    return d;
  }
  if (a == "labeled") {
    if (e.label != p->bless_label || p->bless_label.empty())
      return ignore("label '" + e.label + "' is not the bless label of " + p->name);
    if (!may_bless(*p, e.sender)) return ignore("user '" + e.sender + "' may not bless " + name);
    if (record.state != "open") return ignore(name + " is closed");
    auto d = enqueue(pull_request_job(*p, record, e.repository.clone_url, e.sender, delivery_id),
                     "blessed " + name + " by label from " + e.sender);
    if (d) d->record = std::move(record);
    return d;
  }
  return ignore("pull_request action '" + a + "' is not used");
}

Decision decide_issue_comment(const config::ApplianceConfig& c, const IssueCommentEvent& e,
                              const std::string& delivery_id) {
  const RepositoryPolicy* p = find_policy(c, e.repository.full_name);
  if (!p) return not_watched(e.repository.full_name);
  const std::string name = pr_name(e.repository.full_name, e.issue_number);
  if (e.action != "created") return ignore("comment " + e.action + ": only new comments bless");
  if (!e.on_pull_request) return ignore("comment on " + name + ", which is not a pull request");
  if (p->bless_command.empty() || !has_command(e.body, p->bless_command))
    return ignore("comment on " + name + " has no '" + p->bless_command + "'");
  if (!may_bless(*p, e.commenter)) return ignore("user '" + e.commenter + "' may not bless " + name);
  Decision d;
  d.action = Action::bless;
  d.reason = "blessed " + name + " by comment from " + e.commenter;
  d.bless = {e.repository.full_name, e.issue_number, e.commenter, delivery_id, e.repository.clone_url};
  return d;
}

struct Decide {
  const config::ApplianceConfig& c;
  const std::string& delivery_id;

  Result<Decision> operator()(const PingEvent&) const {
    Decision d;
    d.action = Action::pong;
    d.reason = "ping";
    return d;
  }
  Result<Decision> operator()(const PushEvent& e) const { return decide_push(c, e, delivery_id); }
  Result<Decision> operator()(const CreateEvent& e) const { return decide_create(c, e); }
  Result<Decision> operator()(const PullRequestEvent& e) const {
    return decide_pull_request(c, e, delivery_id);
  }
  Result<Decision> operator()(const IssueCommentEvent& e) const {
    return decide_issue_comment(c, e, delivery_id);
  }
  Result<Decision> operator()(const OtherEvent& e) const {
    return ignore("event '" + e.name + "' is not used");
  }
};

}  // namespace

const char* to_string(Decision::Action a) {
  switch (a) {
    case Action::pong: return "pong";
    case Action::ignore: return "ignore";
    case Action::record: return "record";
    case Action::enqueue: return "enqueue";
    case Action::bless: return "bless";
  }
  return "ignore";
}

Result<Decision> decide(const config::ApplianceConfig& config, const Event& event,
                        const std::string& delivery_id) {
  return std::visit(Decide{config, delivery_id}, event);
}

Decision bless_job(const config::ApplianceConfig& config, const BlessRequest& request,
                   const std::optional<model::PullRequest>& recorded) {
  const RepositoryPolicy* p = find_policy(config, request.repository);
  if (!p) return not_watched(request.repository);
  const std::string name = pr_name(request.repository, request.number);
  model::PullRequest pr;
  if (recorded) {
    if (recorded->state == "closed") return ignore(name + " is closed");
    pr = *recorded;
    pr.repository = request.repository;
    pr.number = request.number;
  } else {
    // Never recorded (benchbox was installed after the PR was opened): the
    // runner resolves refs/pull/N/head itself.
    pr.repository = request.repository;
    pr.number = request.number;
    pr.base_ref = "refs/heads/" + (p->branches.empty() ? std::string("main") : p->branches.front());
  }
  auto d = enqueue(pull_request_job(*p, pr, request.clone_url, request.requested_by, request.delivery_id),
                   "blessed " + name + " by " + request.requested_by +
                       (recorded ? "" : " (never recorded: head resolved by the runner)"));
  if (!d) return ignore("recorded " + name + " cannot be run: " + d.error().message);
  return std::move(*d);
}

bool has_command(const std::string& body, const std::string& command) {
  if (command.empty()) return false;
  for (const std::string& raw : split(body, '\n')) {
    std::string line = trim(raw);
    if (!starts_with(line, command)) continue;
    if (line.size() == command.size() || std::isspace(static_cast<unsigned char>(line[command.size()])))
      return true;
  }
  return false;
}

}  // namespace bb::github
