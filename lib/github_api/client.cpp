#include "github_api/client.h"

#include <curl/curl.h>

#include <memory>

#include "github_api/app_jwt.h"
#include "util/json_read.h"
#include "util/version.h"

namespace bb::github_api {

namespace {

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t collect(char* data, size_t size, size_t n, void* userdata) {
  static_cast<std::string*>(userdata)->append(data, size * n);
  return size * n;
}

// GitHub's "message" field, or the raw body when there is none.
std::string api_message(const ApiReply& reply) {
  auto j = nlohmann::json::parse(reply.body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"];
  return reply.body.substr(0, 200);
}

int64_t parse_time(const std::string& iso) {
  struct tm tm {};
  if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

Client::Client(std::string api_url, int64_t app_id, std::string private_key_pem, const Clock& clock)
    : api_url_(std::move(api_url)), app_id_(app_id), key_pem_(std::move(private_key_pem)), clock_(clock) {
  while (!api_url_.empty() && api_url_.back() == '/') api_url_.pop_back();
}

Result<ApiReply> Client::call(const std::string& method, const std::string& path, const std::string& bearer,
                              const nlohmann::json* body) {
  std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) return make_error(Errc::internal, "curl_easy_init failed");
  std::unique_ptr<curl_slist, SlistFree> headers;
  auto add = [&](const std::string& h) { headers.reset(curl_slist_append(headers.release(), h.c_str())); };
  add("Accept: application/vnd.github+json");
  add("X-GitHub-Api-Version: 2022-11-28");
  add(std::string("User-Agent: benchbox/") + bb::version());
  add("Authorization: Bearer " + bearer);
  std::string payload;
  if (body) {
    payload = body->dump();
    add("Content-Type: application/json");
  }
  ApiReply reply;
  std::string url = api_url_ + path;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (body) {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK)
    return make_error(Errc::unavailable, method + " " + url + ": " + curl_easy_strerror(rc));
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

Result<std::string> Client::installation_token(const std::string& repository) {
  int64_t now = clock_.now_unix();
  auto cached = tokens_.find(repository);
  if (cached != tokens_.end() && cached->second.expires > now + 60) return cached->second.value;
  auto jwt = make_app_jwt(app_id_, key_pem_, now);
  if (!jwt) return jwt.error();
  auto inst = call("GET", "/repos/" + repository + "/installation", *jwt, nullptr);
  if (!inst) return inst.error();
  if (inst->status != 200)
    return make_error(Errc::unavailable, "GitHub App is not installed on " + repository + " (HTTP " +
                                             std::to_string(inst->status) + ": " + api_message(*inst) + ")");
  auto inst_json = nlohmann::json::parse(inst->body, nullptr, false);
  std::optional<int64_t> inst_id;
  if (inst_json.is_object() && inst_json.contains("id")) inst_id = json_as<int64_t>(inst_json["id"]);
  if (!inst_id) return make_error(Errc::parse, "installation reply for " + repository + " has no integer id");
  std::string path = "/app/installations/" + std::to_string(*inst_id) + "/access_tokens";
  auto tok = call("POST", path, *jwt, nullptr);
  if (!tok) return tok.error();
  if (tok->status != 201)
    return make_error(Errc::unavailable, "installation token refused (HTTP " + std::to_string(tok->status) +
                                             ": " + api_message(*tok) + ")");
  auto tok_json = nlohmann::json::parse(tok->body, nullptr, false);
  if (!tok_json.is_object() || !tok_json.contains("token") || !tok_json["token"].is_string())
    return make_error(Errc::parse, "installation token reply has no token");
  Token t{tok_json["token"], parse_time(tok_json.value("expires_at", ""))};
  if (t.expires == 0) t.expires = now + 3000;
  tokens_[repository] = t;
  return t.value;
}

Result<nlohmann::json> Client::call_json(const std::string& method, const std::string& path,
                                         const std::string& repository, const nlohmann::json* body,
                                         long expected_status) {
  auto token = installation_token(repository);
  if (!token) return token.error();
  auto reply = call(method, path, *token, body);
  if (!reply) return reply.error();
  if (reply->status != expected_status)
    return make_error(reply->status == 404 ? Errc::not_found : Errc::unavailable,
                      method + " " + path + ": HTTP " + std::to_string(reply->status) + ": " + api_message(*reply));
  auto j = nlohmann::json::parse(reply->body, nullptr, false);
  if (j.is_discarded()) return make_error(Errc::parse, method + " " + path + ": reply is not JSON");
  return j;
}

Result<int64_t> Client::create_check_run(const std::string& repository, const std::string& head_sha,
                                         const std::string& name, const std::string& conclusion,
                                         const std::string& title, const std::string& summary) {
  // GitHub caps output.summary at 65535 characters.
  nlohmann::json body = {{"name", name},
                         {"head_sha", head_sha},
                         {"status", "completed"},
                         {"conclusion", conclusion},
                         {"output", {{"title", title}, {"summary", summary.substr(0, 65000)}}}};
  auto j = call_json("POST", "/repos/" + repository + "/check-runs", repository, &body, 201);
  if (!j) return j.error();
  return j->value("id", int64_t{0});
}

Result<int64_t> Client::upsert_sticky_comment(const std::string& repository, int64_t pr_number,
                                              const std::string& body_text) {
  std::string text = std::string(kStickyMarker) + "\n" + body_text;
  for (int page = 1; page <= 20; ++page) {
    auto list = call_json("GET", "/repos/" + repository + "/issues/" + std::to_string(pr_number) +
                                     "/comments?per_page=100&page=" + std::to_string(page),
                          repository, nullptr, 200);
    if (!list) return list.error();
    if (!list->is_array() || list->empty()) break;
    for (const auto& c : *list) {
      if (!c.is_object() || !c.contains("body") || !c["body"].is_string()) continue;
      if (c["body"].get<std::string>().find(kStickyMarker) == std::string::npos) continue;
      int64_t id = c.value("id", int64_t{0});
      nlohmann::json patch = {{"body", text}};
      auto edited = call_json("PATCH", "/repos/" + repository + "/issues/comments/" + std::to_string(id),
                              repository, &patch, 200);
      if (!edited) return edited.error();
      return id;
    }
    if (list->size() < 100) break;
  }
  nlohmann::json post = {{"body", text}};
  auto created = call_json("POST", "/repos/" + repository + "/issues/" + std::to_string(pr_number) + "/comments",
                           repository, &post, 201);
  if (!created) return created.error();
  return created->value("id", int64_t{0});
}

Result<int64_t> Client::open_issue(const std::string& repository, const std::string& title,
                                   const std::string& body) {
  nlohmann::json post = {{"title", title}, {"body", body.substr(0, 65000)}};
  auto created = call_json("POST", "/repos/" + repository + "/issues", repository, &post, 201);
  if (!created) return created.error();
  return created->value("number", int64_t{0});
}

}  // namespace bb::github_api
