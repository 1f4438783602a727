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
each cut at 300 characters), never a line of an INFO message (daemons'
logs say FAIL and ERROR of their own). The CI log keeps only its tail,
and that is where these land; a test's whole output is still printed
above by `meson test --print-errorlogs`.

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


# The lines that say why a test failed: each Catch2 failure's block
# ("file:line: FAILED:", the macro, its expansion, the last lines of an
# explicit FAIL's text, but not an INFO's), and error lines of the
# sanitizers and of shell tests.
ERROR_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: ",
               "FAIL ", "not ok")
MAX_WHY_LINES = 12
MAX_WHY_CHARS = 300


def catch2_block(lines, i):
    """The lines worth keeping of the failure block at lines[i] ("...: FAILED:"),
    and the index after the block (Catch2 ends it with a blank line)."""
    end = i + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    kept = [lines[i].strip()]
    part = "macro"
    explicit = []
    for line in lines[i + 1:end]:
        if line.startswith("with expansion"):
            part = "expansion"
        elif line.startswith("with message"):
            part = "info"  # INFO text: daemons' logs, often
            continue
        elif line.startswith("explicitly with message"):
            part = "explicit"
            continue
        if part in ("macro", "expansion"):
            kept.append(line.strip())
        elif part == "explicit":
            explicit.append(line.strip())
    # INFO's text comes first in an explicit FAIL's block, its own text last.
    return kept + explicit[-2:], end


def failure_lines(test):
    text = (test.get("stdout") or "") + "\n" + (test.get("stderr") or "")
    lines = text.splitlines()
    found = []
    case = told = None
    in_header = False
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if len(stripped) > 60 and set(stripped) == {"-"}:
            # Catch2 names the case (and its sections) between two rules of dashes.
            in_header = not in_header
            if in_header and i + 1 < len(lines):
                case = lines[i + 1].strip()
        elif stripped.endswith("FAILED:"):
            if case and case != told:
                found.append(f"in \"{case}\":")
                told = case
            block, i = catch2_block(lines, i)
            found.extend(block)
            continue
        elif any(mark in stripped for mark in ERROR_MARKS):
            found.append(stripped)
        i += 1
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
