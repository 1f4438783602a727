#include "github_api/want.h"

#include "util/json_read.h"

namespace bb::github_api {

namespace {

using nlohmann::json;

json fields(const CheckRunWant& w) {
  return {{"repository", w.repository}, {"head_sha", w.head_sha},   {"name", w.name},
          {"external_id", w.external_id}, {"status", w.status},     {"conclusion", w.conclusion},
          {"title", w.title},             {"summary", w.summary},   {"text", w.text},
          {"details_url", w.details_url}, {"started_at", w.started_at}, {"completed_at", w.completed_at}};
}

json fields(const CommentWant& w) {
  return {{"repository", w.repository}, {"number", w.number}, {"body", w.body}, {"create", w.create}};
}

json fields(const IssueWant& w) {
  return {{"repository", w.repository}, {"marker", w.marker}, {"title", w.title}, {"body", w.body},
          {"labels", w.labels},         {"open", w.open},     {"closing_comment", w.closing_comment}};
}

// Reads every listed member; the first of the wrong type is named.
struct Reader {
  const json& obj;
  std::string bad;
  template <class T>
  Reader& operator()(const char* key, T& out) {
    if (bad.empty() && !read_member(obj, key, out)) bad = key;
    return *this;
  }
};

Result<Want> finish(Want want, const Reader& r, const std::string& repository) {
  if (!r.bad.empty())
    return make_error(Errc::parse, "want for " + want.target + ": field '" + r.bad + "' has the wrong type");
  if (repository.empty()) return make_error(Errc::parse, "want for " + want.target + " names no repository");
  return want;
}

}  // namespace

const char* kind_of(const Want& want) {
  switch (want.what.index()) {
    case 0: return "check_run";
    case 1: return "comment";
    default: return "issue";
  }
}

json to_json(const Want& want) {
  json what = std::visit([](const auto& w) { return fields(w); }, want.what);
  return {{"target", want.target}, {"kind", kind_of(want)}, {"want", std::move(what)}};
}

Result<Want> want_from_json(const json& j) {
  if (!j.is_object()) return make_error(Errc::parse, "a want is a JSON object");
  Want want;
  std::string kind;
  if (!read_member(j, "target", want.target) || want.target.empty())
    return make_error(Errc::parse, "want has no target");
  if (!read_member(j, "kind", kind)) return make_error(Errc::parse, "want for " + want.target + " has no kind");
  auto it = j.find("want");
  if (it == j.end() || !it->is_object())
    return make_error(Errc::parse, "want for " + want.target + " has no 'want' object");
  Reader r{*it, {}};
  if (kind == "check_run") {
    CheckRunWant w;
    r("repository", w.repository)("head_sha", w.head_sha)("name", w.name)("external_id", w.external_id);
    r("status", w.status)("conclusion", w.conclusion)("title", w.title)("summary", w.summary)("text", w.text);
    r("details_url", w.details_url)("started_at", w.started_at)("completed_at", w.completed_at);
    std::string repo = w.repository;
    want.what = std::move(w);
    return finish(std::move(want), r, repo);
  }
  if (kind == "comment") {
    CommentWant w;
    r("repository", w.repository)("number", w.number)("body", w.body)("create", w.create);
    std::string repo = w.repository;
    want.what = std::move(w);
    return finish(std::move(want), r, repo);
  }
  if (kind == "issue") {
    IssueWant w;
    r("repository", w.repository)("marker", w.marker)("title", w.title)("body", w.body)("labels", w.labels);
    r("open", w.open)("closing_comment", w.closing_comment);
    std::string repo = w.repository;
    want.what = std::move(w);
    return finish(std::move(want), r, repo);
  }
  return make_error(Errc::parse, "want for " + want.target + " has unknown kind '" + kind + "'");
}

std::string check_run_target(const std::string& repository, int64_t job_id) {
  return "check-run/" + repository + "/" + std::to_string(job_id);
}

std::string shards_check_run_target(const std::string& repository, int64_t group_id) {
  return "check-run/" + repository + "/group-" + std::to_string(group_id);
}

std::string comment_target(const std::string& repository, int64_t pr_number) {
  return "comment/" + repository + "/" + std::to_string(pr_number);
}

std::string issue_target(const std::string& repository, const std::string& marker) {
  return "issue/" + repository + "/" + marker;
}

}  // namespace bb::github_api
