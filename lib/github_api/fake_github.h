// A local stand-in for api.github.com, for tests only: a real HTTP server on
// 127.0.0.1 (libmicrohttpd) that answers the endpoints benchbox uses the way
// GitHub does (check runs, issue and PR comments, issues; App installation
// tokens or a plain token), records every request it received with the
// status it answered, and fails on demand (an outage, rate limits, a lost
// reply). GitHub itself is an edge we cannot reach from here.
#pragma once

#include <microhttpd.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bb::github_api {

struct RecordedRequest {
  std::string method;
  std::string path;           // with the query string (values decoded)
  std::string authorization;
  std::string body;
  unsigned status = 0;        // what the fake answered; 0 = the reply was lost
};

class FakeGitHub {
 public:
  // `public_key_pem` verifies App JWTs; installations are granted to every
  // repository in `installed`.
  FakeGitHub(std::string public_key_pem, std::vector<std::string> installed);
  ~FakeGitHub();
  FakeGitHub(const FakeGitHub&) = delete;
  FakeGitHub& operator=(const FakeGitHub&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<RecordedRequest> requests();
  void clear_requests();

  // Current state, as GitHub would show it.
  // Comments currently on an issue/PR, in order.
  nlohmann::json comments(const std::string& repository, int64_t number);
  // Every check run with its latest fields (status, conclusion, output).
  std::vector<nlohmann::json> check_runs();
  // Every issue with its latest title, body, state and labels.
  std::vector<nlohmann::json> issues();

  // Changes made as someone else would make them.
  void add_comment(const std::string& repository, int64_t number, const std::string& body);
  void delete_comment(int64_t id);

  // Authentication. A plain token accepted for every repository (like a
  // personal access token), besides the installation tokens it grants.
  void accept_token(const std::string& token);
  // The installation tokens granted so far stop working (401 "Bad
  // credentials"), as after a revocation; new ones are granted.
  void revoke_installation_tokens();
  // The token the next installation token request is granted (the first is
  // "ghs_fake_installation_token").
  std::string current_installation_token();

  // Failures. The next `count` requests whose "METHOD /path?query"
  // contains `match` ("" = any) are answered with this instead, with no
  // effect.
  void fail_next(int count, unsigned status, std::map<std::string, std::string> headers = {},
                 nlohmann::json body = nullptr, std::string match = "");
  // The next `count` matching requests take effect and are then answered
  // with `status` all the same: a gateway (502, 504) that gave up while
  // GitHub did the work.
  void effect_then_fail(int count, unsigned status, std::string match = "");
  // Every request fails with `status` (no effect) until set_outage(false).
  void set_outage(bool on, unsigned status = 503);
  // The next `count` matching requests take effect, but the connection is
  // closed without a reply (a reply lost on the way back).
  void lose_next_reply(int count, std::string match = "");
  // Headers put on every reply from now on (e.g. x-ratelimit-remaining).
  void set_reply_headers(std::map<std::string, std::string> headers);

 private:
  struct Reply {
    unsigned status = 200;
    nlohmann::json body;
    std::map<std::string, std::string> headers;
  };
  struct Failure {
    int count = 0;
    std::string match;
    Reply reply;
    bool effect = false;  // the request is carried out before the failure is answered
  };
  struct Stored {
    std::string repository;
    nlohmann::json object;
  };
  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char* version, const char* upload, size_t* upload_size, void** state);
  static void on_completed(void* cls, MHD_Connection* c, void** state, MHD_RequestTerminationCode code);
  Reply handle(RecordedRequest& r, const std::map<std::string, std::string>& query, bool& lose);
  Reply route(const RecordedRequest& r, const std::map<std::string, std::string>& query);
  Reply check_runs_api(const RecordedRequest& r, const std::map<std::string, std::string>& query,
                       const nlohmann::json& body);
  Reply issues_api(const RecordedRequest& r, const std::map<std::string, std::string>& query,
                   const nlohmann::json& body);
  bool authorized(const std::string& bearer) const;

  std::string public_key_pem_;
  std::vector<std::string> installed_;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
  std::map<std::string, nlohmann::json> comments_;  // "repo#number" -> array
  std::vector<Stored> check_runs_;
  std::vector<Stored> issues_;
  std::map<std::string, int64_t> issue_numbers_;    // per repository, the last one given
  int64_t next_id_ = 1000;
  int token_generation_ = 0;
  std::string plain_token_;
  std::vector<Failure> failures_;
  bool outage_ = false;
  unsigned outage_status_ = 503;
  int lose_count_ = 0;
  std::string lose_match_;
  std::map<std::string, std::string> reply_headers_;
};

}  // namespace bb::github_api
