// benchboxctl: the operator's and contributor's command line.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "commands.h"
#include "util/version.h"

namespace bb::cli {

int fail(const std::string& message) {
  std::cerr << "benchboxctl: " << message << "\n";
  return 2;
}

bool use_color() { return ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"); }

std::optional<uint64_t> parse_whole_number(const std::string& text) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(text, &used);
    if (used == text.size()) return uint64_t(v);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string local_user() {
  const char* user = std::getenv("SUDO_USER") ? std::getenv("SUDO_USER") : std::getenv("USER");
  return user && *user ? user : "benchboxctl";
}

int cmd_version(const Args&) {
  std::cout << "benchboxctl " << bb::version() << "\n";
  return 0;
}

namespace {

struct Command {
  const char* name;
  const char* usage;
  int (*run)(const Args&);
};

// One line per subcommand; keep sorted by name.
const Command kCommands[] = {
    {"backfill", "backfill OWNER/NAME (--tags GLOB | --range A..B | --first-parent) [--every N]  measure history", cmd_backfill},
    {"bisect", "bisect OWNER/NAME GOOD BAD [--benchmark KEY]... [--no-wait]  find the commit that made it slower", cmd_bisect},
    {"cancel", "cancel ID | --group ID [REASON]  cancel a queued or running job, or a group's", cmd_cancel},
    {"check", "check [PATH]                 validate a .benchbox.yml (exit 1: not valid)", cmd_check},
    {"compare", "compare BASE [HEAD] | --base F... --head F... [--json] [--threshold [METRIC=]F]  compare results (exit 1: regressed)", cmd_compare},
    {"convert", "convert --format NAME|auto [--suite S] PATH...  harness output as canonical JSON", cmd_convert},
    {"enqueue", "enqueue --repository R --clone-url U (--commit SHA | --ref REF) [--suite S]", cmd_enqueue},
    {"jobs", "jobs [list [--state S] [--limit N] [--json] | show ID | groups | group ID]", cmd_jobs},
    {"report", "report JOB_ID | --group G [--json]  a finished job's report, or a sharded suite's", cmd_report},
    {"run", "run [--suite S] [--against REV] run suites here as the box would (exit 1: regressed)", cmd_run},
    {"status", "status                       is every daemon up, and what it says", cmd_status},
    {"tune", "tune check|verify|apply|restore [--json]  the host tuning checklist", cmd_tune},
    {"version", "version                      print the version", cmd_version},
};

void usage(FILE* out) {
  std::fprintf(out, "usage: benchboxctl COMMAND [ARGS...]\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %s\n", c.usage);
}

}  // namespace
}  // namespace bb::cli

int main(int argc, char** argv) {
  using namespace bb::cli;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {  // as every daemon takes it
    return cmd_version({});
  }
  Args args(argv + 2, argv + argc);
  for (const auto& c : kCommands) {
    if (std::strcmp(c.name, argv[1]) != 0) continue;
    try {
      return c.run(args);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  std::fprintf(stderr, "benchboxctl: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
