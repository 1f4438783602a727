#include "github/payload.h"

#include "github/payload_fields.h"

namespace bb::github {

namespace {

using detail::Fields;

// Assigns a Result's value or returns its error from the enclosing function.
#define BB_TAKE(target, expr)              \
  do {                                     \
    auto r_ = (expr);                      \
    if (!r_) return r_.error();            \
    target = std::move(*r_);               \
  } while (0)

Result<Repository> parse_repository(const Fields& f) {
  Repository r;
  BB_TAKE(r.full_name, f.string("repository.full_name"));
  BB_TAKE(r.clone_url, f.string("repository.clone_url"));
  return r;
}

Result<Event> parse_ping(const Fields& f) {
  PingEvent e;
  BB_TAKE(e.zen, f.optional_string("zen"));
  if (f.has("hook_id")) BB_TAKE(e.hook_id, f.integer("hook_id"));
  BB_TAKE(e.repository, f.optional_string("repository.full_name"));
  return Event(e);
}

Result<Event> parse_push(const Fields& f) {
  PushEvent e;
  BB_TAKE(e.repository, parse_repository(f));
  BB_TAKE(e.ref, f.string("ref"));
  BB_TAKE(e.before, f.string("before"));
  BB_TAKE(e.after, f.string("after"));
  BB_TAKE(e.deleted, f.boolean("deleted"));
  e.created = f.optional_bool("created");
  e.forced = f.optional_bool("forced");
  BB_TAKE(e.sender, f.string("sender.login"));
  return Event(e);
}

Result<Event> parse_create(const Fields& f) {
  CreateEvent e;
  BB_TAKE(e.repository, parse_repository(f));
  BB_TAKE(e.ref, f.string("ref"));
  BB_TAKE(e.ref_type, f.string("ref_type"));
  BB_TAKE(e.sender, f.string("sender.login"));
  return Event(e);
}

Result<Event> parse_pull_request(const Fields& f) {
  PullRequestEvent e;
  BB_TAKE(e.repository, parse_repository(f));
  BB_TAKE(e.action, f.string("action"));
  BB_TAKE(e.number, f.integer("number"));
  BB_TAKE(e.state, f.string("pull_request.state"));
  e.merged = f.optional_bool("pull_request.merged");
  BB_TAKE(e.head_sha, f.string("pull_request.head.sha"));
  BB_TAKE(e.head_ref, f.string("pull_request.head.ref"));
  // For people only: an event without them is still measured.
  BB_TAKE(e.title, f.optional_string("pull_request.title"));
  BB_TAKE(e.author, f.optional_string("pull_request.user.login"));
  // head.repo is null when the fork was deleted.
  BB_TAKE(e.head_clone_url, f.optional_string("pull_request.head.repo.clone_url"));
  BB_TAKE(e.base_sha, f.string("pull_request.base.sha"));
  BB_TAKE(e.base_ref, f.string("pull_request.base.ref"));
  if (e.action == "labeled" || e.action == "unlabeled") BB_TAKE(e.label, f.string("label.name"));
  BB_TAKE(e.sender, f.string("sender.login"));
  return Event(e);
}

Result<Event> parse_issue_comment(const Fields& f) {
  IssueCommentEvent e;
  BB_TAKE(e.repository, parse_repository(f));
  BB_TAKE(e.action, f.string("action"));
  BB_TAKE(e.issue_number, f.integer("issue.number"));
  e.on_pull_request = f.has("issue.pull_request");
  BB_TAKE(e.body, f.optional_string("comment.body"));
  BB_TAKE(e.commenter, f.string("comment.user.login"));
  BB_TAKE(e.sender, f.string("sender.login"));
  return Event(e);
}

#undef BB_TAKE

struct RepositoryName {
  std::string operator()(const PingEvent& e) const { return e.repository; }
  std::string operator()(const OtherEvent& e) const { return e.repository; }
  template <class E>
  std::string operator()(const E& e) const { return e.repository.full_name; }
};

}  // namespace

Result<Event> parse_event(std::string_view event_name, std::string_view body) {
  std::string name(event_name);
  if (name.empty()) return make_error(Errc::invalid_argument, "missing X-GitHub-Event header");
  std::unique_ptr<Fields> fields = detail::simdjson_fields(body, name);
  if (!fields) {
    auto read = detail::nlohmann_fields(body, name);
    if (!read) return read.error();
    fields = std::move(*read);
  }
  const Fields& f = *fields;
  try {
    if (name == "ping") return parse_ping(f);
    if (name == "push") return parse_push(f);
    if (name == "create") return parse_create(f);
    if (name == "pull_request") return parse_pull_request(f);
    if (name == "issue_comment") return parse_issue_comment(f);
    OtherEvent other{name, {}};
    auto repo = f.optional_string("repository.full_name");
    if (repo) other.repository = *repo;
    return Event(other);
  } catch (const std::exception& e) {
    // Not expected (every access is checked); keeps the no-throw promise.
    return make_error(Errc::internal, name + " payload: " + e.what());
  }
}

std::string repository_of(const Event& event) { return std::visit(RepositoryName{}, event); }

}  // namespace bb::github
