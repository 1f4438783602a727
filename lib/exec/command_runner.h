// Running benchmark and build commands is an OS edge: runnerd talks to a
// CommandRunner. PinnedChildRunner forks a child pinned with
// sched_setaffinity (development, no systemd as PID 1); the systemd
// transient-scope runner (scope_runner.h) puts the child into a scope in
// benchbox-bench.slice. Tests use either for real: they are cheap.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/identity.h"
#include "util/result.h"

namespace bb::exec {

// The tasks of the cpuset that tunerd's shielding keeps the benchmark CPUs
// for on a cgroup-v1 host (tuning/shielding.h, kCpusetBench): a pinned
// child joins it before pinning itself, and a contained command's gate is
// admitted to it (service_runner.h), where it exists.
inline constexpr const char* kBenchCpusetTasks = "/sys/fs/cgroup/cpuset/benchbox-bench/tasks";

// One event counter of a command (counters.h): its count over the command
// and every child it started, or why there is none.
struct CounterReading {
  std::string name;          // "instructions", "cycles", ...
  bool available = false;
  double value = 0;          // scaled up when the kernel multiplexed the PMU
  std::string unavailable;   // why not, e.g. "no hardware PMU (perf_event_open: No such file or directory)"
};

struct Command {
  std::string shell;                       // run as /bin/sh -c <shell>
  std::string cwd;
  std::map<std::string, std::string> env;  // added to a minimal clean environment
  std::vector<int> cpus;                   // pin to these; empty = no pinning
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::string unit_name;                   // scope name ("benchbox-job-12-3.scope")
  std::map<std::string, std::string> log_fields;  // JOB_ID=... for journal lines
  size_t max_output_bytes = 1 << 20;       // captured output beyond this is dropped (counted)
  // Spare capacity kept after the captured stdout: a harness's results
  // parsed in place (formats::kTextPadding), not from a padded copy.
  size_t stdout_padding = 0;
  std::vector<std::string> counters;       // event counters to read (counters.h), from exec on
  bool no_aslr = false;                    // personality(ADDR_NO_RANDOMIZE) for the whole tree
  // Run as this identity (identity.h): the child drops to it between fork
  // and exec, and every process of it is killed when the command ends.
  // Empty: the runner's own user.
  std::optional<Identity> identity;
  // What the command may reach (needs CAP_SYS_ADMIN for anything but
  // full): its own network namespace with loopback up, or with nothing.
  enum class Network { full, loopback, none };
  Network network = Network::full;
  // Per-job bounds (runner.memory_max_bytes, tasks_max, file_size_max_bytes);
  // 0 = none. The transient service enforces all three (MemoryMax=,
  // TasksMax=, LimitFSIZE=); the pinned child only the last two, as
  // RLIMIT_FSIZE and, with an identity of its own, RLIMIT_NPROC.
  struct Limits {
    uint64_t memory_max_bytes = 0;
    uint64_t tasks_max = 0;
    uint64_t file_size_max_bytes = 0;
  } limits;
  // The directory the command may write (the job's), where the runner
  // confines writes (the transient service: ReadWritePaths=).
  std::string writable_dir;
  // Called with each output line as it arrives (e.g. to forward to the journal).
  std::function<void(std::string_view line, bool is_stderr)> on_line;
  // Set instead of `shell`: the program and its arguments, run without a
  // shell (argv[0] a path, or looked up in the command's PATH). For the
  // box's own tools (apt-get, dpkg), whose arguments no one should quote.
  std::vector<std::string> argv;

  std::string display() const;  // the shell line, or the argv joined by spaces
};

// What the runner execs: /bin/sh -c <shell>, or `argv` with argv[0]
// resolved in `env`'s PATH.
Result<std::vector<std::string>> exec_argv(const Command& c, const std::map<std::string, std::string>& env);

struct Outcome {
  int exit_code = -1;          // valid when !signaled
  int term_signal = 0;         // the signal that killed it, if any
  bool timed_out = false;
  bool cancelled = false;
  double timeout_seconds = 0;  // the limit that was hit, when timed_out
  std::string stdout_text;     // captured (capped)
  std::string stderr_text;
  size_t dropped_bytes = 0;
  double wall_seconds = 0;
  double user_seconds = 0;     // rusage of the whole process tree that was waited for
  double system_seconds = 0;
  int64_t voluntary_switches = 0;    // ru_nvcsw: the tree waited for I/O or a lock
  int64_t involuntary_switches = 0;  // ru_nivcsw: the tree was preempted
  bool switches_measured = true;     // false where no rusage reaches the runner (the transient service)
  std::string switches_unavailable;  // why not
  // A per-job bound the command hit ("memory: MemoryMax=1073741824 reached,
  // the kernel's OOM killer stopped it"); "" = none. Makes it a failure.
  std::string limit_hit;
  // Peak memory: the scope's cgroup memory.peak (every process of the
  // command together) where the kernel has it, else ru_maxrss (the largest
  // single process of the tree). memory_source says which.
  int64_t peak_memory_bytes = 0;
  std::string memory_source;         // "cgroup memory.peak" or "ru_maxrss"
  std::vector<CounterReading> counters;  // one per Command::counters, in order
  std::string isolation;       // "affinity:1", "scope:benchbox-bench.slice", ...
  bool core_dumped = false;    // the signal made the kernel write a core dump
  // Who sent the killing signal, where the kernel keeps a record of it
  // ("the kernel's OOM killer": the scope's memory.events); "" where it
  // keeps none. A SIGKILL that is none of benchbox's (timeout, cancel, a
  // bound) nor the kernel's is then said to come from outside benchbox.
  std::string killed_by;

  bool success() const { return !timed_out && !cancelled && term_signal == 0 && exit_code == 0 && limit_hit.empty(); }
  std::string describe() const;  // "exit status 2", "killed by SIGSEGV", "timed out after 30 s"
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs to completion, timeout, or until *cancel becomes true (the whole
  // process group / scope is killed in the last two cases). An error means
  // the command could not be started at all.
  virtual Result<Outcome> run(const Command& command, const std::atomic<bool>* cancel) = 0;
  virtual std::string describe() const = 0;
  // The job whose commands ran is over: what the runner kept for it goes
  // (supervised_runner.h: the job's units). Runners that keep nothing
  // between commands need not care.
  virtual void end_job() {}
};

}  // namespace bb::exec
