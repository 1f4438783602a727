#include <unistd.h>

#include "exec/command_runner.h"
#include "util/text.h"

namespace bb::exec {

Result<std::vector<std::string>> exec_argv(const Command& c, const std::map<std::string, std::string>& env) {
  if (c.argv.empty()) return std::vector<std::string>{"/bin/sh", "-c", c.shell};
  if (!c.shell.empty()) return make_error(Errc::invalid_argument, "a command is a shell line or an argv, not both");
  std::vector<std::string> argv = c.argv;
  if (argv[0].find('/') != std::string::npos) return argv;
  // As execvp would, but before fork: the child has nothing left to search
  // with, and a missing program is this error rather than exit status 127.
  const auto path = env.find("PATH");
  for (const auto& dir : split(path == env.end() ? std::string() : path->second, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + argv[0];
    if (::access(candidate.c_str(), X_OK) == 0) {
      argv[0] = candidate;
      return argv;
    }
  }
  return make_error(Errc::not_found, "no program '" + argv[0] + "' in PATH");
}

std::string Command::display() const {
  if (argv.empty()) return shell;
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace bb::exec
