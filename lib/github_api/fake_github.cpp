#include "github_api/fake_github.h"

#include <regex>
#include <stdexcept>

#include "github_api/app_jwt.h"

namespace bb::github_api {

namespace {

constexpr const char* kToken = "ghs_fake_installation_token";

struct Upload {
  std::string body;
};

}  // namespace

FakeGitHub::FakeGitHub(std::string public_key_pem, std::vector<std::string> installed)
    : public_key_pem_(std::move(public_key_pem)), installed_(std::move(installed)) {
  daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, nullptr, nullptr,
                             &FakeGitHub::on_request, this, MHD_OPTION_END);
  if (!daemon_) throw std::runtime_error("fake GitHub: cannot start HTTP server");
  const union MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  port_ = info ? info->port : 0;
}

FakeGitHub::~FakeGitHub() {
  if (daemon_) MHD_stop_daemon(daemon_);
}

std::vector<RecordedRequest> FakeGitHub::requests() {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

nlohmann::json FakeGitHub::comments(const std::string& repository, int64_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = comments_.find(repository + "#" + std::to_string(number));
  return it == comments_.end() ? nlohmann::json::array() : it->second;
}

void FakeGitHub::add_comment(const std::string& repository, int64_t number, const std::string& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& list = comments_[repository + "#" + std::to_string(number)];
  if (list.is_null()) list = nlohmann::json::array();
  list.push_back({{"id", ++next_id_}, {"body", body}});
}

std::vector<nlohmann::json> FakeGitHub::check_runs() {
  std::lock_guard<std::mutex> lock(mutex_);
  return check_runs_;
}

std::vector<nlohmann::json> FakeGitHub::issues() {
  std::lock_guard<std::mutex> lock(mutex_);
  return issues_;
}

MHD_Result FakeGitHub::on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                                  const char*, const char* upload, size_t* upload_size, void** state) {
  auto* self = static_cast<FakeGitHub*>(cls);
  if (!*state) {
    *state = new Upload;
    return MHD_YES;
  }
  auto* up = static_cast<Upload*>(*state);
  if (*upload_size) {
    up->body.append(upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  RecordedRequest r;
  r.method = method;
  r.path = url;
  // Keep the query string: pagination matters.
  for (const char* key : {"per_page", "page"}) {
    const char* v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
    if (v) r.path += std::string(r.path.find('?') == std::string::npos ? "?" : "&") + key + "=" + v;
  }
  const char* auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
  r.authorization = auth ? auth : "";
  r.body = std::move(up->body);
  delete up;
  *state = nullptr;
  Reply reply;
  try {
    reply = self->handle(r);
  } catch (const std::exception& e) {
    reply = {500, {{"message", e.what()}}};
  }
  std::string text = reply.body.dump();
  MHD_Response* resp = MHD_create_response_from_buffer(text.size(), text.data(), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(resp, "Content-Type", "application/json; charset=utf-8");
  MHD_Result ret = MHD_queue_response(c, reply.status, resp);
  MHD_destroy_response(resp);
  return ret;
}

FakeGitHub::Reply FakeGitHub::handle(const RecordedRequest& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  requests_.push_back(r);
  std::smatch m;
  const std::string bearer = r.authorization.rfind("Bearer ", 0) == 0 ? r.authorization.substr(7) : "";
  auto body = nlohmann::json::parse(r.body.empty() ? "null" : r.body, nullptr, false);

  // App-level endpoints take the JWT.
  static const std::regex installation(R"(^/repos/([^/]+/[^/]+)/installation$)");
  static const std::regex access_tokens(R"(^/app/installations/(\d+)/access_tokens$)");
  std::string path = r.path.substr(0, r.path.find('?'));
  if (std::regex_match(path, m, installation) || std::regex_match(path, m, access_tokens)) {
    if (!verify_jwt(bearer, public_key_pem_).ok())
      return {401, {{"message", "A JSON web token could not be decoded"}}};
    if (r.method == "GET") {
      for (const auto& repo : installed_)
        if (repo == m[1].str()) return {200, {{"id", 42}, {"app_id", 1}}};
      return {404, {{"message", "Not Found"}}};
    }
    return {201, {{"token", kToken}, {"expires_at", "2099-01-01T00:00:00Z"}}};
  }

  if (bearer != kToken) return {401, {{"message", "Bad credentials"}}};
  static const std::regex check_runs(R"(^/repos/([^/]+/[^/]+)/check-runs$)");
  static const std::regex issue_comments(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$)");
  static const std::regex comment(R"(^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$)");
  static const std::regex issues(R"(^/repos/([^/]+/[^/]+)/issues$)");
  if (r.method == "POST" && std::regex_match(path, m, check_runs)) {
    if (!body.is_object() || !body.contains("head_sha") || !body.contains("name"))
      return {422, {{"message", "Invalid request: head_sha and name are required"}}};
    body["id"] = ++next_id_;
    check_runs_.push_back(body);
    return {201, body};
  }
  if (std::regex_match(path, m, issue_comments)) {
    auto& list = comments_[m[1].str() + "#" + m[2].str()];
    if (list.is_null()) list = nlohmann::json::array();
    if (r.method == "GET") {
      // Pagination as GitHub does it: per_page (max 100) and page from 1.
      size_t per_page = 30, page = 1;
      std::smatch q;
      static const std::regex per_page_re(R"(per_page=(\d+))"), page_re(R"([?&]page=(\d+))");
      if (std::regex_search(r.path, q, per_page_re)) per_page = std::min<size_t>(100, std::stoul(q[1]));
      if (std::regex_search(r.path, q, page_re)) page = std::stoul(q[1]);
      nlohmann::json out = nlohmann::json::array();
      for (size_t i = (page - 1) * per_page; i < list.size() && i < page * per_page; ++i) out.push_back(list[i]);
      return {200, out};
    }
    if (r.method == "POST") {
      nlohmann::json c = {{"id", ++next_id_}, {"body", body.value("body", "")}};
      list.push_back(c);
      return {201, c};
    }
  }
  if (r.method == "PATCH" && std::regex_match(path, m, comment)) {
    int64_t id = std::stoll(m[2]);
    for (auto& [key, list] : comments_)
      for (auto& c : list)
        if (c["id"] == id) {
          c["body"] = body.value("body", "");
          return {200, c};
        }
    return {404, {{"message", "Not Found"}}};
  }
  if (r.method == "POST" && std::regex_match(path, m, issues)) {
    nlohmann::json issue = {{"number", static_cast<int64_t>(issues_.size() + 1)},
                            {"title", body.value("title", "")},
                            {"body", body.value("body", "")}};
    issues_.push_back(issue);
    return {201, issue};
  }
  return {404, {{"message", "Not Found"}}};
}

}  // namespace bb::github_api
