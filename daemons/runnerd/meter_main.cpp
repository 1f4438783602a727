// benchbox-meter OUT: the privileged ExecStopPost= of every contained
// command (lib/exec/service_runner.h). PID 1 runs it in the command's
// cgroup after the last of the command's processes is gone; it writes the
// cgroup's CPU time, memory peak and limit events to OUT, a file in
// runnerd's own directory (lib/exec/meter.h).
#include <cstdio>

#include "exec/meter.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: benchbox-meter OUT\n");
    return 2;
  }
  auto st = bb::exec::write_meter_report(argv[1]);
  if (!st) {
    std::fprintf(stderr, "benchbox-meter: %s\n", st.error().message.c_str());
    return 1;
  }
  return 0;
}
