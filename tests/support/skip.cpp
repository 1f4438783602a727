// The listener behind BB_SKIP (skip.h). Linked whole into every test
// executable (test_deps in the top-level meson.build), so registering it
// needs no line in any test file.
#include "skip.h"

// Catch2 v2 declares its listener base only for files that ask.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace bb::testing {
namespace {

struct Skipped {
  std::string test_case;
  std::string reason;
};

std::string& current_case() {
  static std::string name;
  return name;
}

std::vector<Skipped>& skipped() {
  static std::vector<Skipped> all;
  return all;
}

class SkipListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testCaseStarting(const Catch::TestCaseInfo& info) override { current_case() = info.name; }

  void testRunEnded(const Catch::TestRunStats& stats) override {
    if (skipped().empty()) return;
    for (const auto& s : skipped()) std::printf("SKIP %s: %s\n", s.test_case.c_str(), s.reason.c_str());
    const bool failed = stats.totals.assertions.failed > 0 || stats.totals.testCases.failed > 0;
    std::fflush(stdout);
    std::fflush(stderr);
    // Listeners run before the reporter's own end of run; a failure keeps
    // Catch's exit code and its summary.
    if (!failed) std::_Exit(77);
  }
};

CATCH_REGISTER_LISTENER(SkipListener)

}  // namespace

void note_skip(const std::string& reason) { skipped().push_back({current_case(), reason}); }

}  // namespace bb::testing
