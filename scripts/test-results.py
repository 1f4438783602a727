#!/usr/bin/env python3
"""Counts one `meson test` run from its meson-logs/testlog.json.

scripts/test.sh calls this after every `meson test`. It prints one line per
test that did not pass or was skipped, then, last, a line of counts:

    SKIP unit-exec-host: meter: this process's own cgroup, ...: no cgroup-v2 cpu.stat here
    FAIL integration-reporterd-root: skipped, and under CI=true a skip is a failure: not root: ...
    counts PASSED FAILED SKIPPED

A skipped test's reason is what it printed on a line that starts with
"SKIP" (tests/support/skip.h, tests/postgres/with-postgres.sh and
tests/system/lib.sh all print one). With --ci, a skip is a failure: CI runs
as root on a machine that has every package, so the system, browser,
PostgreSQL and root-only tests must all have run there. The exception is a
test named *-host: its cases need something of the host's own make (systemd
not being PID 1, cgroup v2's cpu.stat) that no package can give, so one of
its pair always skips; it is listed, not failed.
"""
import json
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}


def reasons(test):
    text = (test.get("stdout") or "") + "\n" + (test.get("stderr") or "")
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("SKIP"):
            continue
        reason = line[4:].lstrip(" :")
        if reason and reason not in found:
            found.append(reason)
    return found or ["no reason given (it exited 77 without a SKIP line)"]


def count(path, ci):
    passed = failed = skipped = 0
    lines = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            tests = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        lines.append(f"FAIL {path}: cannot read the test log: {e}")
        return lines, 0, 1, 0
    for t in tests:
        name, result = t.get("name", "?"), t.get("result", "?")
        if result in PASSED:
            passed += 1
        elif result in SKIPPED:
            why = "; ".join(reasons(t))
            if ci and not name.endswith("-host"):
                failed += 1
                lines.append(f"FAIL {name}: skipped, and under CI=true a skip is a failure: {why}")
            else:
                skipped += 1
                lines.append(f"SKIP {name}: {why}")
        else:
            failed += 1
            lines.append(f"FAIL {name}: {result.lower()}")
    return lines, passed, failed, skipped


def main(argv):
    args = [a for a in argv[1:] if a != "--ci"]
    if len(args) != 1:
        print("usage: test-results.py [--ci] BUILD_DIR/meson-logs/testlog.json", file=sys.stderr)
        return 2
    lines, passed, failed, skipped = count(args[0], "--ci" in argv[1:])
    for line in lines:
        print(line)
    print(f"counts {passed} {failed} {skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
