#include "github_api/sender.h"

#include <algorithm>

#include "util/json_read.h"
#include "util/text.h"

namespace bb::github_api {

namespace {

using nlohmann::json;

// Listing stops after this many pages of 100: a comment or issue further
// back is not found (and made again) rather than listing forever.
constexpr int kMaxPages = 50;

// A string that is valid UTF-8 (invalid bytes become U+FFFD), so a cut by
// bytes is a cut by characters and the JSON that carries it is valid.
std::string clean_utf8(const std::string& text) {
  json j = text;
  return json::parse(j.dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
}

std::string cut(const std::string& text, size_t max_bytes) {
  return std::string(utf8_prefix(clean_utf8(text), max_bytes));
}

int64_t id_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  return json_as<int64_t>(j[key]).value_or(0);
}

std::string string_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  return json_as<std::string>(j[key]).value_or("");
}

PostedObject object_of(const json& j, const char* id_key) { return {id_of(j, id_key), string_of(j, "html_url")}; }

json check_run_body(const CheckRunWant& w, bool create) {
  json body = {{"name", w.name}};
  if (create) body["head_sha"] = w.head_sha;
  if (!w.status.empty()) body["status"] = w.status;
  if (w.status == "completed" && !w.conclusion.empty()) body["conclusion"] = w.conclusion;
  if (!w.external_id.empty()) body["external_id"] = w.external_id;
  if (!w.details_url.empty()) body["details_url"] = w.details_url;
  if (w.started_at != 0) body["started_at"] = format_utc(w.started_at);
  if (w.completed_at != 0) body["completed_at"] = format_utc(w.completed_at);
  if (!w.title.empty()) {
    json output = {{"title", cut(w.title, kMaxTitle)}, {"summary", cut(w.summary, kMaxSummary)}};
    if (!w.text.empty()) output["text"] = cut(w.text, kMaxText);
    body["output"] = std::move(output);
  }
  return body;
}

// GitHub's limit on an issue's title (a check run's output.title is kMaxTitle).
constexpr size_t kMaxIssueTitle = 256;

// The HTML comment that finds an issue again. Its text may not hold "--" or
// '>' (a ref may: "refs/heads/a--b"), so those and '%' are percent-encoded:
// one spelling per marker, still readable for the usual ones.
// The hidden line that lets a closing comment be found again after a reply
// that did not say whether it was made.
std::string closing_tag(const std::string& nonce) { return "<!-- benchbox:closing:" + nonce + " -->"; }

std::string issue_tag(const std::string& marker) {
  std::string text;
  for (unsigned char c : marker) {
    if (c == '-' || c == '>' || c == '<' || c == '%' || c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789ABCDEF";
      text += '%';
      text += hex[c >> 4];
      text += hex[c & 15];
    } else {
      text += static_cast<char>(c);
    }
  }
  return "<!-- benchbox:issue:" + text + " -->";
}

}  // namespace

struct Sender::Attempt {
  const OutboxItem& item;
  std::string repository;
  SendOutcome failure;         // set by call() when it returns false

  SendOutcome done(PostedObject object, std::string action) const {
    SendOutcome o;
    o.kind = SendOutcome::Kind::done;
    o.object = std::move(object);
    o.action = std::move(action);
    return o;
  }
};

Sender::Sender(Client& client, Outbox& outbox, const Clock& clock, RetryPolicy policy)
    : client_(client), outbox_(outbox), clock_(clock), policy_(policy) {}

namespace {

SendOutcome from_judgement(const Judgement& j) {
  SendOutcome o;
  o.kind = j.kind == Judgement::Kind::drop ? SendOutcome::Kind::drop : SendOutcome::Kind::retry;
  o.retry_at = j.retry_at;
  o.outcome_unknown = j.outcome_unknown;
  o.error = j.reason;
  return o;
}

// A failure on this side (the outbox, the App key): a retry with backoff,
// judged like a network error that never left the machine.
SendOutcome local_failure(const OutboxItem& item, const std::string& why, int64_t now, const RetryPolicy& p) {
  ApiReply r;
  r.request = "benchbox";
  r.transport_error = why;
  return from_judgement(classify(r, item.attempts, item.first_queued, now, p));
}

}  // namespace

bool Sender::call(Attempt& a, const std::string& method, const std::string& path, const json* body,
                  ApiReply& reply) {
  reply = ApiReply{};
  if (stop_ && stop_->load()) {
    a.failure = SendOutcome{};
    a.failure.kind = SendOutcome::Kind::retry;
    a.failure.interrupted = true;
    a.failure.error = "stopping";
    return false;
  }
  const int64_t now = clock_.now_unix();
  if (pause_until_ > now) {
    // A rate limit announced by an earlier reply of this very attempt.
    a.failure = SendOutcome{};
    a.failure.kind = SendOutcome::Kind::retry;
    a.failure.retry_at = pause_until_;
    a.failure.error = "GitHub's rate limit: sending paused until " + format_utc(pause_until_);
    return false;
  }
  auto r = client_.request(method, a.repository, path, body);
  if (!r) {
    a.failure = local_failure(a.item, method + " " + path + ": " + r.error().message, now, policy_);
    return false;
  }
  reply = std::move(*r);
  Judgement j = classify(reply, a.item.attempts, a.item.first_queued, now, policy_);
  pause_until_ = std::max(pause_until_, j.pause_until);
  if (j.kind == Judgement::Kind::ok) return true;
  a.failure = from_judgement(j);
  return false;
}

SendOutcome Sender::send(const OutboxItem& item) {
  Attempt a{item, "", {}};
  SendOutcome out;
  try {
    switch (item.want.what.index()) {
      case 0: a.repository = std::get<CheckRunWant>(item.want.what).repository; out = send_check_run(a); break;
      case 1: a.repository = std::get<CommentWant>(item.want.what).repository; out = send_comment(a); break;
      default: a.repository = std::get<IssueWant>(item.want.what).repository; out = send_issue(a); break;
    }
  } catch (const std::exception& e) {
    // Nothing here should throw; if it does, the item waits instead of
    // taking the caller down.
    out = local_failure(item, std::string("unexpected: ") + e.what(), clock_.now_unix(), policy_);
  }
  if (pause_until_ > clock_.now_unix()) out.pause_until = pause_until_;
  return out;
}

SendOutcome Sender::send_check_run(Attempt& a) {
  const auto& w = std::get<CheckRunWant>(a.item.want.what);
  const std::string& target = a.item.want.target;
  const std::string base = "/repos/" + w.repository + "/check-runs";
  const int64_t now = clock_.now_unix();
  auto known = outbox_.posted(target);
  if (!known) return local_failure(a.item, known.error().message, now, policy_);
  PostedObject run = known->value_or(PostedObject{});
  ApiReply reply;
  if (run.id == 0 && a.item.outcome_unknown && !w.external_id.empty()) {
    // The last create may have reached GitHub with its reply lost: look for
    // the run it would have made (filter=all: not only the latest by name).
    for (int page = 1; page <= kMaxPages && run.id == 0; ++page) {
      if (!call(a, "GET", "/repos/" + w.repository + "/commits/" + w.head_sha + "/check-runs?check_name=" +
                               url_encode(w.name) + "&filter=all&per_page=100&page=" + std::to_string(page),
                nullptr, reply))
        return a.failure;
      json list = reply.json();
      if (!list.is_object() || !list.contains("check_runs") || !list["check_runs"].is_array()) break;
      for (const auto& r : list["check_runs"])
        if (string_of(r, "external_id") == w.external_id) run = object_of(r, "id");
      if (list["check_runs"].size() < 100) break;
    }
    if (run.id != 0)
      if (auto st = outbox_.remember(target, run); !st) return local_failure(a.item, st.error().message, now, policy_);
  }
  if (run.id != 0) {
    json body = check_run_body(w, false);
    if (!call(a, "PATCH", base + "/" + std::to_string(run.id), &body, reply)) return a.failure;
    PostedObject now_shown = object_of(reply.json(), "id");
    if (now_shown.html_url.empty()) now_shown.html_url = run.html_url;
    now_shown.id = run.id;
    return a.done(now_shown, "updated");
  }
  json body = check_run_body(w, true);
  // Doubt first, durably: GitHub may make the run and reporterd die before
  // the reply is remembered. Only a check run needs this; the comment and
  // the issue are always looked for by their marker before they are made.
  if (!w.external_id.empty())
    if (auto st = outbox_.doubt(target); !st) return local_failure(a.item, st.error().message, now, policy_);
  if (!call(a, "POST", base, &body, reply)) return a.failure;
  PostedObject made = object_of(reply.json(), "id");
  if (made.id == 0) {
    SendOutcome o = local_failure(a.item, reply.request + ": the reply names no check run id", now, policy_);
    o.outcome_unknown = true;
    return o;
  }
  if (auto st = outbox_.remember(target, made); !st) {
    SendOutcome o = local_failure(a.item, st.error().message, now, policy_);
    o.outcome_unknown = true;
    return o;
  }
  return a.done(made, "created");
}

SendOutcome Sender::send_comment(Attempt& a) {
  const auto& w = std::get<CommentWant>(a.item.want.what);
  const std::string& target = a.item.want.target;
  const int64_t now = clock_.now_unix();
  const std::string marker = kStickyMarker;
  const json body = {{"body", marker + "\n" + cut(w.body, kMaxBody - marker.size() - 1)}};
  const std::string comments = "/repos/" + w.repository + "/issues/comments/";
  ApiReply reply;

  auto known = outbox_.posted(target);
  if (!known) return local_failure(a.item, known.error().message, now, policy_);
  if (*known && (*known)->id != 0) {
    if (call(a, "PATCH", comments + std::to_string((*known)->id), &body, reply)) {
      PostedObject shown = object_of(reply.json(), "id");
      shown.id = (*known)->id;
      if (shown.html_url.empty()) shown.html_url = (*known)->html_url;
      return a.done(shown, "updated");
    }
    if (reply.status != 404) return a.failure;
    // Someone deleted it: look again, and make a new one if it is gone.
    if (auto st = outbox_.forget(target); !st) return local_failure(a.item, st.error().message, now, policy_);
  }

  for (int page = 1; page <= kMaxPages; ++page) {
    if (!call(a, "GET", "/repos/" + w.repository + "/issues/" + std::to_string(w.number) +
                             "/comments?per_page=100&page=" + std::to_string(page),
              nullptr, reply))
      return a.failure;
    json list = reply.json();
    if (!list.is_array()) break;
    for (const auto& c : list) {
      if (string_of(c, "body").rfind(marker, 0) != 0) continue;
      PostedObject found = object_of(c, "id");
      if (found.id == 0) continue;
      if (auto st = outbox_.remember(target, found); !st)
        return local_failure(a.item, st.error().message, now, policy_);
      if (call(a, "PATCH", comments + std::to_string(found.id), &body, reply)) return a.done(found, "updated");
      // Deleted between the list and the edit: try again soon, not never.
      if (reply.status == 404) return local_failure(a.item, reply.describe(), now, policy_);
      return a.failure;
    }
    if (list.size() < 100) break;
  }
  if (!w.create) return a.done({}, "");
  if (!call(a, "POST", "/repos/" + w.repository + "/issues/" + std::to_string(w.number) + "/comments", &body, reply))
    return a.failure;
  PostedObject made = object_of(reply.json(), "id");
  if (made.id != 0)
    if (auto st = outbox_.remember(target, made); !st) return local_failure(a.item, st.error().message, now, policy_);
  return a.done(made, "created");
}

SendOutcome Sender::send_issue(Attempt& a) {
  const auto& w = std::get<IssueWant>(a.item.want.what);
  const std::string& target = a.item.want.target;
  const int64_t now = clock_.now_unix();
  SendOutcome refused;
  refused.kind = SendOutcome::Kind::drop;
  const std::string tag = issue_tag(w.marker);
  if (w.marker.empty() || tag.size() > 1000) {
    refused.error = "an issue needs a marker of at most a few hundred bytes to be found again";
    return refused;
  }
  const std::string repo_path = "/repos/" + w.repository + "/issues";
  const std::string body_text = cut(w.body, kMaxBody - tag.size() - 2) + "\n\n" + tag;
  const std::string title = cut(w.title, kMaxIssueTitle);
  ApiReply reply;

  PostedObject issue;
  std::string state;
  auto known = outbox_.posted(target);
  if (!known) return local_failure(a.item, known.error().message, now, policy_);
  if (*known && (*known)->id != 0) {
    // Its state decides whether the closing comment is still to be said.
    if (call(a, "GET", repo_path + "/" + std::to_string((*known)->id), nullptr, reply)) {
      issue = object_of(reply.json(), "number");
      state = string_of(reply.json(), "state");
    } else if (reply.status == 404 || reply.status == 410) {
      if (auto st = outbox_.forget(target); !st) return local_failure(a.item, st.error().message, now, policy_);
    } else {
      return a.failure;
    }
  }
  if (issue.id == 0) {
    std::string query = "?state=all&per_page=100";
    if (!w.labels.empty()) query += "&labels=" + url_encode(w.labels.front());
    for (int page = 1; page <= kMaxPages && issue.id == 0; ++page) {
      if (!call(a, "GET", repo_path + query + "&page=" + std::to_string(page), nullptr, reply)) return a.failure;
      json list = reply.json();
      if (!list.is_array()) break;
      for (const auto& i : list) {
        if (i.contains("pull_request") || string_of(i, "body").find(tag) == std::string::npos) continue;
        issue = object_of(i, "number");
        state = string_of(i, "state");
        break;
      }
      if (list.size() < 100) break;
    }
    if (issue.id != 0)
      if (auto st = outbox_.remember(target, issue); !st)
        return local_failure(a.item, st.error().message, now, policy_);
  }

  if (issue.id == 0) {
    if (!w.open) return a.done({}, "");  // closing what never existed: nothing to do
    json post = {{"title", title}, {"body", body_text}, {"labels", w.labels}};
    if (!call(a, "POST", repo_path, &post, reply)) return a.failure;
    PostedObject made = object_of(reply.json(), "number");
    if (made.id != 0)
      if (auto st = outbox_.remember(target, made); !st)
        return local_failure(a.item, st.error().message, now, policy_);
    if (auto st = outbox_.set_note(target, "closing_comment", ""); !st)
      return local_failure(a.item, st.error().message, now, policy_);
    return a.done(made, "created");
  }

  const std::string number = std::to_string(issue.id);
  auto said = outbox_.note(target, "closing_comment");
  if (!said) return local_failure(a.item, said.error().message, now, policy_);
  if (!w.open && !w.closing_comment.empty() && *said != "posted" && state != "closed") {
    // Said before closing, and noted, so a retry after a failed close does
    // not say it twice. The note says "sending:<nonce>" while the outcome
    // of the POST is unknown (a lost reply, a gateway's 502): the comment
    // carries the nonce, so a retry finds it instead of saying it again.
    std::string nonce = said->rfind("sending:", 0) == 0 ? said->substr(8) : "";
    bool found = false;
    if (!nonce.empty())
      for (int page = 1; page <= kMaxPages && !found; ++page) {
        if (!call(a, "GET", repo_path + "/" + number + "/comments?per_page=100&page=" + std::to_string(page), nullptr,
                  reply))
          return a.failure;
        json list = reply.json();
        if (!list.is_array()) break;
        for (const auto& c : list) found = found || string_of(c, "body").find(closing_tag(nonce)) != std::string::npos;
        if (list.size() < 100) break;
      }
    if (!found) {
      if (nonce.empty()) {
        nonce = std::to_string(now) + "-" + std::to_string(a.item.version);
        if (auto st = outbox_.set_note(target, "closing_comment", "sending:" + nonce); !st)
          return local_failure(a.item, st.error().message, now, policy_);
      }
      const std::string tag = closing_tag(nonce);
      json comment = {{"body", cut(w.closing_comment, kMaxBody - tag.size() - 2) + "\n\n" + tag}};
      if (!call(a, "POST", repo_path + "/" + number + "/comments", &comment, reply)) return a.failure;
    }
    if (auto st = outbox_.set_note(target, "closing_comment", "posted"); !st)
      return local_failure(a.item, st.error().message, now, policy_);
  }
  if (w.open && !said->empty())
    // Open again: the next close has something to say again.
    if (auto st = outbox_.set_note(target, "closing_comment", ""); !st)
      return local_failure(a.item, st.error().message, now, policy_);
  json patch = {{"title", title}, {"body", body_text}, {"state", w.open ? "open" : "closed"}};
  if (!call(a, "PATCH", repo_path + "/" + number, &patch, reply)) return a.failure;
  PostedObject shown = object_of(reply.json(), "number");
  shown.id = issue.id;
  if (shown.html_url.empty()) shown.html_url = issue.html_url;
  return a.done(shown, "updated");
}

Status record(Outbox& outbox, const OutboxItem& item, const SendOutcome& outcome) {
  if (outcome.interrupted) return {};
  switch (outcome.kind) {
    case SendOutcome::Kind::done: return outbox.sent(item.want.target, item.version, outcome.object);
    case SendOutcome::Kind::retry:
      return outbox.retry(item.want.target, outcome.retry_at, outcome.error, outcome.outcome_unknown);
    case SendOutcome::Kind::drop: return outbox.drop(item.want.target, outcome.error, item.version);
  }
  return {};
}

}  // namespace bb::github_api
