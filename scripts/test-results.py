#!/usr/bin/env python3
"""Counts one `meson test` run from its meson-logs/testlog.json.

scripts/test.sh calls this after every `meson test`. It prints one line per
test that did not pass or was skipped, then, last, a line of counts:

    SKIP unit-exec-host: meter: this process's own cgroup, ...: no cgroup-v2 cpu.stat here
    FAIL integration-reporterd-root: skipped, and under CI=true a skip is a failure: not root: ...
    counts PASSED FAILED SKIPPED

A failed test's line is followed by what says why, indented: each Catch2
assertion that failed with the expression after it (under its case's
name), a sanitizer's or a shell test's error line (at most a dozen lines,
each cut at 300 characters). The CI log keeps only its tail, and that is where these land;
a test's whole output is still printed above by `meson test
--print-errorlogs`.

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


# The lines that say why a test failed: Catch2's "file:line: FAILED:" and
# the two lines after it (the macro and its expansion), and error lines of
# the sanitizers and of shell tests.
ERROR_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: ",
               "FAIL ", "not ok")
MAX_WHY_LINES = 12
MAX_WHY_CHARS = 300


def failure_lines(test):
    text = (test.get("stdout") or "") + "\n" + (test.get("stderr") or "")
    lines = text.splitlines()
    found = []
    case = told = None
    in_header = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        # Catch2 names the case (and its sections) between two rules of dashes.
        if len(stripped) > 60 and set(stripped) == {"-"}:
            in_header = not in_header
            if in_header and i + 1 < len(lines):
                case = lines[i + 1].strip()
        elif stripped.endswith("FAILED:"):
            if case and case != told:
                found.append(f"in \"{case}\":")
                told = case
            found.append(stripped)
            # The macro and its expansion, up to the next blank line.
            for after in lines[i + 1:i + 5]:
                if not after.strip() or after.startswith("with message"):
                    break
                found.append(after.strip())
        elif any(mark in stripped for mark in ERROR_MARKS):
            found.append(stripped)
    short = [line if len(line) <= MAX_WHY_CHARS else line[:MAX_WHY_CHARS] + "..." for line in found]
    return short[:MAX_WHY_LINES]


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
            lines.extend("  " + line for line in failure_lines(t))
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
