// For tests only: a private git server on 127.0.0.1, the way GitHub serves
// a private repository to an App installation. libmicrohttpd speaks HTTP
// and checks Basic auth; an authenticated request is handed to git's own
// smart-HTTP CGI, `git http-backend`, so libgit2 talks to the real
// protocol implementation, not to a fake of it. Anything without the right
// username:password gets 401 with `WWW-Authenticate: Basic realm="test"`.
#pragma once

#include <microhttpd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace bb::git::test {

class HttpGitServer {
 public:
  // Serves the repositories under project_root (GIT_PROJECT_ROOT, every one
  // exported) on a free port; throws std::runtime_error if it cannot.
  HttpGitServer(std::string project_root, std::string username, std::string password);
  HttpGitServer(const HttpGitServer&) = delete;
  HttpGitServer& operator=(const HttpGitServer&) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT/<relative>"
  std::string url(const std::string& relative) const;

  int requests() const { return requests_; }
  // Requests that carried Basic credentials (right or wrong): how often the
  // client offered what its credentials callback returned.
  int credentialed_requests() const { return credentialed_; }
  int rejected() const { return rejected_; }

 private:
  struct StopDaemon {
    void operator()(MHD_Daemon* d) const { MHD_stop_daemon(d); }
  };
  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char* version, const char* upload, size_t* upload_size, void** state);
  static void on_completed(void* cls, MHD_Connection* c, void** state, MHD_RequestTerminationCode);
  MHD_Result answer(MHD_Connection* c, const char* url, const char* method, const std::string& body);

  std::string root_, username_, password_;
  std::atomic<int> requests_{0}, credentialed_{0}, rejected_{0};
  uint16_t port_ = 0;
  std::unique_ptr<MHD_Daemon, StopDaemon> daemon_;  // last: stopped before the rest goes
};

}  // namespace bb::git::test
