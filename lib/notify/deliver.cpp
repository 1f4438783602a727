#include "notify/deliver.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "util/fd.h"
#include "util/text.h"

extern char** environ;

namespace bb::notify {

namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (s->size() < 4096) s->append(data, std::min(size * n, 4096 - s->size()));  // enough for a message
  return size * n;
}

// libcurl asks between reads and writes, at least once a second.
int stop_requested(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return stop && static_cast<const std::atomic<bool>*>(stop)->load() ? 1 : 0;
}

bool stopping(const std::atomic<bool>* stop) { return stop && stop->load(); }

// How long a wait for sendmail lasts at most before `stop` is looked at.
constexpr int kStopPollMs = 100;

bool retried_status(long status) { return status == 408 || status == 425 || status == 429 || status >= 500; }

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}


// SIGPIPE held back on this thread while it writes to sendmail: an MTA
// that exits before it reads the whole message must not end the daemon.
// A SIGPIPE raised meanwhile is taken off the thread before it is let go.
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    timespec zero{};
    while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  sigset_t pipe_, old_;
};

}  // namespace

Delivery post(const HttpPost& p, std::chrono::milliseconds timeout, const std::atomic<bool>* stop) {
  Delivery d;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return {Delivery::Kind::retry, 0, "libcurl could not start a request", false};
  curl_slist* list = nullptr;
  for (const auto& [name, value] : p.headers) list = curl_slist_append(list, (name + ": " + value).c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(list, curl_slist_free_all);
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, p.url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, p.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(p.body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, stop_requested);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(stop));
  const CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_ABORTED_BY_CALLBACK) {
    d.kind = Delivery::Kind::retry;
    d.interrupted = true;
    d.error = "POST " + p.url + ": stopped";
    return d;
  }
  if (rc != CURLE_OK) {
    d.kind = Delivery::Kind::retry;
    d.error = std::string("POST ") + p.url + ": " + curl_easy_strerror(rc);
    // Once the request is out, a broken or slow answer may follow a delivery.
    curl_off_t uploaded = 0;
    curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &uploaded);
    d.maybe_sent = uploaded > 0;
    return d;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &d.status);
  if (d.status >= 200 && d.status < 300) return d;
  d.kind = retried_status(d.status) ? Delivery::Kind::retry : Delivery::Kind::drop;
  d.error = "POST " + p.url + ": HTTP " + std::to_string(d.status);
  if (!answer.empty()) d.error += ": " + std::string(utf8_prefix(trim(answer), 300));
  return d;
}

Delivery send_mail(const std::string& sendmail, const std::string& message, std::chrono::milliseconds timeout,
                   const std::atomic<bool>* stop) {
  auto retry = [](std::string why) { return Delivery{Delivery::Kind::retry, 0, std::move(why), false}; };
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return retry(std::string("pipe: ") + std::strerror(errno));
  UniqueFd in_read(in[0]), in_write(in[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) return retry(std::string("pipe: ") + std::strerror(errno));
  UniqueFd out_read(out[0]), out_write(out[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 2);
  // -t: the recipients are the message's To:; -i: a line of "." is text.
  std::string arg0 = sendmail, t = "-t", i = "-i";
  char* argv[] = {arg0.data(), t.data(), i.data(), nullptr};
  // A group of its own: at the deadline, what it started goes with it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, sendmail.c_str(), &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return retry("cannot run " + sendmail + ": " + std::strerror(spawned));
  in_read.reset();
  out_write.reset();
  ::fcntl(in_write.get(), F_SETFL, O_NONBLOCK);
  NoSigpipe no_sigpipe;

  // Write the message and read what sendmail says, until it exits or the
  // deadline passes; then it is killed.
  std::string said;
  size_t written = 0;
  const int64_t deadline = now_ms() + timeout.count();
  bool timed_out = false, stopped = false;
  while (out_read.valid()) {
    if (written == message.size()) in_write.reset();  // end of the message
    pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {in_write.get(), POLLOUT, 0}};
    const int64_t left = deadline - now_ms();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (stopping(stop)) {
      stopped = true;
      break;
    }
    const int wait = int(std::min<int64_t>(left, stop ? kStopPollMs : left));
    if (::poll(fds, in_write.valid() ? 2 : 1, wait) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      char buf[1024];
      const ssize_t n = ::read(out_read.get(), buf, sizeof buf);
      if (n > 0 && said.size() < 4096) said.append(buf, size_t(n));
      else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) out_read.reset();
    }
    if (in_write.valid() && fds[1].revents) {
      const ssize_t n = ::write(in_write.get(), message.data() + written, message.size() - written);
      if (n > 0) written += size_t(n);
      else if (n < 0 && errno != EAGAIN && errno != EINTR) in_write.reset();  // it stopped reading
    }
  }
  if (timed_out || stopped) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stopped) {
    Delivery d = retry(sendmail + ": stopped");
    d.interrupted = true;
    return d;
  }
  const std::string what = said.empty() ? "" : ": " + std::string(utf8_prefix(trim(said), 300));
  if (timed_out) return retry(sendmail + " did not finish within " + std::to_string(timeout.count()) + " ms");
  if (WIFSIGNALED(status)) return retry(sendmail + " was killed by signal " + std::to_string(WTERMSIG(status)) + what);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0 && written == message.size()) return {};
  if (code == 0) return retry(sendmail + " exited before it read the whole message");
  Delivery d{Delivery::Kind::drop, 0, sendmail + " exited with " + std::to_string(code) + what, false};
  if (code == 75 || code == 69 || code == 71 || code == 74) d.kind = Delivery::Kind::retry;
  return d;
}

}  // namespace bb::notify
