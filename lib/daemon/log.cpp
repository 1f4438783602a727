#include "daemon/log.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace bb::daemon {

namespace {

std::string g_identifier = "benchbox";
bool g_use_journal = false;
std::mutex g_stderr_mutex;

}  // namespace

void log_init(const std::string& identifier) {
  g_identifier = identifier;
  // Use the journal when it is there: under systemd (JOURNAL_STREAM set, or
  // the journal socket exists). BENCHBOX_LOG=stderr forces stderr.
  const char* force = std::getenv("BENCHBOX_LOG");
  struct stat st {};
  bool socket = ::stat("/run/systemd/journal/socket", &st) == 0;
  g_use_journal = !(force && std::string(force) == "stderr") && socket;
}

void log(int priority, const std::string& message, std::initializer_list<Field> fields) {
  if (g_use_journal) {
    std::vector<std::string> lines;
    lines.reserve(fields.size() + 3);
    lines.push_back("MESSAGE=" + message);
    lines.push_back("PRIORITY=" + std::to_string(priority));
    lines.push_back("SYSLOG_IDENTIFIER=" + g_identifier);
    for (const auto& [k, v] : fields) lines.push_back(k + "=" + v);
    std::vector<struct iovec> iov;
    iov.reserve(lines.size());
    for (auto& l : lines) iov.push_back({l.data(), l.size()});
    if (sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) >= 0) return;
  }
  static const char* names[] = {"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"};
  std::string line = g_identifier + "[" + std::to_string(::getpid()) + "] " +
                     names[priority & 7] + ": " + message;
  for (const auto& [k, v] : fields) line += " " + k + "=" + v;
  line += "\n";
  std::lock_guard<std::mutex> lock(g_stderr_mutex);
  std::fputs(line.c_str(), stderr);
}

}  // namespace bb::daemon
