#!/usr/bin/env python3
"""benchbox-canary, run short: a result set of the two workloads, one
sample a round, and an operator's summary on stderr; bad arguments refused."""
import json
import subprocess
import sys

canary = sys.argv[1]
run = subprocess.run([canary, "--rounds", "3", "--scale", "0.01"], capture_output=True, text=True, timeout=120)
assert run.returncode == 0, run.stderr
rs = json.loads(run.stdout)
assert rs["schema"] == "benchbox.resultset/1", rs.get("schema")
by_name = {b["name"]: b for b in rs["benchmarks"]}
assert sorted(by_name) == ["cpu", "memory"], sorted(by_name)
for b in by_name.values():
    assert b["suite"] == "canary" and b["metric"] == "wall_time" and b["unit"] == "s", b
    assert len(b["samples"]) == 3 and all(s > 0 for s in b["samples"]), b["samples"]
    # Never paired with another canary run's samples: no rounds.
    assert not b.get("rounds"), b.get("rounds")
assert by_name["cpu"]["extra"]["checksum"] != "", by_name["cpu"]["extra"]
assert "CV" in run.stderr and "memory median" in run.stderr, run.stderr

for bad in (["--rounds", "1"], ["--scale", "0"], ["--what"]):
    r = subprocess.run([canary] + bad, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "usage" in r.stderr, (bad, r.returncode, r.stderr)
print("canary: result set of 2 workloads x 3 rounds; bad arguments refused")
