// Integration-test harness: real processes, a private dbus-daemon per test,
// real HTTP, real git. Everything is torn down by destructors, so a failing
// test still cleans up.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace bb::test {

// A fresh directory under /tmp, removed (recursively) on destruction unless
// BENCHBOX_KEEP_TEST_DIRS is set.
// A tmpfs of `size` ("2m") mounted over `dir` (made if missing) for the
// life of the object (root only; mounted() says whether it took), which a
// test fills to the last byte and empties again: a full disk.
class SmallDisk {
 public:
  SmallDisk(std::string dir, const std::string& size);
  ~SmallDisk();
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  bool mounted() const { return mounted_; }
  void fill();        // a filler file until nothing more fits
  bool free_space();  // the filler removed
  std::string operator/(const std::string& leaf) const { return dir_ + "/" + leaf; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& leaf) const { return path_ + "/" + leaf; }

 private:
  std::string path_;
};

// A private dbus-daemon (session config: anyone may own names). address()
// goes into DBUS_SYSTEM_BUS_ADDRESS for the daemons under test.
class PrivateBus {
 public:
  PrivateBus();
  ~PrivateBus();
  PrivateBus(const PrivateBus&) = delete;
  PrivateBus& operator=(const PrivateBus&) = delete;
  const std::string& address() const { return address_; }

 private:
  std::string address_;
  pid_t pid_ = -1;
};

// dbus-daemon with a config of our own: anyone may connect and, unless
// `policy_file` is given, do anything. With a policy file it is included
// after the permissive default, as the system bus does.
class OpenBus {
 public:
  OpenBus(const std::string& dir, const std::string& policy_file = "");
  ~OpenBus();
  OpenBus(const OpenBus&) = delete;
  OpenBus& operator=(const OpenBus&) = delete;
  const std::string& address() const { return address_; }

 private:
  std::string address_;
  pid_t pid_ = -1;
};

// A child process with its own process group, stdout+stderr to a log file.
class Process {
 public:
  Process(std::vector<std::string> argv, std::map<std::string, std::string> env,
          std::string log_path);
  ~Process();  // SIGTERM, wait up to 5 s, then SIGKILL
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  void kill_hard();                       // SIGKILL and reap
  // SIGTERM and wait; returns the exit status (or 128+signal), -1 on timeout.
  int terminate(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool running();
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string log_path_;
};

// Path of a built program (meson passes BENCHBOX_BUILD_ROOT to tests).
std::string build_path(const std::string& relative);
// The source tree (meson passes BENCHBOX_SOURCE_ROOT); throws when unset.
std::string source_root();
// A file's whole text, "" when it cannot be read.
std::string slurp(const std::string& path);

// Polls pred every 20 ms until it is true or the timeout passes.
bool wait_until(const std::function<bool()>& pred,
                std::chrono::milliseconds timeout = std::chrono::seconds(20));

// Runs a shell command; returns its exit status and captures stdout.
int run_shell(const std::string& command, std::string* output = nullptr);
// Runs `set -e; command`, stderr with stdout, for a step a test needs done
// (git, openssl, mkdir): its output without the trailing newlines. Throws
// std::runtime_error naming the command and all it printed when it fails,
// which fails a Catch test case with that message.
std::string sh(const std::string& command);

// Environment a daemon under test gets: the private bus as system bus, logs
// to stderr.
std::map<std::string, std::string> daemon_env(const PrivateBus& bus);
std::map<std::string, std::string> daemon_env(const std::string& bus_address);

// HMAC-SHA256 signature header value for a GitHub webhook body ("sha256=...").
std::string github_signature(const std::string& secret, const std::string& body);

struct HttpResponse {
  long status = 0;      // 0 = no response (connection failed)
  std::string body;
  std::string error;    // curl's message when status == 0
};

// POST with headers over loopback (libcurl).
HttpResponse http_post(const std::string& url, const std::string& body,
                       const std::map<std::string, std::string>& headers,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30));
HttpResponse http_get(const std::string& url);

// A free TCP port on 127.0.0.1 (bound and released; racy but fine for tests).
int free_port();

// Runs a shell command as uid/gid 65534 with no supplementary groups;
// *output is replaced by its stdout and stderr.
int run_as_nobody(const std::string& command, std::string* output);
// setpriv's argv that runs what follows it as nobody, as run_as_nobody
// does: a prefix for a Process (a daemon run as another user).
std::vector<std::string> as_nobody_argv();
// The same as any uid and gid, with these supplementary groups (setpriv).
int run_as(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, const std::string& command,
           std::string* output);

}  // namespace bb::test
