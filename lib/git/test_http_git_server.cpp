#include "git/test_http_git_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "util/fd.h"

namespace bb::git::test {

namespace {

// Frees a string MHD allocated (the Basic auth username/password).
struct MhdFree {
  void operator()(char* p) const { MHD_free(p); }
};
using MhdString = std::unique_ptr<char, MhdFree>;

struct ResponseDeleter {
  void operator()(MHD_Response* r) const { MHD_destroy_response(r); }
};
using ResponsePtr = std::unique_ptr<MHD_Response, ResponseDeleter>;

struct CgiReply {
  unsigned status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Runs `git http-backend` with `env`, body on its stdin, and returns its
// stdout split into CGI headers and body. stdin and stdout are serviced in
// one poll loop: a big request and a big pack in reply would otherwise
// deadlock on full pipes.
CgiReply run_cgi(const std::vector<std::string>& env, const std::string& body) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) < 0) throw std::runtime_error("pipe");
  UniqueFd in_r(in[0]), in_w(in[1]);
  if (::pipe2(out, O_CLOEXEC) < 0) throw std::runtime_error("pipe");
  UniqueFd out_r(out[0]), out_w(out[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.get(), 0);   // dup2 clears O_CLOEXEC
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
  // Quiet: a refused path ("Not a git repository: ...") is the test's
  // point, and the client reports the failure anyway.
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>("git"), const_cast<char*>("http-backend"), nullptr};
  pid_t pid = -1;
  int err = ::posix_spawnp(&pid, "git", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) throw std::runtime_error("spawn git http-backend");
  in_r.reset();
  out_w.reset();
  if (body.empty()) in_w.reset();
  ::fcntl(in_w.get(), F_SETFL, O_NONBLOCK);

  std::string raw;
  size_t written = 0;
  while (out_r.valid()) {
    pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {in_w.get(), POLLOUT, 0}};
    if (::poll(fds, in_w.valid() ? 2 : 1, 10000) <= 0) break;  // 10 s: a hung child fails the test
    if (in_w.valid() && fds[1].revents) {
      ssize_t n = ::write(in_w.get(), body.data() + written, body.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 || written == body.size()) in_w.reset();  // EOF tells the CGI the body is complete
    }
    if (fds[0].revents) {
      char buf[65536];
      ssize_t n = ::read(out_r.get(), buf, sizeof buf);
      if (n <= 0) out_r.reset();
      else raw.append(buf, static_cast<size_t>(n));
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {500, {}, "git http-backend failed\n"};

  // CGI output: "Name: value" lines, an empty line, the body.
  CgiReply reply;
  size_t end = raw.find("\r\n\r\n"), skip = 4;
  if (end == std::string::npos) end = raw.find("\n\n"), skip = 2;
  if (end == std::string::npos) return {500, {}, "no CGI headers\n"};
  for (size_t at = 0; at < end;) {
    size_t eol = raw.find('\n', at);
    if (eol == std::string::npos || eol > end) eol = end;
    std::string line = raw.substr(at, eol - at);
    at = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t start = line.find_first_not_of(' ', colon + 1);
    std::string name = line.substr(0, colon), value = start == std::string::npos ? "" : line.substr(start);
    if (name == "Status") reply.status = static_cast<unsigned>(std::stoul(value));
    else reply.headers.emplace_back(name, value);
  }
  reply.body = raw.substr(end + skip);
  return reply;
}

}  // namespace

HttpGitServer::HttpGitServer(std::string project_root, std::string username, std::string password)
    : root_(std::move(project_root)), username_(std::move(username)), password_(std::move(password)) {
  // A CGI child that exits before reading all of a request body must give
  // EPIPE, not kill the test process.
  ::signal(SIGPIPE, SIG_IGN);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;  // the kernel picks a free port
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  daemon_.reset(MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                     MHD_USE_ERROR_LOG,
                                 0, nullptr, nullptr, &HttpGitServer::on_request, this, MHD_OPTION_SOCK_ADDR,
                                 &addr, MHD_OPTION_NOTIFY_COMPLETED, &HttpGitServer::on_completed, this,
                                 MHD_OPTION_END));
  if (!daemon_) throw std::runtime_error("git HTTP server: cannot start on 127.0.0.1");
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_.get(), MHD_DAEMON_INFO_BIND_PORT);
  port_ = info ? info->port : 0;
  if (!port_) throw std::runtime_error("git HTTP server: no port");
}

std::string HttpGitServer::url(const std::string& relative) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + relative;
}

void HttpGitServer::on_completed(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
  delete static_cast<std::string*>(*state);  // also when the client went away mid-upload
  *state = nullptr;
}

MHD_Result HttpGitServer::on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                                     const char*, const char* upload, size_t* upload_size, void** state) {
  if (!*state) {  // headers only so far; the body (if any) comes in later calls
    *state = new std::string;
    return MHD_YES;
  }
  auto* body = static_cast<std::string*>(*state);
  if (*upload_size) {
    body->append(upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  try {
    return static_cast<HttpGitServer*>(cls)->answer(c, url, method, *body);
  } catch (const std::exception&) {
    return MHD_NO;  // closes the connection: the client sees the failure
  }
}

MHD_Result HttpGitServer::answer(MHD_Connection* c, const char* url, const char* method, const std::string& body) {
  ++requests_;
  char* pass_raw = nullptr;
  MhdString user(MHD_basic_auth_get_username_password(c, &pass_raw));
  MhdString pass(pass_raw);
  if (user) ++credentialed_;
  if (!user || !pass || username_ != user.get() || password_ != pass.get()) {
    ++rejected_;
    static const char text[] = "authentication required\n";
    ResponsePtr r(MHD_create_response_from_buffer(sizeof text - 1, const_cast<char*>(text), MHD_RESPMEM_PERSISTENT));
    // As GitHub does. It also matters: libgit2 1.5 fails to skip a 401
    // body that has no Content-Type ("http parser error: invalid constant
    // string" on the replayed request).
    MHD_add_response_header(r.get(), "Content-Type", "text/plain");
    return MHD_queue_basic_auth_fail_response(c, "test", r.get());  // 401 + WWW-Authenticate: Basic realm="test"
  }

  std::string query;
  MHD_get_connection_values(
      c, MHD_GET_ARGUMENT_KIND,
      [](void* q, MHD_ValueKind, const char* key, const char* value) {
        auto* s = static_cast<std::string*>(q);
        *s += (s->empty() ? "" : "&") + std::string(key) + (value ? std::string("=") + value : "");
        return MHD_YES;
      },
      &query);
  auto header = [&](const char* name) {
    const char* v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    return std::string(v ? v : "");
  };
  const char* path = std::getenv("PATH");
  std::vector<std::string> env = {
      "PATH=" + std::string(path ? path : "/usr/bin:/bin"),
      "HOME=" + root_,  // no user config of whoever runs the tests
      "GIT_CONFIG_NOSYSTEM=1",
      "GIT_PROJECT_ROOT=" + root_,
      "GIT_HTTP_EXPORT_ALL=1",
      "GATEWAY_INTERFACE=CGI/1.1",
      "SERVER_PROTOCOL=HTTP/1.1",
      "REMOTE_ADDR=127.0.0.1",
      "REMOTE_USER=" + std::string(user.get()),
      "REQUEST_METHOD=" + std::string(method),
      "PATH_INFO=" + std::string(url),
      "QUERY_STRING=" + query,
      "CONTENT_TYPE=" + header("Content-Type"),
      "CONTENT_LENGTH=" + std::to_string(body.size()),
      "HTTP_CONTENT_ENCODING=" + header("Content-Encoding"),
      "HTTP_GIT_PROTOCOL=" + header("Git-Protocol"),
  };
  CgiReply reply = run_cgi(env, body);
  ResponsePtr r(MHD_create_response_from_buffer(reply.body.size(), reply.body.data(), MHD_RESPMEM_MUST_COPY));
  for (const auto& [name, value] : reply.headers) MHD_add_response_header(r.get(), name.c_str(), value.c_str());
  return MHD_queue_response(c, reply.status, r.get());
}

}  // namespace bb::git::test
