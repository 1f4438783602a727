#include "exec/counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd.h"

namespace bb::exec {

namespace {

struct Event {
  const char* name;
  uint32_t type;
  uint64_t config;
};

constexpr Event kEvents[] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    // Software events: every kernel has them, PMU or not.
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

const Event* find_event(const std::string& name) {
  for (const auto& e : kEvents)
    if (name == e.name) return &e;
  return nullptr;
}

// Why perf_event_open refused, in words an operator can act on.
std::string why_not(const Event& e, int err) {
  const std::string call = std::string("perf_event_open: ") + std::strerror(err);
  if (e.type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV))
    return "no hardware PMU for it on this machine (" + call + ")";
  if (err == EACCES || err == EPERM)
    return "not permitted (" + call + "; see /proc/sys/kernel/perf_event_paranoid)";
  return call;
}

class PerfSet final : public CounterSet {
 public:
  struct One {
    std::string name;
    UniqueFd fd;
    std::string unavailable;
  };
  std::vector<One> counters;

  std::vector<CounterReading> read() override {
    std::vector<CounterReading> out;
    for (auto& c : counters) {
      CounterReading r;
      r.name = c.name;
      if (!c.fd.valid()) {
        r.unavailable = c.unavailable;
        out.push_back(r);
        continue;
      }
      uint64_t v[3] = {};  // value, time enabled, time running
      const ssize_t n = ::read(c.fd.get(), v, sizeof v);
      if (n != static_cast<ssize_t>(sizeof v)) {
        r.unavailable = std::string("reading the counter failed: ") + (n < 0 ? std::strerror(errno) : "short read");
      } else if (v[2] == 0) {
        // Opened, but never on a PMU: the kernel had no slot for it.
        r.unavailable = v[1] == 0 ? "the command never ran on a CPU" : "never scheduled on the PMU (multiplexed out)";
      } else {
        r.available = true;
        r.value = v[1] > v[2] ? double(v[0]) * double(v[1]) / double(v[2]) : double(v[0]);
      }
      out.push_back(r);
    }
    return out;
  }
};

// One counter on `pid` (0: this process), counting from its next exec and
// following every child; the fd, or -errno.
int open_one(const Event& e, pid_t pid) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.disabled = 1;
  attr.enable_on_exec = 1;  // from the shell's exec: not runnerd's fork
  attr.inherit = 1;         // and every child it starts
  attr.exclude_kernel = 0;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  const long fd = ::syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

class PerfSource final : public CounterSource {
 public:
  std::unique_ptr<CounterSet> open(pid_t pid, const std::vector<std::string>& names) override {
    std::vector<int> opened;
    for (const auto& name : names) {
      const Event* e = find_event(name);
      opened.push_back(e ? open_one(*e, pid) : -ENOENT);
    }
    return adopt_counters(names, opened);
  }
};

}  // namespace

std::vector<int> open_own_counters(const std::vector<std::string>& names) {
  std::vector<int> opened;
  for (const auto& name : names) {
    const Event* e = find_event(name);
    opened.push_back(e ? open_one(*e, 0) : -ENOENT);
  }
  return opened;
}

std::unique_ptr<CounterSet> adopt_counters(const std::vector<std::string>& names, const std::vector<int>& opened) {
  auto set = std::make_unique<PerfSet>();
  for (size_t i = 0; i < names.size(); ++i) {
    PerfSet::One one;
    one.name = names[i];
    const Event* e = find_event(names[i]);
    const int fd = i < opened.size() ? opened[i] : -ENOENT;
    if (!e) one.unavailable = "not a counter benchbox knows";
    else if (fd < 0) one.unavailable = why_not(*e, -fd);
    else one.fd.reset(fd);
    set->counters.push_back(std::move(one));
  }
  return set;
}

const std::vector<std::string>& counter_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& e : kEvents) v.push_back(e.name);
    return v;
  }();
  return names;
}

CounterSource& perf_counters() {
  static PerfSource source;
  return source;
}

}  // namespace bb::exec
