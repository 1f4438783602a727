#include "github_api/client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <memory>
#include <optional>

#include "github_api/app_jwt.h"
#include "util/json_read.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/version.h"

namespace bb::github_api {

namespace {

// libcurl's progress callback (no exception can leave it): non-zero ends
// the transfer.
int abort_when_set(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
}

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

// curl callbacks: no exception may cross back into C. Returning a count
// other than size * n makes curl abort the transfer (a write error).
size_t collect_body(char* data, size_t size, size_t n, void* userdata) noexcept {
  try {
    static_cast<std::string*>(userdata)->append(data, size * n);
    return size * n;
  } catch (...) {
    return 0;
  }
}

size_t collect_header(char* data, size_t size, size_t n, void* userdata) noexcept {
  try {
    auto* headers = static_cast<std::map<std::string, std::string>*>(userdata);
    std::string line(data, size * n);
    // Each response (a 100 Continue, then the real one) starts with its
    // status line: only the last response's headers count.
    if (line.rfind("HTTP/", 0) == 0) {
      headers->clear();
      return size * n;
    }
    auto colon = line.find(':');
    if (colon == std::string::npos) return size * n;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    (*headers)[trim(name)] = trim(line.substr(colon + 1));
    return size * n;
  } catch (...) {
    return 0;
  }
}

// Failures before the request could have left this machine: nothing can
// have happened on GitHub.
bool before_sending(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_OUT_OF_MEMORY:
      return true;
    default:
      return false;
  }
}

int64_t parse_iso_time(const std::string& iso) {
  struct tm tm {};
  if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

std::string url_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string ApiReply::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

nlohmann::json ApiReply::json() const { return nlohmann::json::parse(body, nullptr, false); }

std::string ApiReply::message() const {
  auto j = json();
  if (j.is_object() && j.contains("message") && j["message"].is_string()) {
    std::string m = j["message"];
    if (j.contains("errors") && !j["errors"].is_null())
      m += " (errors: " + std::string(utf8_prefix(dump_json(j["errors"]), 1000)) + ")";
    return m;
  }
  return std::string(utf8_prefix(body, 200));
}

std::string ApiReply::describe() const {
  if (status == 0) return request + ": " + transport_error;
  return request + ": HTTP " + std::to_string(status) + ": " + message();
}

Client::Client(std::string api_url, Credentials credentials, const Clock& clock)
    : api_url_(std::move(api_url)), credentials_(std::move(credentials)), clock_(clock) {
  while (!api_url_.empty() && api_url_.back() == '/') api_url_.pop_back();
}

Client::Client(std::string api_url, int64_t app_id, std::string private_key_pem, const Clock& clock)
    : Client(std::move(api_url), Credentials{Credentials::Mode::app, app_id, std::move(private_key_pem), ""},
             clock) {}

ApiReply Client::perform(const std::string& method, const std::string& path, const std::string& bearer,
                         const nlohmann::json* body) {
  ApiReply reply;
  reply.request = method + " " + path;
  std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) {
    reply.transport_error = "curl_easy_init failed";
    return reply;
  }
  std::unique_ptr<curl_slist, SlistFree> headers;
  auto add = [&](const std::string& h) {
    if (curl_slist* l = curl_slist_append(headers.get(), h.c_str())) {
      (void)headers.release();
      headers.reset(l);
    }
  };
  add("Accept: application/vnd.github+json");
  add("X-GitHub-Api-Version: 2022-11-28");
  add(std::string("User-Agent: benchbox/") + bb::version());
  add("Authorization: Bearer " + bearer);
  // No "Expect: 100-continue" round trip before a large body.
  add("Expect:");
  std::string payload;
  if (body) {
    // Invalid UTF-8 from a harness's output becomes U+FFFD instead of a throw.
    payload = dump_json(*body);
    add("Content-Type: application/json");
  }
  std::string url = api_url_ + path;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (body) {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, collect_header);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms_, 10000L));
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  if (abort_) {
    curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, abort_when_set);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, abort_);
  }
  CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) {
    reply.status = 0;
    reply.headers.clear();
    reply.transport_error = api_url_ + ": " + curl_easy_strerror(rc);
    reply.maybe_sent = !before_sending(rc);
    return reply;
  }
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

Result<Client::Bearer> Client::bearer(const std::string& repository) {
  Bearer b;
  if (credentials_.mode == Credentials::Mode::token) {
    b.value = credentials_.token;
    return b;
  }
  int64_t now = clock_.now_unix();
  auto cached = tokens_.find(repository);
  if (cached != tokens_.end() && cached->second.expires > now + 60) {
    b.value = cached->second.value;
    b.cached = true;
    return b;
  }
  auto jwt = make_app_jwt(credentials_.app_id, credentials_.app_key_pem, now);
  if (!jwt) return jwt.error();
  // A refusal here is returned as the reply the caller classifies; it is
  // not the caller's request, so that was certainly not sent.
  auto refused = [&](ApiReply reply, const std::string& what) {
    reply.request = what + " (" + reply.request + ")";
    reply.maybe_sent = false;
    b.refusal = std::move(reply);
    return b;
  };
  auto inst = perform("GET", "/repos/" + repository + "/installation", *jwt, nullptr);
  if (inst.status != 200) return refused(std::move(inst), "the GitHub App's installation on " + repository);
  auto inst_json = inst.json();
  std::optional<int64_t> inst_id;
  if (inst_json.is_object() && inst_json.contains("id")) inst_id = json_as<int64_t>(inst_json["id"]);
  if (!inst_id) {
    inst.status = 0;
    inst.transport_error = "the reply has no integer id";
    return refused(std::move(inst), "the GitHub App's installation on " + repository);
  }
  auto tok = perform("POST", "/app/installations/" + std::to_string(*inst_id) + "/access_tokens", *jwt, nullptr);
  if (tok.status != 201) return refused(std::move(tok), "an installation token for " + repository);
  auto tok_json = tok.json();
  auto value = tok_json.is_object() && tok_json.contains("token") ? json_as<std::string>(tok_json["token"])
                                                                  : std::nullopt;
  if (!value || value->empty()) {
    tok.status = 0;
    tok.transport_error = "the reply has no token";
    return refused(std::move(tok), "an installation token for " + repository);
  }
  Token t{*value, 0};
  if (tok_json.contains("expires_at") && tok_json["expires_at"].is_string())
    t.expires = parse_iso_time(tok_json["expires_at"]);
  // GitHub's tokens last an hour; without a readable expiry assume less.
  if (t.expires == 0) t.expires = now + 3000;
  tokens_[repository] = t;
  b.value = t.value;
  return b;
}

Result<ApiReply> Client::request(const std::string& method, const std::string& repository, const std::string& path,
                                 const nlohmann::json* body) {
  for (int round = 0;; ++round) {
    auto b = bearer(repository);
    if (!b) return b.error();
    if (b->value.empty()) return b->refusal;
    ApiReply reply = perform(method, path, b->value, body);
    // An installation token revoked or expired early: one fresh try. A
    // 401 on a fresh token (or a plain token) is the caller's to judge.
    if (reply.status == 401 && b->cached && round == 0) {
      tokens_.erase(repository);
      continue;
    }
    return reply;
  }
}

Result<std::string> Client::installation_token(const std::string& repository) {
  auto b = bearer(repository);
  if (!b) return b.error();
  if (!b->value.empty()) return b->value;
  const ApiReply& r = b->refusal;
  if (r.status == 404 && r.request.find("/installation") != std::string::npos)
    return make_error(Errc::unavailable, "GitHub App is not installed on " + repository + " (HTTP 404: " +
                                             r.message() + ")");
  return make_error(Errc::unavailable, r.describe());
}

}  // namespace bb::github_api
