#include "exec/output_capture.h"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace bb::exec {

namespace {
// Lines longer than this are passed on in pieces, so a harness that prints
// megabytes without a newline cannot make us buffer without bound.
constexpr size_t kMaxLine = 64 * 1024;
}  // namespace

void OutputSink::add(Stream& s, const char* data, size_t n) {
  size_t room = command_.max_output_bytes > captured_ ? command_.max_output_bytes - captured_ : 0;
  size_t take = n < room ? n : room;
  // Spare room kept after stdout for a parser that reads past the end
  // (Command::stdout_padding): grown by doubling, so never a copy at the end.
  if (!s.is_stderr && command_.stdout_padding > 0 &&
      s.capture->capacity() < s.capture->size() + take + command_.stdout_padding)
    s.capture->reserve(std::max(2 * s.capture->capacity(), s.capture->size() + take + command_.stdout_padding));
  s.capture->append(data, take);
  captured_ += take;
  outcome_.dropped_bytes += n - take;
  if (!command_.on_line) return;
  s.pending.append(data, n);
  size_t start = 0;
  for (;;) {
    size_t nl = s.pending.find('\n', start);
    if (nl == std::string::npos) break;
    emit(std::string_view(s.pending).substr(start, nl - start), s.is_stderr);
    start = nl + 1;
  }
  s.pending.erase(0, start);
  while (s.pending.size() >= kMaxLine) {
    emit(std::string_view(s.pending).substr(0, kMaxLine), s.is_stderr);
    s.pending.erase(0, kMaxLine);
  }
}

void open_streams(Stream (&streams)[2], UniqueFd out, UniqueFd err, Outcome& outcome) {
  streams[0].fd = std::move(out);
  streams[0].capture = &outcome.stdout_text;
  streams[1].fd = std::move(err);
  streams[1].is_stderr = true;
  streams[1].capture = &outcome.stderr_text;
  for (auto& s : streams) ::fcntl(s.fd.get(), F_SETFL, O_NONBLOCK);
}

void OutputSink::finish(Stream& s) {
  if (command_.on_line && !s.pending.empty()) emit(s.pending, s.is_stderr);
  s.pending.clear();
}

void OutputSink::emit(std::string_view line, bool is_stderr) {
  // The callback belongs to the caller; an exception from it must not
  // leave a child running, so it is swallowed here.
  try {
    command_.on_line(line, is_stderr);
  } catch (...) {
  }
}

bool read_some(Stream& s, OutputSink& sink) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(s.fd.get(), buf, sizeof buf);
    if (n > 0) {
      sink.add(s, buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) return true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    sink.finish(s);
    s.fd.reset();
    return false;
  }
}

void drain(Stream (&streams)[2], OutputSink& sink, std::chrono::milliseconds limit) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + limit;
  while (streams[0].fd.valid() || streams[1].fd.valid()) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) break;
    struct pollfd fds[2];
    int n = 0, which[2];
    for (int i = 0; i < 2; ++i)
      if (streams[i].fd.valid()) {
        which[n] = i;
        fds[n++] = {streams[i].fd.get(), POLLIN, 0};
      }
    if (::poll(fds, static_cast<nfds_t>(n), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int k = 0; k < n; ++k)
      if (fds[k].revents) read_some(streams[which[k]], sink);
  }
  for (auto& s : streams) sink.finish(s);
}

}  // namespace bb::exec
