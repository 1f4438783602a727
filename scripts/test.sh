#!/usr/bin/env bash
# Runs every benchbox test: the unit tests in a normal (-O2) build, the unit
# and integration tests under AddressSanitizer + UBSan, every fuzzer for a
# bounded time, and the system test on a booted systemd (systemd-nspawn),
# which installs the -O2 package. Installs what it needs.
#   FUZZ_SECONDS=20  seconds per fuzzer (0 skips fuzzing)
#   SKIP_ASAN=1, SKIP_SYSTEM=1  skip those stages (development only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"
# One compile cache for every build, the package's included.
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
read -r ccache_hits0 ccache_misses0 < <(ccache_counts)

jobs=${JOBS:-$(nproc)}
# Every stage's heading says when it began (seconds since the start), so a
# slow CI run says where its time went.
stage() { echo "== $* (at ${SECONDS} s)"; }
passed=0
failed=0
skipped=0
# One line per test or stage that failed or was skipped, with why; printed
# above the closing line. Under CI=true a skip is a failure
# (scripts/test-results.py says which are exempt and why).
results=()
ci=""
[[ ${CI:-} == true ]] && ci=--ci
skip_stage() {  # NAME REASON: a whole stage that does not run
  if [[ -n $ci ]]; then
    failed=$((failed + 1))
    results+=("FAIL stage '$1': skipped, and under CI=true a skip is a failure: $2")
  else
    skipped=$((skipped + 1))
    results+=("SKIP stage '$1': $2")
  fi
}

# Runs `meson test` and adds its counts, from meson's own testlog.json, to
# the totals.
run_suites() {
  local dir=$1; shift
  local rc=0 out line
  rm -f "$dir/meson-logs/testlog.json"
  meson test -C "$dir" --print-errorlogs --num-processes 1 "$@" || rc=$?
  out=$(python3 "$root/scripts/test-results.py" $ci "$dir/meson-logs/testlog.json")
  local p=0 f=0 s=0
  while IFS= read -r line; do
    case $line in
      "counts "*) read -r _ p f s <<<"$line" ;;
      *) results+=("$line") ;;
    esac
  done <<<"$out"
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
  # meson failed, yet no test did: a build error, say.
  if [[ $rc -ne 0 && $f -eq 0 ]]; then
    failed=$((failed + 1))
    results+=("FAIL meson test -C $dir $*: exited $rc with no failed test")
  fi
}

# Compiling is what CPU time goes to; the tests mostly wait on daemons. So
# the next stage's build starts beside a stage's tests, at the lowest
# priority and kept off the last CPU, which is where every test measures
# its benchmarks (runner.benchmark_cpus defaults to it): a test's verdict
# never competes with a compiler. When the tests are done the build is
# stopped and finished in the foreground on every CPU (ninja resumes where
# it stopped). The ASan build goes beside the plain unit tests, the fuzzers'
# build beside the ASan tests. On one CPU nothing runs beside.
background_pid=""
background_log=""
last_cpu=$(( $(nproc) - 1 ))
background_build() {  # LOG COMMAND...: starts it
  background_log=$1; shift
  background_pid=""
  ((last_cpu > 0)) || return 0
  setsid nice -n 19 taskset -c "0-$((last_cpu - 1))" "$@" >"$background_log" 2>&1 &
  background_pid=$!
}
background_stop() {  # stops what background_build started (its whole process group)
  [[ -n $background_pid ]] || return 0
  kill -TERM -- "-$background_pid" 2>/dev/null || true
  wait "$background_pid" 2>/dev/null || true
  background_pid=""
}
trap background_stop EXIT

# The plain build runs the unit suite; the integration suite runs once, under
# ASan and UBSan, where a daemon's memory error is caught, not maybe missed.
# The -O2 daemons run end to end in the system test, from the package. So
# this build is every target but the integration programs (meson builds a
# test's program by default, whatever its build_by_default says): the rest
# still compiles with -Werror at -O2.
plain_targets() {  # BUILD_DIR: prints the ninja targets
  meson introspect "$1" --targets | python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if t["type"] == "executable" and t["defined_in"].endswith("tests/integration/meson.build"):
        continue
    if t["build_by_default"]:
        for f in t["filename"]:
            print(os.path.relpath(f, build))' "$(cd "$1" && pwd)"
}
stage "build (debugoptimized, without the integration programs)"
[[ -d build ]] || meson setup build >/dev/null
mapfile -t targets < <(plain_targets build)
ninja -C build -j "$jobs" "${targets[@]}"
asan=""
if [[ -n ${SKIP_ASAN:-} ]]; then
  skip_stage "unit and integration tests under ASan/UBSan" "SKIP_ASAN is set"
else
  asan=1
  # -O0 and no bench programs: this build exists to run the tests, and CI
  # time is better spent running them than compiling.
  [[ -d build-asan ]] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debug -Dbench=false -Dsystem_tests=false >/dev/null
  stage "build with AddressSanitizer and UBSan: begun beside the tests below"
  background_build "$(mktemp)" ninja -C build-asan -j "$last_cpu"
fi
stage "unit tests"
run_suites build --suite unit

fuzz=""
if [[ ${FUZZ_SECONDS:-20} == 0 ]]; then
  skip_stage fuzzers "FUZZ_SECONDS=0"
else
  fuzz=1
fi
if [[ -n $asan ]]; then
  background_stop
  stage "build with AddressSanitizer and UBSan: the rest"
  ninja -C build-asan -j "$jobs"
  # Suite 'alone' first, before anything starts beside it: the canary's
  # test judges the box's own noise, and a compile on the other CPU slows
  # the benchmark CPU of this VM by 20-30 %, shifting the canary whenever
  # the build changes phase (tests/integration/meson.build).
  stage "integration tests that need the machine to themselves, under ASan/UBSan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suites build-asan --suite alone
  # Beside the ASan tests: the fuzzers' build, then the package's compile
  # into the shared cache. The fuzzers' build takes about two thirds of the
  # stage; what the package's compile gets done in the rest, the system
  # test's own package build (the same build-deb.sh, flags and VERSION)
  # takes from the cache. Its work folder goes when the stage ends.
  beside=()
  if [[ -n $fuzz ]]; then
    stage "the fuzzers' build (clang): begun beside the tests below"
    beside+=("FUZZ_BUILD_JOBS=$last_cpu tests/fuzz/run-fuzzers.sh build")
  fi
  package_warm=""
  if [[ -z ${SKIP_SYSTEM:-} && -z ${BB_SYSTEM_DEBS:-} ]]; then
    package_warm=$(mktemp -d)
    stage "the package's compile, into the cache: begun beside the tests below, after the fuzzers' build"
    beside+=("OUT=$package_warm/dist DEB_BUILD_OPTIONS=nocheck scripts/build-deb.sh --no-lintian --keep-work $package_warm/work")
  fi
  if ((${#beside[@]})); then
    # One after the other; a failure here is met again in its own stage.
    chain=$(printf '%s; ' "${beside[@]}")
    background_build "$(mktemp)" bash -c "$chain"
  fi
  stage "unit and integration tests under ASan/UBSan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suites build-asan --suite unit --suite integration --no-suite alone
  # What the fault tests measured (#31), for the closing lines.
  fault_lines=$(grep -E '^(chaos|fleet faults|full disk|shielding \(cgroup v1\)): ' build-asan/meson-logs/testlog.txt || true)
  background_stop
  [[ -z $package_warm ]] || rm -rf "$package_warm"
fi

if [[ -n $fuzz ]]; then
  stage "fuzzers (${FUZZ_SECONDS:-20} s each)"
  if tests/fuzz/run-fuzzers.sh "${FUZZ_SECONDS:-20}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    results+=("FAIL fuzzers: tests/fuzz/run-fuzzers.sh failed (its output is above)")
  fi
fi

upgrade_line=""
update_faults_line=""
containment_line=""
dashboard_line=""
if [[ -n ${SKIP_SYSTEM:-} ]]; then
  skip_stage "system test" "SKIP_SYSTEM is set"
else
  stage "system test (systemd-nspawn): the package, the signed archive, the self-update"
  # --no-rebuild: the system test names no target it needs (it builds its
  # own package; bench-runner came with the plain build), and meson, asked
  # to rebuild for a test without any, builds everything: the integration
  # programs this build leaves out.
  run_suites build --no-rebuild --suite system
  upgrade_line=$(grep -m1 '^upgrade: ' build/meson-logs/testlog.txt || true)
  update_faults_line=$(grep -m1 '^update faults: ' build/meson-logs/testlog.txt || true)
  containment_line=$(grep -E -m3 '^(containment|real builds|shielding \(systemd, cgroup v1\)): ' build/meson-logs/testlog.txt || true)
  dashboard_line=$(grep -m1 '^dashboard: ' build/meson-logs/testlog.txt || true)
fi

echo
[[ -z $upgrade_line ]] || echo "$upgrade_line"
[[ -z $update_faults_line ]] || echo "$update_faults_line"
[[ -z ${fault_lines:-} ]] || echo "$fault_lines"
[[ -z $containment_line ]] || echo "$containment_line"
[[ -z $dashboard_line ]] || echo "$dashboard_line"
read -r ccache_hits ccache_misses < <(ccache_counts)
ccache_hits=$((ccache_hits - ccache_hits0))
ccache_misses=$((ccache_misses - ccache_misses0))
if ((ccache_hits + ccache_misses > 0)); then
  echo "ccache: ${ccache_hits} of $((ccache_hits + ccache_misses)) compiles hit" \
    "($((100 * ccache_hits / (ccache_hits + ccache_misses))) %), cache in ${CCACHE_DIR:-?}"
fi
for line in "${results[@]}"; do echo "$line"; done
echo "${passed} passed, ${failed} failed, ${skipped} skipped in ${SECONDS} s"
[[ $failed -eq 0 ]]
