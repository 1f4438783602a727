#include "github_api/fake_github.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <optional>
#include <regex>
#include <stdexcept>

#include "github_api/app_jwt.h"

namespace bb::github_api {

namespace {

using nlohmann::json;
using Query = std::map<std::string, std::string>;

constexpr const char* kToken = "ghs_fake_installation_token";

struct Upload {
  std::string body;
};

// GitHub counts its limits in characters: UTF-8 code points.
size_t characters(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

json validation_failed(const std::string& resource, const std::string& field, const std::string& code) {
  return {{"message", "Validation Failed"},
          {"errors", json::array({{{"resource", resource}, {"code", code}, {"field", field}}})},
          {"documentation_url", "https://docs.github.com/rest"}};
}

json too_long(size_t limit, size_t got) {
  return {{"message", "Invalid request.\n\nOnly " + std::to_string(limit) + " characters are allowed; " +
                          std::to_string(got) + " were supplied."}};
}

// Pagination as GitHub does it: per_page (default 30, max 100), page from 1.
json page_of(const std::vector<json>& all, const Query& q) {
  size_t per_page = 30, page = 1;
  if (auto it = q.find("per_page"); it != q.end()) per_page = std::clamp<size_t>(std::stoul(it->second), 1, 100);
  if (auto it = q.find("page"); it != q.end()) page = std::max<size_t>(1, std::stoul(it->second));
  json out = json::array();
  for (size_t i = (page - 1) * per_page; i < all.size() && i < page * per_page; ++i) out.push_back(all[i]);
  return out;
}

MHD_Result collect_arg(void* cls, MHD_ValueKind, const char* key, const char* value) noexcept {
  try {
    static_cast<std::vector<std::pair<std::string, std::string>>*>(cls)->emplace_back(key ? key : "",
                                                                                        value ? value : "");
    return MHD_YES;
  } catch (...) {
    return MHD_NO;
  }
}

// libmicrohttpd's error log, without the line a lost reply (on purpose)
// produces each time.
void log_mhd(void*, const char* format, va_list args) noexcept {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  if (std::strstr(line, "Application reported internal error")) return;
  std::fprintf(stderr, "fake GitHub: %s", line);
}

}  // namespace

FakeGitHub::FakeGitHub(std::string public_key_pem, std::vector<std::string> installed)
    : public_key_pem_(std::move(public_key_pem)), installed_(std::move(installed)) {
  // Loopback only: nothing outside this machine may talk to a test's server.
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, nullptr, nullptr,
                             &FakeGitHub::on_request, this, MHD_OPTION_EXTERNAL_LOGGER, &log_mhd, nullptr,
                             MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED,
                             &FakeGitHub::on_completed, this, MHD_OPTION_END);
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

void FakeGitHub::clear_requests() {
  std::lock_guard<std::mutex> lock(mutex_);
  requests_.clear();
}

json FakeGitHub::comments(const std::string& repository, int64_t number) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = comments_.find(repository + "#" + std::to_string(number));
  return it == comments_.end() ? json::array() : it->second;
}

std::vector<json> FakeGitHub::check_runs() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<json> out;
  for (const auto& s : check_runs_) out.push_back(s.object);
  return out;
}

std::vector<json> FakeGitHub::issues() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<json> out;
  for (const auto& s : issues_) out.push_back(s.object);
  return out;
}

void FakeGitHub::add_comment(const std::string& repository, int64_t number, const std::string& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& list = comments_[repository + "#" + std::to_string(number)];
  if (list.is_null()) list = json::array();
  int64_t id = ++next_id_;
  list.push_back({{"id", id},
                  {"body", body},
                  {"user", {{"login", "someone"}}},
                  {"html_url", "https://github.com/" + repository + "/issues/" + std::to_string(number) +
                                   "#issuecomment-" + std::to_string(id)}});
}

void FakeGitHub::delete_comment(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, list] : comments_)
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i]["id"] == id) {
        list.erase(i);
        return;
      }
}

void FakeGitHub::accept_token(const std::string& token) {
  std::lock_guard<std::mutex> lock(mutex_);
  plain_token_ = token;
}

void FakeGitHub::revoke_installation_tokens() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++token_generation_;
}

std::string FakeGitHub::current_installation_token() {
  std::lock_guard<std::mutex> lock(mutex_);
  return token_generation_ == 0 ? kToken : std::string(kToken) + "_" + std::to_string(token_generation_);
}

void FakeGitHub::fail_next(int count, unsigned status, std::map<std::string, std::string> headers, json body,
                           std::string match) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (body.is_null()) body = {{"message", "injected failure"}};
  failures_.push_back({count, std::move(match), Reply{status, std::move(body), std::move(headers)}, false});
}

void FakeGitHub::effect_then_fail(int count, unsigned status, std::string match) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_.push_back({count, std::move(match), Reply{status, {{"message", "Bad Gateway (fake: done, then failed)"}}, {}},
                       true});
}

void FakeGitHub::set_outage(bool on, unsigned status) {
  std::lock_guard<std::mutex> lock(mutex_);
  outage_ = on;
  outage_status_ = status;
}

void FakeGitHub::lose_next_reply(int count, std::string match) {
  std::lock_guard<std::mutex> lock(mutex_);
  lose_count_ = count;
  lose_match_ = std::move(match);
}

void FakeGitHub::set_reply_headers(std::map<std::string, std::string> headers) {
  std::lock_guard<std::mutex> lock(mutex_);
  reply_headers_ = std::move(headers);
}

void FakeGitHub::on_completed(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
  delete static_cast<Upload*>(*state);
  *state = nullptr;
}

// libmicrohttpd's callback: no exception may escape into C.
MHD_Result FakeGitHub::on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                                  const char*, const char* upload, size_t* upload_size, void** state) {
  try {
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
    std::vector<std::pair<std::string, std::string>> args;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
    Query query;
    for (size_t i = 0; i < args.size(); ++i) {
      r.path += (i == 0 ? "?" : "&") + args[i].first + "=" + args[i].second;
      query[args[i].first] = args[i].second;
    }
    const char* auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    r.authorization = auth ? auth : "";
    r.body = std::move(up->body);
    bool lose = false;
    Reply reply;
    try {
      reply = self->handle(r, query, lose);
    } catch (const std::exception& e) {
      reply = {500, {{"message", e.what()}}, {}};
    }
    if (lose) return MHD_NO;  // closes the connection: no reply at all
    std::string text = reply.body.is_null() ? "" : reply.body.dump();
    MHD_Response* resp = MHD_create_response_from_buffer(text.size(), text.data(), MHD_RESPMEM_MUST_COPY);
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "application/json; charset=utf-8");
    for (const auto& [name, value] : reply.headers) MHD_add_response_header(resp, name.c_str(), value.c_str());
    MHD_Result ret = MHD_queue_response(c, reply.status, resp);
    MHD_destroy_response(resp);
    return ret;
  } catch (...) {
    return MHD_NO;
  }
}

FakeGitHub::Reply FakeGitHub::handle(RecordedRequest& r, const Query& query, bool& lose) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string line = r.method + " " + r.path;
  Reply reply;
  auto failure = std::find_if(failures_.begin(), failures_.end(), [&](const Failure& f) {
    return f.count > 0 && line.find(f.match) != std::string::npos;
  });
  if (outage_) {
    reply = {outage_status_, {{"message", "Service Unavailable (fake outage)"}}, {}};
  } else if (failure != failures_.end()) {
    --failure->count;
    if (failure->effect) (void)route(r, query);
    reply = failure->reply;
  } else {
    reply = route(r, query);
    if (lose_count_ > 0 && line.find(lose_match_) != std::string::npos) {
      --lose_count_;
      lose = true;
    }
  }
  for (const auto& [name, value] : reply_headers_) reply.headers.emplace(name, value);
  r.status = lose ? 0 : reply.status;
  requests_.push_back(r);
  return reply;
}

bool FakeGitHub::authorized(const std::string& bearer) const {
  if (!plain_token_.empty() && bearer == plain_token_) return true;
  std::string current = token_generation_ == 0 ? kToken : std::string(kToken) + "_" + std::to_string(token_generation_);
  return bearer == current;
}

FakeGitHub::Reply FakeGitHub::route(const RecordedRequest& r, const Query& query) {
  std::smatch m;
  const std::string bearer = r.authorization.rfind("Bearer ", 0) == 0 ? r.authorization.substr(7) : "";
  const std::string path = r.path.substr(0, r.path.find('?'));
  json body = r.body.empty() ? json() : json::parse(r.body, nullptr, false);
  if (body.is_discarded()) return {400, {{"message", "Problems parsing JSON"}}, {}};

  // App-level endpoints take the JWT.
  static const std::regex installation(R"(^/repos/([^/]+/[^/]+)/installation$)");
  static const std::regex access_tokens(R"(^/app/installations/(\d+)/access_tokens$)");
  if (std::regex_match(path, m, installation) || std::regex_match(path, m, access_tokens)) {
    if (!verify_jwt(bearer, public_key_pem_).ok())
      return {401, {{"message", "A JSON web token could not be decoded"}}, {}};
    if (r.method == "GET") {
      for (const auto& repo : installed_)
        if (repo == m[1].str()) return {200, {{"id", 42}, {"app_id", 1}}, {}};
      return {404, {{"message", "Not Found"}}, {}};
    }
    std::string token = token_generation_ == 0 ? kToken : std::string(kToken) + "_" + std::to_string(token_generation_);
    return {201, {{"token", token}, {"expires_at", "2099-01-01T00:00:00Z"}}, {}};
  }
  if (!authorized(bearer)) return {401, {{"message", "Bad credentials"}}, {}};
  if (path.find("/check-runs") != std::string::npos) return check_runs_api(r, query, body);
  if (path.find("/issues") != std::string::npos) return issues_api(r, query, body);
  return {404, {{"message", "Not Found"}}, {}};
}

FakeGitHub::Reply FakeGitHub::check_runs_api(const RecordedRequest& r, const Query& query, const json& body) {
  static const std::regex create(R"(^/repos/([^/]+/[^/]+)/check-runs$)");
  static const std::regex one(R"(^/repos/([^/]+/[^/]+)/check-runs/(\d+)$)");
  static const std::regex for_ref(R"(^/repos/([^/]+/[^/]+)/commits/([^/]+)/check-runs$)");
  const std::string path = r.path.substr(0, r.path.find('?'));
  std::smatch m;
  // What GitHub checks of a check run's fields, on create and update alike.
  auto invalid = [](const json& run) -> std::optional<json> {
    std::string status = text_of(run, "status");
    if (!status.empty() && status != "queued" && status != "in_progress" && status != "completed")
      return validation_failed("CheckRun", "status", "invalid");
    if (status == "completed" && text_of(run, "conclusion").empty())
      return json{{"message", "Invalid request.\n\n\"conclusion\" wasn't supplied."}};
    if (run.contains("output")) {
      const json& o = run["output"];
      if (text_of(o, "title").empty() || !o.contains("summary"))
        return json{{"message", "Invalid request.\n\n\"title\" and \"summary\" are required in output."}};
      for (const char* field : {"summary", "text"})
        if (size_t n = characters(text_of(o, field)); n > 65535) return too_long(65535, n);
    }
    return std::nullopt;
  };
  if (r.method == "POST" && std::regex_match(path, m, create)) {
    if (!body.is_object() || text_of(body, "head_sha").empty() || text_of(body, "name").empty())
      return {422, {{"message", "Invalid request.\n\n\"head_sha\" and \"name\" are required."}}, {}};
    json run = body;
    if (!text_of(run, "conclusion").empty()) run["status"] = "completed";
    if (!run.contains("status")) run["status"] = "queued";
    if (auto bad = invalid(run)) return {422, *bad, {}};
    run["id"] = ++next_id_;
    run["html_url"] = "https://github.com/" + m[1].str() + "/runs/" + std::to_string(run["id"].get<int64_t>());
    check_runs_.push_back({m[1].str(), run});
    return {201, run, {}};
  }
  if (std::regex_match(path, m, one)) {
    int64_t id = std::stoll(m[2]);
    for (auto& s : check_runs_) {
      if (s.repository != m[1].str() || s.object["id"] != id) continue;
      if (r.method == "GET") return {200, s.object, {}};
      if (r.method != "PATCH") break;
      if (!body.is_object()) return {422, {{"message", "Invalid request."}}, {}};
      json run = s.object;
      for (const auto& [key, value] : body.items()) run[key] = value;
      if (!text_of(body, "conclusion").empty()) run["status"] = "completed";
      if (auto bad = invalid(run)) return {422, *bad, {}};
      s.object = run;
      return {200, run, {}};
    }
    return {404, {{"message", "Not Found"}}, {}};
  }
  if (r.method == "GET" && std::regex_match(path, m, for_ref)) {
    std::vector<json> matching;
    auto name = query.find("check_name");
    for (const auto& s : check_runs_)
      if (s.repository == m[1].str() && s.object["head_sha"] == m[2].str() &&
          (name == query.end() || s.object["name"] == name->second))
        matching.push_back(s.object);
    std::reverse(matching.begin(), matching.end());  // newest first
    return {200, {{"total_count", matching.size()}, {"check_runs", page_of(matching, query)}}, {}};
  }
  return {404, {{"message", "Not Found"}}, {}};
}

FakeGitHub::Reply FakeGitHub::issues_api(const RecordedRequest& r, const Query& query, const json& body) {
  static const std::regex list_re(R"(^/repos/([^/]+/[^/]+)/issues$)");
  static const std::regex one_re(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)$)");
  static const std::regex comments_re(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$)");
  static const std::regex comment_re(R"(^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$)");
  const std::string path = r.path.substr(0, r.path.find('?'));
  std::smatch m;
  auto body_too_long = [&]() -> std::optional<json> {
    if (size_t n = characters(text_of(body, "body")); n > 65536) return validation_failed("Issue", "body", "custom");
    return std::nullopt;
  };
  if (std::regex_match(path, m, comments_re)) {
    const std::string repo = m[1].str(), number = m[2].str();
    auto& list = comments_[repo + "#" + number];
    if (list.is_null()) list = json::array();
    if (r.method == "GET") return {200, page_of(std::vector<json>(list.begin(), list.end()), query), {}};
    if (r.method == "POST") {
      if (!body.is_object() || !body.contains("body")) return {422, validation_failed("IssueComment", "body", "missing_field"), {}};
      if (auto bad = body_too_long()) return {422, *bad, {}};
      int64_t id = ++next_id_;
      json c = {{"id", id},
                {"body", text_of(body, "body")},
                {"user", {{"login", "benchbox[bot]"}}},
                {"html_url", "https://github.com/" + repo + "/issues/" + number + "#issuecomment-" + std::to_string(id)}};
      list.push_back(c);
      return {201, c, {}};
    }
  }
  if (std::regex_match(path, m, comment_re)) {
    int64_t id = std::stoll(m[2]);
    for (auto& [key, list] : comments_)
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i]["id"] != id || key.rfind(m[1].str() + "#", 0) != 0) continue;
        if (r.method == "DELETE") {
          list.erase(i);
          return {204, nullptr, {}};
        }
        if (r.method != "PATCH") return {404, {{"message", "Not Found"}}, {}};
        if (auto bad = body_too_long()) return {422, *bad, {}};
        list[i]["body"] = text_of(body, "body");
        return {200, list[i], {}};
      }
    return {404, {{"message", "Not Found"}}, {}};
  }
  if (std::regex_match(path, m, list_re)) {
    const std::string repo = m[1].str();
    if (r.method == "POST") {
      if (text_of(body, "title").empty()) return {422, validation_failed("Issue", "title", "missing_field"), {}};
      if (auto bad = body_too_long()) return {422, *bad, {}};
      int64_t number = ++issue_numbers_[repo];
      json labels = json::array();
      if (body.contains("labels") && body["labels"].is_array())
        for (const auto& l : body["labels"]) labels.push_back({{"name", l}});
      json issue = {{"number", number},       {"id", ++next_id_},
                    {"title", text_of(body, "title")}, {"body", text_of(body, "body")},
                    {"state", "open"},        {"labels", labels},
                    {"html_url", "https://github.com/" + repo + "/issues/" + std::to_string(number)}};
      issues_.push_back({repo, issue});
      return {201, issue, {}};
    }
    if (r.method == "GET") {
      std::string state = query.count("state") ? query.at("state") : "open";
      std::vector<std::string> want_labels;
      if (query.count("labels")) {
        std::string all = query.at("labels");
        for (size_t start = 0; start <= all.size();) {
          size_t comma = all.find(',', start);
          if (comma == std::string::npos) comma = all.size();
          if (comma > start) want_labels.push_back(all.substr(start, comma - start));
          start = comma + 1;
        }
      }
      std::vector<json> matching;
      for (auto it = issues_.rbegin(); it != issues_.rend(); ++it) {  // newest first, as GitHub sorts
        if (it->repository != repo || (state != "all" && it->object["state"] != state)) continue;
        bool labelled = std::all_of(want_labels.begin(), want_labels.end(), [&](const std::string& l) {
          for (const auto& have : it->object["labels"])
            if (have["name"] == l) return true;
          return false;
        });
        if (labelled) matching.push_back(it->object);
      }
      return {200, page_of(matching, query), {}};
    }
  }
  if (std::regex_match(path, m, one_re)) {
    int64_t number = std::stoll(m[2]);
    for (auto& s : issues_) {
      if (s.repository != m[1].str() || s.object["number"] != number) continue;
      if (r.method == "GET") return {200, s.object, {}};
      if (r.method != "PATCH") break;
      if (auto bad = body_too_long()) return {422, *bad, {}};
      std::string state = text_of(body, "state");
      if (!state.empty() && state != "open" && state != "closed")
        return {422, validation_failed("Issue", "state", "invalid"), {}};
      for (const char* key : {"title", "body", "state"})
        if (body.contains(key)) s.object[key] = body[key];
      if (body.contains("labels") && body["labels"].is_array()) {
        s.object["labels"] = json::array();
        for (const auto& l : body["labels"]) s.object["labels"].push_back({{"name", l}});
      }
      return {200, s.object, {}};
    }
    return {404, {{"message", "Not Found"}}, {}};
  }
  return {404, {{"message", "Not Found"}}, {}};
}

}  // namespace bb::github_api
