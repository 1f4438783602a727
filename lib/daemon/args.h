// The command line every benchbox daemon takes, parsed in one place so that
// the five agree:
//   benchbox-NAME [--config PATH] [--OPTION VALUE]...
//   benchbox-NAME --help | --version
// Values may also be written --name=VALUE.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/appliance.h"

namespace bb::daemon {

// A daemon-specific option that takes a value (webhookd's --listen).
struct ExtraOption {
  std::string name;        // without the leading "--"
  std::string value_name;  // "ADDR:PORT"
  std::string help;
};

struct Args {
  config::ConfigSource config;                 // --config, or the default path
  std::map<std::string, std::string> options;  // extra options that were given

  std::string option(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  }
};

// Parses argv. --help and --version print to stdout and set *exit_code to 0;
// an unknown or incomplete argument prints what is wrong and the usage to
// stderr and sets *exit_code to 2. Either way nullopt is returned and the
// daemon should exit with *exit_code.
std::optional<Args> parse_args(int argc, char** argv, const std::string& program,
                               const std::vector<ExtraOption>& extra, int* exit_code);

std::string usage(const std::string& program, const std::vector<ExtraOption>& extra);

}  // namespace bb::daemon
