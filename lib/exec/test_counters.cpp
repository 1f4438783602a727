// Event counters: a fake source through the real runner, and the real
// perf_event_open on this machine (software events count; hardware ones
// read as unavailable with the reason where there is no PMU).
#include <catch2/catch.hpp>

#include <fstream>

#include "exec/counters.h"
#include "exec/pinned_runner.h"

using namespace bb;
using namespace bb::exec;

namespace {

// Counts what it is told to; says when it was opened, so the test can check
// the child had not exec'd yet.
struct FakeCounters final : CounterSource {
  std::vector<std::string> opened;
  std::string exe_at_open;
  std::unique_ptr<CounterSet> open(pid_t pid, const std::vector<std::string>& names) override {
    opened = names;
    char buf[4096] = {};
    ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
    if (n > 0) exe_at_open.assign(buf, size_t(n));
    struct Set final : CounterSet {
      std::vector<std::string> names;
      std::vector<CounterReading> read() override {
        std::vector<CounterReading> out;
        for (const auto& name : names) {
          CounterReading r;
          r.name = name;
          if (name == "cycles") r.unavailable = "no hardware PMU for it on this machine (fake)";
          else r.available = true, r.value = 1234567;
          out.push_back(r);
        }
        return out;
      }
    };
    auto s = std::make_unique<Set>();
    s->names = names;
    return s;
  }
};

const CounterReading& reading(const Outcome& o, const std::string& name) {
  for (const auto& r : o.counters)
    if (r.name == name) return r;
  FAIL("no reading for " << name);
  return o.counters.front();
}

}  // namespace

TEST_CASE("counters: the runner opens them before exec and reads them after, through any source") {
  FakeCounters fake;
  PinnedChildRunner runner(std::chrono::seconds(1), {}, &fake);
  Command c;
  c.shell = "true";
  c.cwd = "/tmp";
  c.counters = {"instructions", "cycles"};
  auto o = runner.run(c, nullptr);
  REQUIRE(o.ok());
  CHECK(fake.opened == c.counters);
  char self[4096] = {};
  REQUIRE(::readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  CHECK(fake.exe_at_open == self);  // still the forked test binary: it waited at the gate
  REQUIRE(o->counters.size() == 2);
  CHECK(reading(*o, "instructions").available);
  CHECK(reading(*o, "instructions").value == 1234567);
  CHECK_FALSE(reading(*o, "cycles").available);
  CHECK(reading(*o, "cycles").unavailable == "no hardware PMU for it on this machine (fake)");
  // None asked for: nothing opened, no gate.
  fake.opened.clear();
  c.counters.clear();
  o = runner.run(c, nullptr);
  REQUIRE(o.ok());
  CHECK(fake.opened.empty());
  CHECK(o->counters.empty());
}

TEST_CASE("counters: the real perf_event_open counts software events over the command and its children") {
  PinnedChildRunner runner;
  Command c;
  // Children that each fault in pages: inherited counters see them.
  c.shell = "for i in 1 2 3; do python3 -c 'bytearray(8 << 20)'; done";
  c.cwd = "/tmp";
  c.counters = {"task-clock", "page-faults", "instructions", "no-such-event"};
  auto o = runner.run(c, nullptr);
  REQUIRE(o.ok());
  REQUIRE(o->success());
  REQUIRE(o->counters.size() == 4);
  const auto& clock = reading(*o, "task-clock");
  INFO(clock.unavailable);
  REQUIRE(clock.available);
  CHECK(clock.value > 1e6);  // ns: three python starts take well over 1 ms
  const auto& faults = reading(*o, "page-faults");
  REQUIRE(faults.available);
  CHECK(faults.value > 3 * 2048);  // 3 × 8 MiB of 4 KiB pages, and more
  // This VM has no PMU: a hardware counter says so, with the kernel's error.
  const auto& ins = reading(*o, "instructions");
  if (!ins.available) CHECK(ins.unavailable.find("perf_event_open: ") != std::string::npos);
  else CHECK(ins.value > 1e6);
  CHECK(reading(*o, "no-such-event").unavailable == "not a counter benchbox knows");
}
