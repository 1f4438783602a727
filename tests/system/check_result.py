# check_containment (lib.sh): the attacking job's own result is what it
# measured, with the containment it ran under. Argument: its result.json.
import json
import sys

doc = json.load(open(sys.argv[1]))
rs = doc["head"]
containment = rs.get("containment", "")
assert "transient service as benchbox-job" in containment, containment
wall = [b for b in rs["benchmarks"] if b["metric"] == "wall_time" and b["suite"] == "attack"]
assert wall and wall[0]["status"] == "ok" and len(wall[0]["samples"]) == 2, wall
# The job's supervisor waits for each command itself: its rusage, context
# switches included, reaches runnerd (lib/exec/supervisor.h).
switches = [b for b in rs["benchmarks"] if b["metric"] == "voluntary_switches"]
assert switches and switches[0]["status"] == "ok" and len(switches[0]["samples"]) == 2, switches
# The gate opened the counters inside the unit and handed them to runnerd:
# each is there with its samples, or skipped with the kernel's reason
# (inside this nspawn container perf_event_open is not permitted to an
# unprivileged user; a VM has no PMU for instructions).
clock = [b for b in rs["benchmarks"] if b["metric"] == "task_clock"]
ins = [b for b in rs["benchmarks"] if b["metric"] == "instructions"]
for c in (clock, ins):
    assert c, rs["benchmarks"]
    assert (c[0]["status"] == "ok" and len(c[0]["samples"]) == 2 and all(s > 0 for s in c[0]["samples"])) or \
        (c[0]["status"] == "skipped" and c[0]["reason"].startswith("unavailable: ")), c
print("   its own counters: task_clock", clock[0]["status"], clock[0]["samples"] or clock[0].get("reason", ""),
      "; instructions:", ins[0]["status"], ins[0].get("reason", ""))
print("   its own result: wall_time samples", wall[0]["samples"], "; containment:", containment)
