#include <signal.h>
#include <string.h>

#include <cstdio>

#include "exec/command_runner.h"

namespace bb::exec {

namespace {

// "SIGSEGV" rather than "Segmentation fault": the abbreviation is what
// people grep for, and it does not depend on the locale.
std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

std::string Outcome::describe() const {
  if (cancelled) return "cancelled";
  if (timed_out) return "timed out after " + seconds_text(timeout_seconds) + " s";
  // The bound says more than the signal or exit status it caused.
  if (!limit_hit.empty()) return "stopped by a per-job bound: " + limit_hit;
  if (term_signal != 0) {
    std::string why = "killed by " + signal_name(term_signal);
    if (core_dumped) why += " (core dumped)";
    if (!killed_by.empty()) return why + ", sent by " + killed_by;
    // benchbox's own SIGKILLs are its timeout and its cancellation, both
    // said above: this one came from another process or the kernel.
    if (term_signal == SIGKILL) why += " from outside benchbox (not a timeout, cancellation or per-job bound)";
    return why;
  }
  // A shell reports a child killed by signal N as 128 + N: the command run
  // through `sh -c` is that child, the signal is what happened to it.
  if (exit_code > 128 && exit_code < 128 + 65)
    return "exit status " + std::to_string(exit_code) + " (a process it ran was killed by " +
           signal_name(exit_code - 128) + ")";
  return "exit status " + std::to_string(exit_code);
}

}  // namespace bb::exec
