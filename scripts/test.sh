#!/usr/bin/env bash
# Runs every benchbox test: unit and integration tests in a normal build and
# again under AddressSanitizer + UBSan, every fuzzer for a bounded time, and
# the system test on a booted systemd (systemd-nspawn). Installs what it needs.
#   FUZZ_SECONDS=30  seconds per fuzzer (0 skips fuzzing)
#   SKIP_ASAN=1, SKIP_SYSTEM=1  skip those stages (development only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"

jobs=${JOBS:-$(nproc)}
passed=0
failed=0

# Runs `meson test` and adds its Ok/Fail counts to the totals.
run_suites() {
  local dir=$1; shift
  local log
  log=$(mktemp)
  local rc=0
  meson test -C "$dir" --print-errorlogs --num-processes 1 "$@" 2>&1 | tee "$log" || rc=$?
  local ok fail
  ok=$(awk '/^Ok:/ {print $2}' "$log" | tail -n1)
  fail=$(awk '/^Fail:/ {print $2}' "$log" | tail -n1)
  local timeout_n
  timeout_n=$(awk '/^Timeout:/ {print $2}' "$log" | tail -n1)
  passed=$((passed + ${ok:-0}))
  failed=$((failed + ${fail:-0} + ${timeout_n:-0}))
  if [[ $rc -ne 0 && ${fail:-0} -eq 0 && ${timeout_n:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
  rm -f "$log"
}

# Compiling is what CPU time goes to; the tests mostly wait on daemons. So
# the next stage's build runs beside a stage's tests, at the lowest
# priority (the tests keep a core each), its output in a log shown only
# when it fails: the ASan build beside the plain tests, the fuzzers' build
# beside the ASan tests.
background_pid=""
background_log=""
background_build() {  # LOG COMMAND...: starts it
  background_log=$1; shift
  nice -n 19 "$@" >"$background_log" 2>&1 &
  background_pid=$!
}
background_wait() {  # WHAT: waits for it; a failed build stops the run
  local rc=0
  wait "$background_pid" || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -60 "$background_log"
    echo "$1 failed (whole log: $background_log)" >&2
    exit 1
  fi
}

echo "== build (debugoptimized)"
[[ -d build ]] || meson setup build >/dev/null
ninja -C build -j "$jobs"
asan=""
if [[ -z ${SKIP_ASAN:-} ]]; then
  asan=1
  # -O0 and no bench programs: this build exists to run the tests, and CI
  # time is better spent running them than compiling.
  [[ -d build-asan ]] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debug -Dbench=false -Dsystem_tests=false >/dev/null
  echo "== build with AddressSanitizer and UBSan: beside the tests below (build-asan/ninja.log.txt)"
  background_build build-asan/ninja.log.txt ninja -C build-asan -j "$jobs"
fi
echo "== unit and integration tests"
run_suites build --suite unit --suite integration

fuzz=""
[[ ${FUZZ_SECONDS:-30} != 0 && -x tests/fuzz/run-fuzzers.sh ]] && fuzz=1
if [[ -n $asan ]]; then
  background_wait "the AddressSanitizer build"
  ninja -C build-asan -j "$jobs"
  if [[ -n $fuzz ]]; then
    echo "== the fuzzers' build (clang): beside the tests below"
    background_build "$(mktemp)" tests/fuzz/run-fuzzers.sh build
  fi
  echo "== unit and integration tests under ASan/UBSan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suites build-asan --suite unit --suite integration
  [[ -z $fuzz ]] || background_wait "the fuzzers' build"
fi

if [[ -n $fuzz ]]; then
  echo "== fuzzers (${FUZZ_SECONDS:-30} s each)"
  if tests/fuzz/run-fuzzers.sh "${FUZZ_SECONDS:-30}"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
fi

upgrade_line=""
containment_line=""
dashboard_line=""
if [[ -z ${SKIP_SYSTEM:-} ]]; then
  echo "== system test (systemd-nspawn): the package, the signed archive, the self-update"
  run_suites build --suite system
  upgrade_line=$(grep -m1 '^upgrade: ' build/meson-logs/testlog.txt || true)
  containment_line=$(grep -m1 '^containment: ' build/meson-logs/testlog.txt || true)
  dashboard_line=$(grep -m1 '^dashboard: ' build/meson-logs/testlog.txt || true)
fi

echo
[[ -z $upgrade_line ]] || echo "$upgrade_line"
[[ -z $containment_line ]] || echo "$containment_line"
[[ -z $dashboard_line ]] || echo "$dashboard_line"
echo "${passed} passed, ${failed} failed"
[[ $failed -eq 0 ]]
