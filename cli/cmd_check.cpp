// benchboxctl check [PATH]
// Validates a .benchbox.yml (default: ./.benchbox.yml) the way runnerd reads
// it from a commit, before anything is pushed: the same parser, the same
// checks of formats and counters, and so the same messages, each naming
// file:line:column. Exit 0 valid, 1 not valid, 2 unreadable or bad usage.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "config/suite.h"
#include "exec/suite_check.h"
#include "util/file.h"

namespace bb::cli {

namespace {

// One line per suite: what a maintainer set, and the defaults that apply.
std::string describe(const config::Suite& s) {
  std::string out = s.name + ": format " + s.format + ", " + std::to_string(s.repetitions) + " rounds";
  if (s.warmup) out += " after " + std::to_string(s.warmup) + " warmup";
  if (s.sequential) out += ", sequential up to " + std::to_string(s.sequential->max_repetitions) + " rounds";
  if (s.callgrind) out += ", measure: callgrind";
  if (s.shards > 1) out += ", " + std::to_string(s.shards) + " shards";
  if (s.push_baseline == config::Suite::PushBaseline::previous_run) out += ", pushes against the previous run";
  for (const auto& [metric, t] : s.thresholds) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g", t * 100);
    out += ", threshold " + metric + " " + pct + " %";
  }
  if (!s.paths.empty()) out += ", " + std::to_string(s.paths.size()) + " path pattern(s)";
  return out;
}

}  // namespace

int cmd_check(const Args& args) {
  if (args.size() > 1 || (!args.empty() && args[0].rfind("-", 0) == 0))
    return fail("usage: benchboxctl check [PATH]   (default: ./" + std::string(config::kSuiteFileName) + ")");
  const std::string path = args.empty() ? config::kSuiteFileName : args[0];
  auto text = read_file(path, size_t(1) << 20);
  if (!text) return fail(text.error().message);
  auto parsed = config::parse_suite_config(*text, path);
  if (!parsed) {
    std::cerr << parsed.error().message << "\n";
    return 1;
  }
  if (auto st = exec::check_suites(parsed->suites); !st) {
    std::cerr << st.error().message << "\n";
    return 1;
  }
  std::cout << path << ": valid, " << parsed->suites.size() << " suite" << (parsed->suites.size() == 1 ? "" : "s")
            << "\n";
  for (const auto& s : parsed->suites) std::cout << "  " << describe(s) << "\n";
  return 0;
}

}  // namespace bb::cli
