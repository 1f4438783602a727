#include "harness.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/hmac.h>
#include <pwd.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace bb::test {

TempDir::TempDir() {
  char tmpl[] = "/tmp/benchbox-test-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  if (std::getenv("BENCHBOX_KEEP_TEST_DIRS")) return;
  std::string cmd = "rm -rf '" + path_ + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path_.c_str());
}

namespace {

// Starts a forking dbus-daemon with `config` ("--session" or
// "--config-file=PATH"); its address into *address, its pid returned.
pid_t start_dbus_daemon(const std::string& config, std::string* address) {
  const std::string cmd = "dbus-daemon " + config + " --fork --print-address=1 --print-pid=1 --nopidfile";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start dbus-daemon");
  char line[1024];
  if (!std::fgets(line, sizeof line, p)) {
    ::pclose(p);
    throw std::runtime_error("dbus-daemon printed no address");
  }
  *address = line;
  address->erase(address->find_last_not_of('\n') + 1);
  pid_t pid = -1;
  if (std::fgets(line, sizeof line, p)) pid = static_cast<pid_t>(std::atoi(line));
  ::pclose(p);
  if (pid <= 0) throw std::runtime_error("dbus-daemon printed no pid");
  return pid;
}

}  // namespace

PrivateBus::PrivateBus() { pid_ = start_dbus_daemon("--session", &address_); }

PrivateBus::~PrivateBus() {
  if (pid_ > 0) ::kill(pid_, SIGTERM);
}

namespace {
std::string user_name() {
  struct passwd* pw = ::getpwuid(::geteuid());
  return pw ? pw->pw_name : std::to_string(::geteuid());
}
}  // namespace

OpenBus::OpenBus(const std::string& dir, const std::string& policy_file) {
  std::string conf = dir + "/bus.conf";
  std::ofstream(conf) << R"(<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir=)" << dir << R"(</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
  </policy>
)" << (policy_file.empty() ? ""
                           // The daemons under test run as the test's user, not as their
                           // packaged users that the policy lets own the names.
                           : "  <include>" + policy_file + "</include>\n  <policy user=\"" + user_name() +
                                 "\">\n    <allow own=\"*\"/>\n  </policy>\n")
                       << "</busconfig>\n";
  pid_ = start_dbus_daemon("--config-file=" + conf, &address_);
  // The socket dir was made by mkdtemp (0700): let "nobody" reach the socket.
  std::system(("chmod 0755 " + dir).c_str());
}

OpenBus::~OpenBus() {
  if (pid_ > 0) ::kill(pid_, SIGTERM);
}

Process::Process(std::vector<std::string> argv, std::map<std::string, std::string> env,
                 std::string log_path)
    : log_path_(std::move(log_path)) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!env.count(kv.substr(0, kv.find('=')))) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::setpgid(0, 0);
    int fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    sigset_t all;
    sigemptyset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    std::vector<char*> av, ev;
    for (auto& a : argv) av.push_back(a.data());
    av.push_back(nullptr);
    for (auto& e : envs) ev.push_back(e.data());
    ev.push_back(nullptr);
    ::execve(av[0], av.data(), ev.data());
    std::fprintf(stderr, "exec %s: %s\n", av[0], std::strerror(errno));
    ::_exit(127);
  }
}

Process::~Process() {
  if (pid_ > 0 && terminate(std::chrono::seconds(5)) == -1) kill_hard();
}

bool Process::running() {
  if (pid_ <= 0) return false;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    pid_ = -1;
    return false;
  }
  return true;
}

void Process::kill_hard() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int st = 0;
  ::waitpid(pid_, &st, 0);
  status_ = 128 + SIGKILL;
  pid_ = -1;
}

int Process::terminate(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return status_;
  // The whole process group (the child made it its own): a wrapper such as
  // faketime forks the daemon and dies of SIGTERM without passing it on,
  // which left the daemon running after its test (seen: a queued under
  // faketime, its bus and directory gone).
  const pid_t group = pid_;
  ::kill(-group, SIGTERM);
  ::kill(pid_, SIGTERM);
  if (!wait_until([this] { return !running(); }, timeout)) return -1;
  if (!wait_until([group] { return ::kill(-group, 0) < 0 && errno == ESRCH; }, std::chrono::seconds(2)))
    ::kill(-group, SIGKILL);
  // A daemon that stops badly (a sanitizer's report, an abort) said why on
  // stderr, in its log file, which goes with the test's directory: show the
  // end of it where the test's failure is printed.
  if (status_ != 0) {
    const std::string text = log();
    const size_t keep = 16384;
    std::fprintf(stderr, "--- %s exited with status %d; the end of its log:\n%s\n---\n", log_path_.c_str(),
                 status_, text.size() > keep ? text.substr(text.size() - keep).c_str() : text.c_str());
  }
  return status_;
}

std::string Process::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string build_path(const std::string& relative) {
  const char* root = std::getenv("BENCHBOX_BUILD_ROOT");
  return std::string(root ? root : ".") + "/" + relative;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string source_root() {
  const char* root = std::getenv("BENCHBOX_SOURCE_ROOT");
  if (!root) throw std::runtime_error("BENCHBOX_SOURCE_ROOT is not set (meson sets it for tests)");
  return root;
}

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

int run_shell(const std::string& command, std::string* output) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    if (output) output->append(buf, n);
  int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string sh(const std::string& command) {
  std::string out;
  if (run_shell("set -e; " + command + " 2>&1", &out) != 0)
    throw std::runtime_error("command failed: " + command + "\n" + out);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::map<std::string, std::string> daemon_env(const std::string& bus_address) {
  return {{"DBUS_SYSTEM_BUS_ADDRESS", bus_address}, {"BENCHBOX_LOG", "stderr"}};
}

std::map<std::string, std::string> daemon_env(const PrivateBus& bus) { return daemon_env(bus.address()); }

std::string github_signature(const std::string& secret, const std::string& body) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), md, &len);
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex += digits[md[i] >> 4];
    hex += digits[md[i] & 0xf];
  }
  return "sha256=" + hex;
}

static size_t collect(char* data, size_t size, size_t n, void* userdata) {
  static_cast<std::string*>(userdata)->append(data, size * n);
  return size * n;
}

static HttpResponse perform(CURL* curl) {
  HttpResponse resp;
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.status);
  else resp.error = curl_easy_strerror(rc);
  return resp;
}

HttpResponse http_post(const std::string& url, const std::string& body,
                       const std::map<std::string, std::string>& headers,
                       std::chrono::milliseconds timeout) {
  CURL* curl = curl_easy_init();
  struct curl_slist* list = nullptr;
  for (const auto& [k, v] : headers) list = curl_slist_append(list, (k + ": " + v).c_str());
  // No 100-continue round trip unless the test asks for one.
  if (!headers.count("Expect")) list = curl_slist_append(list, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  HttpResponse resp = perform(curl);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return resp;
}

HttpResponse http_get(const std::string& url) {
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 30000L);
  HttpResponse resp = perform(curl);
  curl_easy_cleanup(curl);
  return resp;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

int run_as(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, const std::string& command,
           std::string* output) {
  if (output) output->clear();  // run_shell appends
  std::string ids = "--reuid=" + std::to_string(uid) + " --regid=" + std::to_string(gid);
  if (groups.empty()) {
    ids += " --clear-groups";
  } else {
    ids += " --groups=";
    for (size_t i = 0; i < groups.size(); ++i) ids += (i ? "," : "") + std::to_string(groups[i]);
  }
  return run_shell("setpriv " + ids + " -- sh -c '" + command + "' 2>&1", output);
}

int run_as_nobody(const std::string& command, std::string* output) { return run_as(65534, 65534, {}, command, output); }

std::vector<std::string> as_nobody_argv() {
  return {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
}

}  // namespace bb::test

namespace bb::test {

SmallDisk::SmallDisk(std::string dir, const std::string& size) : dir_(std::move(dir)) {
  if (run_shell("mkdir -p '" + dir_ + "'") != 0) return;
  mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, ("size=" + size + ",mode=0755").c_str()) == 0;
}

SmallDisk::~SmallDisk() {
  if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
}

void SmallDisk::fill() { run_shell("dd if=/dev/zero of='" + dir_ + "/filler' bs=4k 2>/dev/null; sync"); }

bool SmallDisk::free_space() { return run_shell("rm -f '" + dir_ + "/filler'") == 0; }

}  // namespace bb::test
