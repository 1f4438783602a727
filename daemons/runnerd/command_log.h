// What a job's commands print. Every line goes to the job's own output log,
// <results_dir>/<job>/output.log, prefixed with the command's suite, role
// and round; the journal gets one entry per command (what ran, how it ended,
// how many lines it printed, and on a failure its last lines). A harness
// that prints a line per benchmark per round no longer floods the journal
// (on bidict: 41,174 of 41,237 lines, 40 MB for 14 jobs).
#pragma once

#include <cstddef>
#include <deque>
#include <fstream>
#include <string>
#include <string_view>

#include "exec/command_runner.h"

namespace bb::runnerd {

// The last lines of a command's output, kept as they stream past (the
// capture is capped at the front, the interesting part is the end), and
// how many there were.
struct Tail {
  static constexpr size_t kLines = 10;
  std::deque<std::string> lines;
  size_t count = 0;
  void add(std::string_view line);
  std::string text() const;
};

// The job's output log; appends, and keeps going without it when it cannot
// be written (the journal still gets each command's entry).
class OutputLog {
 public:
  explicit OutputLog(std::string path);
  void line(const std::string& prefix, std::string_view text, bool is_stderr);
  const std::string& path() const { return path_; }
  bool ok() const { return out_.good(); }

 private:
  std::string path_;
  std::ofstream out_;
};

// What a command is, for its journal entry and its lines' prefix.
struct CommandLabel {
  std::string job_id, suite, role, commit, round, what;  // what: "run", "build", "list", "toolchain"
  std::string prefix() const;  // "[micro base round 3] "
};

// The one journal entry for a finished command (structured fields JOB_ID,
// SUITE, ROLE, COMMIT, ROUND): INFO when it succeeded, WARNING with the
// output's tail when it did not.
void log_command(const CommandLabel& label, const Result<exec::Outcome>& outcome, const Tail& tail,
                 const OutputLog* log);

}  // namespace bb::runnerd
