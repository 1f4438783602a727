// benchbox-meter: the two trusted ends of every contained command
// (lib/exec/service_runner.h).
//   benchbox-meter OUT: the privileged ExecStopPost=. PID 1 runs it in the
//     command's cgroup after the last of the command's processes is gone;
//     it writes the cgroup's CPU time, memory peak and bound events to OUT,
//     a file in runnerd's own directory (lib/exec/meter.h).
//   benchbox-meter --gate COUNTERS [--pin CPUS] -- ARGV...: the ExecStart=.
//     With --pin it waits for runnerd's go and pins itself to CPUS (a v1
//     shielded host). It opens the counters on itself, reports them and the
//     start time to runnerd on stdin, and execs ARGV (lib/exec/gate.h).
//   benchbox-meter --supervise: a job's supervisor, the ExecStart= of its
//     one contained unit; runs the job's commands as runnerd asks on stdin
//     (lib/exec/supervisor.h).
#include <cstdio>
#include <cstring>

#include "exec/gate.h"
#include "exec/meter.h"
#include "exec/supervisor.h"

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "--gate") == 0 && std::strcmp(argv[3], "--") == 0)
    return bb::exec::run_gate(argv[2], argv + 4);
  if (argc >= 7 && std::strcmp(argv[1], "--gate") == 0 && std::strcmp(argv[3], "--pin") == 0 &&
      std::strcmp(argv[5], "--") == 0)
    return bb::exec::run_gate(argv[2], argv + 6, argv[4]);
  if (argc == 2 && std::strcmp(argv[1], "--supervise") == 0) return bb::exec::run_supervisor(0);
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: benchbox-meter OUT | benchbox-meter --gate COUNTERS [--pin CPUS] -- PROGRAM "
                         "[ARG...] | benchbox-meter --supervise\n");
    return 2;
  }
  auto st = bb::exec::write_meter_report(argv[1]);
  if (!st) {
    std::fprintf(stderr, "benchbox-meter: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}
