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
switches = [b for b in rs["benchmarks"] if b["metric"] == "voluntary_switches"]
assert switches and switches[0]["status"] == "skipped", switches
# The gate opened the counters inside the unit and handed them to runnerd:
# task-clock counts (perf_event_paranoid 2 allows counting oneself), and a
# hardware counter is there or says why not (no PMU in a VM).
clock = [b for b in rs["benchmarks"] if b["metric"] == "task_clock"]
assert clock and clock[0]["status"] == "ok" and len(clock[0]["samples"]) == 2, clock
assert all(s > 0 for s in clock[0]["samples"]), clock
ins = [b for b in rs["benchmarks"] if b["metric"] == "instructions"]
assert ins and (ins[0]["status"] == "ok" or ins[0]["reason"].startswith("unavailable: ")), ins
print("   its own counters: task_clock", clock[0]["samples"], "; instructions:", ins[0]["status"], ins[0].get("reason", ""))
print("   its own result: wall_time samples", wall[0]["samples"], "; containment:", containment)
