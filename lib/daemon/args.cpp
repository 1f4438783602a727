#include "daemon/args.h"
#include "util/version.h"

#include <cstdio>

namespace bb::daemon {

std::string usage(const std::string& program, const std::vector<ExtraOption>& extra) {
  std::string line = "usage: " + program + " [--config PATH]";
  std::string details = std::string("  --config PATH   appliance config (default ") + config::kDefaultConfigPath +
                        "; absent there means all defaults)\n";
  for (const auto& o : extra) {
    line += " [--" + o.name + " " + o.value_name + "]";
    std::string flag = "--" + o.name + " " + o.value_name;
    if (flag.size() < 15) flag.resize(15, ' ');
    details += "  " + flag + " " + o.help + "\n";
  }
  return line + "\n\n" + details + "  --help          this text\n  --version       print the version\n";
}

std::optional<Args> parse_args(int argc, char** argv, const std::string& program,
                               const std::vector<ExtraOption>& extra, int* exit_code) {
  Args args;
  auto refuse = [&](const std::string& what) {
    std::fprintf(stderr, "%s: %s\n\n%s", program.c_str(), what.c_str(), usage(program, extra).c_str());
    *exit_code = 2;
    return std::nullopt;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage(program, extra).c_str(), stdout);
      *exit_code = 0;
      return std::nullopt;
    }
    if (arg == "--version") {
      std::printf("%s %s\n", program.c_str(), bb::version());
      *exit_code = 0;
      return std::nullopt;
    }
    if (arg.rfind("--", 0) != 0) return refuse("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    bool known = name == "config";
    for (const auto& o : extra) known = known || o.name == name;
    if (!known) return refuse("unknown option '--" + name + "'");
    if (!has_value) {
      if (i + 1 >= argc) return refuse("--" + name + " needs a value");
      value = argv[++i];
    }
    if (value.empty()) return refuse("--" + name + " needs a non-empty value");
    if (name == "config") {
      args.config.path = value;
      args.config.given = true;
    } else {
      args.options[name] = value;
    }
  }
  return args;
}

}  // namespace bb::daemon
