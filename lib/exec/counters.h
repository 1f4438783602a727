// Hardware and software event counters over a benchmark process and every
// child it starts, through perf_event_open(2): an OS edge, so runners take
// a CounterSource and tests pass a fake. Where the machine has no PMU (a VM,
// this one) a hardware counter reads as unavailable with the reason, never
// as absent or zero.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "exec/command_runner.h"

namespace bb::exec {

// The counters a suite may ask for, in perf's names.
const std::vector<std::string>& counter_names();

class CounterSet {
 public:
  virtual ~CounterSet() = default;
  // Once the command has exited: one reading per counter asked for, in order.
  virtual std::vector<CounterReading> read() = 0;
};

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  // Opens `names` on `pid`, a forked child that has not exec'd yet: they
  // start counting at its exec and follow every child it starts. A counter
  // that cannot be opened is returned unavailable by read(), not an error.
  virtual std::unique_ptr<CounterSet> open(pid_t pid, const std::vector<std::string>& names) = 0;
};

// perf_event_open(2). One process-wide instance is enough: it has no state.
CounterSource& perf_counters();

// For a process that changes user before runnerd could open counters on it
// (the contained service, service_runner.h): benchbox-meter's gate opens
// them on itself before it execs the command, fd or -errno per name, and
// passes the fds to runnerd, which adopts them (and owns them from then on).
std::vector<int> open_own_counters(const std::vector<std::string>& names);
std::unique_ptr<CounterSet> adopt_counters(const std::vector<std::string>& names, const std::vector<int>& opened);

}  // namespace bb::exec
