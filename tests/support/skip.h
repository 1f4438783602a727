// A test case that cannot test what it is for on this machine (not root,
// no cgroup v2 cpu.stat, systemd as PID 1) says so with BB_SKIP and
// returns. Catch2 v2 has no skip of its own, and a case that returns early
// passes: that is how root-only cases used to report green having tested
// nothing. BB_SKIP records the case and the reason; when the run ends, the
// listener in skip.cpp prints one `SKIP <case>: <reason>` line per skipped
// case and, unless something failed, exits 77, which meson counts as
// skipped. scripts/test.sh prints those lines above its closing line, and
// under CI=true counts any skip as a failure.
//
// So one executable's passes are not hidden by one skipped case, the cases
// that can skip carry the tag [root] (need root) or [host] (need something
// of this host) and meson runs them as a test of their own
// (`<name>-host`, args '[root],[host]'), the rest with '~[root]~[host]'.
#pragma once

#include <sstream>
#include <string>

namespace bb::testing {

void note_skip(const std::string& reason);

}  // namespace bb::testing

#define BB_SKIP(msg)                                  \
  do {                                                \
    std::ostringstream bb_skip_reason_;               \
    bb_skip_reason_ << msg;                           \
    ::bb::testing::note_skip(bb_skip_reason_.str());  \
    return;                                           \
  } while (0)
