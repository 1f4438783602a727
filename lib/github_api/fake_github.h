// A local stand-in for api.github.com, for tests only: a real HTTP server on
// 127.0.0.1 (libmicrohttpd) that answers the endpoints benchbox uses the way
// GitHub does and records every request it received. GitHub itself is an
// edge we cannot reach from here.
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
  std::string path;           // with query string
  std::string authorization;
  std::string body;
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
  // Comments currently on an issue/PR, as GitHub would list them.
  nlohmann::json comments(const std::string& repository, int64_t number);
  // Puts a comment on an issue/PR as someone else would.
  void add_comment(const std::string& repository, int64_t number, const std::string& body);
  std::vector<nlohmann::json> check_runs();
  std::vector<nlohmann::json> issues();

 private:
  struct Reply {
    unsigned status;
    nlohmann::json body;
  };
  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char* version, const char* upload, size_t* upload_size, void** state);
  Reply handle(const RecordedRequest& r);

  std::string public_key_pem_;
  std::vector<std::string> installed_;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  std::mutex mutex_;
  std::vector<RecordedRequest> requests_;
  std::map<std::string, nlohmann::json> comments_;  // "repo#number" -> array
  std::vector<nlohmann::json> check_runs_;
  std::vector<nlohmann::json> issues_;
  int64_t next_id_ = 1000;
};

}  // namespace bb::github_api
