#include "webhookd_fixture.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace bb::test {

std::string github_fixture(const std::string& name) {
  std::string path = source_root() + "/tests/fixtures/github/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing fixture " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json github_fixture_json(const std::string& name) { return nlohmann::json::parse(github_fixture(name)); }

WebhookdFixture::WebhookdFixture(const std::string& webhook_yaml, const std::string& extra_yaml) {
  port_ = free_port();
  run_shell("mkdir -p '" + (dir_ / "creds") + "'");
  std::ofstream secret(dir_ / "creds/webhook-secret");
  secret << kWebhookSecret << "\n";  // as `echo` writes it: the newline is not part of the secret
  write_config(webhook_yaml, extra_yaml);
}

void WebhookdFixture::write_config(const std::string& webhook_yaml, const std::string& extra_yaml) {
  std::ofstream cfg(config_path());
  cfg << "state_dir: " << (dir_ / "state") << "\n"
      << "repositories:\n"
      << "  - name: octo-org/widget\n"
      << "    clone_url: " << (dir_ / "widget.git") << "\n"
      << "    branches: [main, \"release/*\"]\n"
      << "    tags: [\"v*\"]\n"
      << "    blessers: [alice]\n"
      << extra_yaml
      << "webhook:\n";
  if (webhook_yaml.find("spool_dir:") == std::string::npos) cfg << "  spool_dir: " << spool_dir() << "\n";
  cfg << webhook_yaml;
  if (!cfg) throw std::runtime_error("cannot write the webhookd config");
}

std::string WebhookdFixture::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::map<std::string, std::string> WebhookdFixture::env() const {
  std::map<std::string, std::string> env = {{"DBUS_SYSTEM_BUS_ADDRESS", queue_.address()},
                                            {"BENCHBOX_LOG", "stderr"},
                                            {"CREDENTIALS_DIRECTORY", dir_ / "creds"}};
  for (const auto& [k, v] : extra_env_) env[k] = v;
  return env;
}

void WebhookdFixture::start() {
  daemon_.reset();
  daemon_ = std::make_unique<Process>(
      std::vector<std::string>{daemon_path(), "--config", config_path(), "--listen",
                               "127.0.0.1:" + std::to_string(port_)},
      env(), dir_ / "webhookd.log");
  bool up = wait_until([&] { return http_get(url()).status == 405 || !daemon_->running(); });
  if (!up || !daemon_->running()) throw std::runtime_error("benchbox-webhookd did not come up:\n" + log());
}

HttpResponse WebhookdFixture::post(const std::string& event, const std::string& delivery,
                                   const std::string& body, const std::string* signature,
                                   std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> h = {{"Content-Type", "application/json"},
                                          {"User-Agent", "GitHub-Hookshot/test"}};
  if (!event.empty()) h["X-GitHub-Event"] = event;
  if (!delivery.empty()) h["X-GitHub-Delivery"] = delivery;
  h["X-Hub-Signature-256"] = signature ? *signature : github_signature(kWebhookSecret, body);
  if (signature && signature->empty()) h.erase("X-Hub-Signature-256");
  return http_post(url(), body, h, timeout);
}

std::vector<std::string> WebhookdFixture::spooled() const {
  std::vector<std::string> out;
  DIR* d = ::opendir(spool_dir().c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 9 && n.compare(n.size() - 9, 9, ".delivery") == 0) out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

long proc_status_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

RawClient::RawClient(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0)
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
}

RawClient::~RawClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawClient::send(const std::string& bytes) {
  return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

std::string RawClient::read_all(std::chrono::milliseconds timeout) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

bool RawClient::closed_by_server(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return true;  // EOF or reset
  }
}

}  // namespace bb::test
