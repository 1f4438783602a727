// bench/runner: what runnerd's ways of running a benchmark cost, each as a
// ratio against a baseline measured in the same run.
//   1. one benchmark process: plain fork/exec/wait of /bin/true (baseline),
//      PinnedChildRunner (pinning, pipes, a clean environment, rusage), the
//      same as a job's own identity where this runs as root (the drop before
//      exec and the kill of the uid's processes after), and the systemd
//      transient scope where systemd is PID 1 (else says why not), and the
//      contained launch: a transient service as benchbox-job (--meter PATH:
//      benchbox-meter, default the package's), and the same with one unit
//      per job whose supervisor runs the commands;
//   2. callgrind's slowdown on the demo's workload (scripts/demo.sh's loop,
//      built here), plain vs under runnerd's callgrind command;
//   3. a build-cache hit vs a cold build (export + cc -O2) of that demo tree.
// Run: build/bench/bench-runner [--processes N] [--only processes] [--meter PATH]
// (--only processes: part 1 alone, as the nspawn system test runs it inside
// its container, where systemd is PID 1 and the scope can be measured).
#include <pwd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "cache/build_cache.h"
#include "exec/pinned_runner.h"
#include "exec/scope_runner.h"
#include "exec/service_runner.h"
#include "exec/supervised_runner.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/text.h"

extern char** environ;

using namespace bb;
using Steady = std::chrono::steady_clock;

namespace {

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

int run_plain(const char* path, char* const* argv) {
  pid_t pid;
  if (posix_spawn(&pid, path, nullptr, nullptr, argv, environ) != 0) return -1;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {}
  return st;
}

double per_process(exec::CommandRunner& r, int n, const std::string& shell,
                   std::optional<exec::Identity> identity = std::nullopt,
                   exec::Command::Network network = exec::Command::Network::full, bool service = false) {
  exec::Command c;
  // As runnerd bounds a job (the appliance config's defaults).
  if (service) c.limits = {8ull << 30, 4096, 16ull << 30};
  c.shell = shell;
  c.cwd = "/tmp";
  c.identity = identity;
  c.network = network;
  c.cpus = {int(sysconf(_SC_NPROCESSORS_ONLN)) - 1};
  auto t = Steady::now();
  for (int i = 0; i < n; ++i) {
    c.unit_name = "benchbox-bench-" + std::to_string(getpid()) + "-" + std::to_string(i) + (service ? ".service" : ".scope");
    auto o = r.run(c, nullptr);
    if (!o || !o->success()) {
      std::fprintf(stderr, "bench-runner: %s failed: %s\n", shell.c_str(), o ? o->describe().c_str() : o.error().message.c_str());
      std::exit(1);
    }
  }
  return seconds_since(t) / n;
}

// Runs `shell` once with the plain pinned runner; its wall time.
double timed(const std::string& shell, const std::string& cwd) {
  exec::PinnedChildRunner r;
  exec::Command c;
  c.shell = shell;
  c.cwd = cwd;
  c.timeout = std::chrono::minutes(10);
  auto o = r.run(c, nullptr);
  if (!o || !o->success()) {
    std::fprintf(stderr, "bench-runner: '%s' failed: %s\n%s", shell.c_str(),
                 o ? o->describe().c_str() : o.error().message.c_str(), o ? o->stderr_text.c_str() : "");
    std::exit(1);
  }
  return o->wall_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 200;
  bool processes_only = false;
  std::string meter = "/usr/libexec/benchbox/benchbox-meter";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--meter") == 0) meter = argv[i + 1];
    if (std::strcmp(argv[i], "--processes") == 0) n = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) {
      if (std::strcmp(argv[i + 1], "processes") != 0) {
        std::fprintf(stderr, "bench-runner: --only takes 'processes'\n");
        return 2;
      }
      processes_only = true;
    }
  }
  if (n < 1) {
    std::fprintf(stderr, "bench-runner: --processes must be at least 1\n");
    return 2;
  }

  // 1. Per process.
  char true_path[] = "/bin/true";
  char* true_argv[] = {true_path, nullptr};
  auto t = Steady::now();
  for (int i = 0; i < n; ++i) run_plain(true_path, true_argv);
  const double plain = seconds_since(t) / n;
  exec::PinnedChildRunner pinned;
  const double pinned_cost = per_process(pinned, n, "exec /bin/true");
  std::printf("per process (%d runs of /bin/true)\n", n);
  std::printf("  plain fork/exec/wait          %8.3f ms  1.00x (baseline)\n", plain * 1e3);
  std::printf("  pinned child runner           %8.3f ms  %.2fx\n", pinned_cost * 1e3, pinned_cost / plain);
  // The job's own identity (exec/identity.h): the drop before exec, and
  // killing every process of the uid afterwards (one more fork).
  if (exec::can_change_identity()) {
    const double contained = per_process(pinned, n, "exec /bin/true", exec::job_identity(65535));
    std::printf("  pinned child, job identity    %8.3f ms  %.2fx  (%.2fx the pinned child)\n", contained * 1e3,
                contained / plain, contained / pinned_cost);
    const double loopback = per_process(pinned, n, "exec /bin/true", exec::job_identity(65535),
                                        exec::Command::Network::loopback);
    std::printf("  ... and loopback-only network %8.3f ms  %.2fx  (%.2fx the pinned child)\n", loopback * 1e3,
                loopback / plain, loopback / pinned_cost);
  } else {
    std::printf("  pinned child, job identity    unavailable here: not root\n");
  }
  if (sd_booted() > 0) {
    exec::ScopeRunner scope({});
    const double scope_cost = per_process(scope, n, "exec /bin/true");
    std::printf("  transient scope runner        %8.3f ms  %.2fx\n", scope_cost * 1e3, scope_cost / plain);
    // The contained launch runnerd uses under the package: a transient
    // service as benchbox-job, sandboxed, loopback-only network, bounded,
    // measured by benchbox-meter (exec/service_runner.h).
    char meter_tmpl[] = "/var/tmp/bb-bench-meter-XXXXXX";
    exec::ServiceOptions so;
    so.meter_program = meter;
    so.meter_dir = mkdtemp(meter_tmpl);
    if (::access(meter.c_str(), X_OK) == 0 && ::getpwnam(so.user.c_str())) {
      exec::ServiceRunner service(so);
      const double service_cost = per_process(service, n, "exec /bin/true", std::nullopt,
                                              exec::Command::Network::loopback, true);
      std::printf("  contained service runner      %8.3f ms  %.2fx  (%.2fx the scope)\n", service_cost * 1e3,
                  service_cost / plain, service_cost / scope_cost);
      // The same containment, one unit per job: its supervisor runs the
      // commands (exec/supervised_runner.h). The unit's start is paid once
      // per job, at the first command: the first of n runs here.
      exec::SupervisedRunner supervised(so);
      const double supervised_cost = per_process(supervised, n, "exec /bin/true", std::nullopt,
                                                 exec::Command::Network::loopback, true);
      supervised.end_job();
      std::printf("  contained, one unit per job   %8.3f ms  %.2fx  (%.2fx the scope)\n", supervised_cost * 1e3,
                  supervised_cost / plain, supervised_cost / scope_cost);
      // What its first command pays alone: the unit's start, once per job.
      exec::SupervisedRunner fresh(so);
      const double first = per_process(fresh, 1, "exec /bin/true", std::nullopt, exec::Command::Network::loopback, true);
      fresh.end_job();
      std::printf("  ... a job's first command     %8.3f ms  %.2fx  (%.2fx the scope)\n", first * 1e3, first / plain,
                  first / scope_cost);
    } else {
      std::printf("  contained service runner      unavailable here: no %s or no user %s\n", meter.c_str(),
                  so.user.c_str());
    }
    std::filesystem::remove_all(so.meter_dir);
  } else {
    std::printf("  transient scope runner        unavailable here: systemd is not PID 1 (run inside the nspawn system test's container)\n");
  }
  if (processes_only) return 0;

  // The demo's workload, built once.
  char tmpl[] = "/tmp/bb-bench-runner-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string src = dir + "/src";
  (void)make_dirs(src);
  (void)write_file_atomic(src + "/bench.c",
                          "#include <stdio.h>\n#include \"work.h\"\nint main(void) {\n"
                          "  volatile unsigned long x = 1;\n"
                          "  for (unsigned long i = 0; i < WORK; ++i) x = x * 6364136223846793005ul + i;\n"
                          "  printf(\"%lu\\n\", (unsigned long)x);\n  return 0;\n}\n");
  // A tenth of the demo's 60 M iterations: callgrind runs it ~50x slower.
  (void)write_file_atomic(src + "/work.h", "#define WORK 6000000ul\n");

  // 3. Build cache: cold = a copy of the exported tree + the demo's build; hit = restore.
  FakeClock fake;
  cache::BuildCache cache(dir + "/cache", 1ull << 30, fake);
  const std::string key = cache::build_key("tree", {"cc -O2 -o bench bench.c"}, "env");
  double cold = 0, hit = 0;
  const int builds = 5;
  for (int i = 0; i < builds; ++i) {
    const std::string w = dir + "/w" + std::to_string(i);
    t = Steady::now();
    std::filesystem::copy(src, w, std::filesystem::copy_options::recursive);
    timed("cc -O2 -o bench bench.c", w);
    cold += seconds_since(t);
    if (i == 0 && !cache.store(key, w)) return 1;
    const std::string r = dir + "/r" + std::to_string(i);
    t = Steady::now();
    auto restored = cache.restore(key, r);
    hit += seconds_since(t);
    if (!restored || !*restored) return 1;
  }
  std::printf("build (the demo's tree, %d times each)\n", builds);
  std::printf("  cold: export + cc -O2         %8.2f ms  1.00x (baseline)\n", cold / builds * 1e3);
  std::printf("  build-cache hit               %8.2f ms  %.3fx\n", hit / builds * 1e3, hit / cold);

  // 2. Callgrind's slowdown.
  const std::string w = dir + "/w0";
  double plain_run = 0;
  for (int i = 0; i < 3; ++i) plain_run += timed("./bench", w) / 3;
  (void)make_dirs(dir + "/cg");
  const double cg = timed("exec valgrind --tool=callgrind --quiet --cache-sim=yes --branch-sim=yes --I1=32768,8,64 "
                          "--D1=32768,8,64 --LL=8388608,16,64 --callgrind-out-file=" +
                              shell_quote(dir + "/cg/callgrind.out.%p") + " ./bench",
                          w);
  std::printf("callgrind (the demo's loop, 6 M iterations)\n");
  std::printf("  plain                         %8.1f ms  1.00x (baseline)\n", plain_run * 1e3);
  std::printf("  under callgrind               %8.1f ms  %.1fx\n", cg * 1e3, cg / plain_run);
  std::filesystem::remove_all(dir);
  return 0;
}
