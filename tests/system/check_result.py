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
print("   its own result: wall_time samples", wall[0]["samples"], "; containment:", containment)
