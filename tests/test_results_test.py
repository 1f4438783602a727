#!/usr/bin/env python3
"""scripts/test-results.py: what scripts/test.sh's closing lines count.

Usage: test_results_test.py SOURCE_DIR
Feeds it meson testlog.json files and checks its lines and counts, with and
without --ci. The last case runs the real system test with systemd-nspawn
hidden from PATH and checks that its skip is named, and is a failure under
CI=true.
"""
import json
import os
import subprocess
import sys
import tempfile

source = os.path.abspath(sys.argv[1])
counter = os.path.join(source, "scripts", "test-results.py")
failures = []


def check(what, cond):
    if not cond:
        failures.append(what)
        print(f"not ok: {what}")


def run(tests, ci=False):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        for t in tests:
            f.write(json.dumps(t) + "\n")
    try:
        args = [sys.executable, counter] + (["--ci"] if ci else []) + [f.name]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    finally:
        os.unlink(f.name)
    return out[:-1], out[-1]


log = [
    {"name": "unit-a", "result": "OK", "stdout": ""},
    {"name": "unit-b", "result": "OK", "stdout": "SKIP nothing: a line that only looks like a skip"},
    {"name": "unit-exec-root", "result": "SKIP",
     "stdout": "All tests passed\nSKIP as root: a command runs as the job's identity: not root\n"},
    {"name": "unit-exec-host", "result": "SKIP", "stdout": "SKIP meter: no cgroup-v2 cpu.stat here\n"},
    {"name": "unit-store-postgres", "result": "SKIP", "stdout": "",
     "stderr": "SKIP test-store: PostgreSQL is not installed\n"},
    {"name": "integration-x", "result": "FAIL", "stdout": ""},
    {"name": "integration-y", "result": "TIMEOUT", "stdout": ""},
    {"name": "integration-z", "result": "SKIP", "stdout": "exited quietly"},
]

lines, counts = run(log)
check("counts without --ci", counts == "counts 2 2 4")
check("a skip's reason is named",
      "SKIP unit-exec-root: as root: a command runs as the job's identity: not root" in lines)
check("a reason on stderr is found", "SKIP unit-store-postgres: test-store: PostgreSQL is not installed" in lines)
check("a skip with no SKIP line says so",
      "SKIP integration-z: no reason given (it exited 77 without a SKIP line)" in lines)
check("failures and timeouts are named", "FAIL integration-x: fail" in lines and "FAIL integration-y: timeout" in lines)
check("a passed test is not listed", not any("unit-b" in line for line in lines))

lines, counts = run(log, ci=True)
check("counts with --ci: every skip but -host's fails", counts == "counts 2 5 1")
check("under CI a root-only skip is a failure with its reason",
      any(line.startswith("FAIL unit-exec-root: skipped, and under CI=true") and line.endswith("not root")
          for line in lines))
check("under CI a -host skip is listed, not failed", "SKIP unit-exec-host: meter: no cgroup-v2 cpu.stat here" in lines)

# A failed test's line is followed by why: Catch2's failed assertion with
# its expansion (not the INFO message after it), and a sanitizer's error.
catch2 = ("-" * 79 + "\na case\n" + "-" * 79 + "\n/src/t.cpp:250\n" + "." * 79 + "\n\n"
          "/src/t.cpp:256: FAILED:\n  REQUIRE( wait_until(...) )\nwith expansion:\n  false\n"
          "with message:\n  " + "queued log line\n  " * 500 + "FAIL a daemon's own word\n\n" + "=" * 79 + "\ntest cases: 8 | 7 passed | 1 failed\n")
asan = "==12==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n" + "frame\n" * 40 + \
    "SUMMARY: AddressSanitizer: heap-use-after-free /src/a.cpp:3 in f\n"
lines, counts = run([{"name": "integration-c", "result": "FAIL", "stdout": catch2},
                     {"name": "integration-a", "result": "FAIL", "stdout": "", "stderr": asan}])
check("a failed assertion follows its test's line",
      lines[:6] == ["FAIL integration-c: fail", '  in "a case":', "  /src/t.cpp:256: FAILED:", "  REQUIRE( wait_until(...) )",
                    "  with expansion:", "  false"])
check("an INFO message is left out, its FAIL lines too",
      not any("queued log line" in line or "daemon's own" in line for line in lines))
check("a sanitizer's error follows its test's line",
      lines[6:] == ["FAIL integration-a: fail", "  ==12==ERROR: AddressSanitizer: heap-use-after-free on address 0x1",
                    "  SUMMARY: AddressSanitizer: heap-use-after-free /src/a.cpp:3 in f"])
# An explicit FAIL's block holds the INFO text first, its own text last.
explicit = ("/src/t.cpp:7: FAILED:\nexplicitly with messages:\n  a daemon's log\n  FAIL its own word\n"
            "  queued did not answer\n  its log follows\n\n")
lines, _ = run([{"name": "integration-e", "result": "FAIL", "stdout": explicit}])
check("an explicit FAIL's own text follows, not the INFO before it",
      lines == ["FAIL integration-e: fail", "  /src/t.cpp:7: FAILED:", "  queued did not answer", "  its log follows"])
check("the why lines are bounded", len(run([{"name": "x", "result": "FAIL", "stdout": "FAIL " + "y" * 900 + "\n" * 2 +
                                              "not ok\n" * 40}])[0]) == 1 + 12)

out = subprocess.run([sys.executable, counter, "/nonexistent/testlog.json"], capture_output=True, text=True)
check("a missing log is a failure", out.stdout.splitlines()[-1] == "counts 0 1 0")

# The real system test, with systemd-nspawn hidden from PATH: it must exit
# 77 with its reason, and that skip fails a CI run.
with tempfile.TemporaryDirectory() as shim, tempfile.TemporaryDirectory() as build:
    seen = set()
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            path = os.path.join(d, name)
            if name == "systemd-nspawn" or name in seen or not os.access(path, os.X_OK):
                continue
            seen.add(name)
            os.symlink(path, os.path.join(shim, name))
    env = dict(os.environ, PATH=shim)
    script = os.path.join(source, "tests", "system", "run-system-test.sh")
    proc = subprocess.run(["bash", script, build, source], capture_output=True, text=True, env=env, timeout=60)
    check(f"the system test without systemd-nspawn exits 77 (got {proc.returncode}: {proc.stderr[-300:]})",
          proc.returncode == 77)
    want = "systemd-nspawn" if os.geteuid() == 0 else "needs root"
    lines, counts = run([{"name": "system-nspawn", "result": "SKIP", "stdout": proc.stdout, "stderr": proc.stderr}],
                        ci=True)
    check(f"its skip is a named failure under CI ({lines})",
          counts == "counts 0 1 0" and len(lines) == 1 and lines[0].startswith("FAIL system-nspawn:") and
          want in lines[0])
    lines, counts = run([{"name": "system-nspawn", "result": "SKIP", "stdout": proc.stdout}])
    check("and a named skip otherwise", counts == "counts 0 0 1" and want in lines[0])

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
