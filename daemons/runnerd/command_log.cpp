#include "command_log.h"

#include "daemon/log.h"

namespace bb::runnerd {

void Tail::add(std::string_view line) {
  ++count;
  lines.emplace_back(line);
  if (lines.size() > kLines) lines.pop_front();
}

std::string Tail::text() const {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

OutputLog::OutputLog(std::string path) : path_(std::move(path)), out_(path_, std::ios::app) {}

void OutputLog::line(const std::string& prefix, std::string_view text, bool is_stderr) {
  if (!out_) return;
  out_ << prefix << (is_stderr ? "stderr: " : "") << text << '\n';
  out_.flush();  // a job killed mid-command keeps what it printed
}

std::string CommandLabel::prefix() const {
  return "[" + suite + (role.empty() || role == "run" ? "" : " " + role) + (round.empty() ? "" : " round " + round) + "] ";
}

void log_command(const CommandLabel& label, const Result<exec::Outcome>& outcome, const Tail& tail,
                 const OutputLog* log) {
  const std::initializer_list<daemon::Field> fields = {{"JOB_ID", label.job_id}, {"SUITE", label.suite},
                                                       {"ROLE", label.role},     {"COMMIT", label.commit},
                                                       {"ROUND", label.round}};
  std::string head = label.prefix() + label.what;
  const std::string lines = std::to_string(tail.count) + (tail.count == 1 ? " line" : " lines") + " of output" +
                            (log && log->ok() && tail.count ? " (in the job's output.log)" : "");
  if (!outcome) {
    daemon::log_warning(head + " could not start: " + outcome.error().message, fields);
    return;
  }
  if (outcome->cancelled) {
    daemon::log_info(head + " cancelled, " + lines, fields);
    return;
  }
  if (outcome->success()) {
    daemon::log_info(head + " done in " + std::to_string(int64_t(outcome->wall_seconds * 1000)) + " ms, " + lines,
                     fields);
    return;
  }
  const std::string text = tail.text();
  daemon::log_warning(head + " failed: " + outcome->describe() + ", " + lines +
                          (text.empty() ? "" : "; the last " + std::to_string(tail.lines.size()) + ":\n" + text),
                      fields);
}

}  // namespace bb::runnerd
