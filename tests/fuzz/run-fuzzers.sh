#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) in build-fuzz and runs
# each for SECONDS (default 30) from its committed corpus. An input that
# crashes a parser is copied into tests/fuzz/corpus/<target>/ so the corpus
# keeps every input that found a bug, and the script fails. Targets: the
# result formats and http-request (webhookd's request parser).
#   tests/fuzz/run-fuzzers.sh [SECONDS] [FORMAT...]
#   tests/fuzz/run-fuzzers.sh build [FORMAT...]   (only build them)
set -eu
seconds=${1:-30}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BB_FUZZ_BUILD:-$root/build-fuzz}
corpus_root=$root/tests/fuzz/corpus
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
formats=${*:-asv benchbox bmf cargo-bench catch2-xml criterion criterion-csv go-test google-benchmark hyperfine pytest-benchmark pyperf vitest jmh benchmarkdotnet iai-callgrind julia-benchmarktools http-request}

if [ ! -f "$build/build.ninja" ]; then
  rm -rf "$build"  # a setup that was stopped half-way leaves what a new one refuses
  cc=clang cxx=clang++
  if command -v ccache >/dev/null 2>&1; then cc="ccache clang" cxx="ccache clang++"; fi
  CXX=$cxx CC=$cc meson setup "$build" "$root" -Dfuzz=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dsystem_tests=false >/dev/null
fi
targets=""
for f in $formats; do targets="$targets tests/fuzz/fuzz-$f"; done
ninja -C "$build" -j"${FUZZ_BUILD_JOBS:-$(nproc)}" $targets >/dev/null
[ "$seconds" = build ] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One fuzzer per core at a time: each is single-threaded, and the stage's
# time is what CI waits for.
jobs=${FUZZ_JOBS:-$(nproc)}
run_one() {
  f=$1
  mkdir -p "$work/$f" "$work/artifacts-$f" "$corpus_root/$f"
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
      "$build/tests/fuzz/fuzz-$f" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=0 -artifact_prefix="$work/artifacts-$f/" \
      "$work/$f" "$corpus_root/$f" >"$work/$f.log" 2>&1; then
    echo ok >"$work/$f.status"
  else
    echo failed >"$work/$f.status"
  fi
}
running=0
for f in $formats; do
  echo "fuzz-$f: ${seconds}s"
  run_one "$f" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n 2>/dev/null || wait
    running=$((running - 1))
  fi
done
wait
failed=""
for f in $formats; do
  if [ "$(cat "$work/$f.status" 2>/dev/null)" = ok ]; then
    echo "fuzz-$f: $(grep -E '^(Done|#[0-9]+ *DONE)' "$work/$f.log" | tail -1)"
    continue
  fi
  tail -40 "$work/$f.log"
  for a in "$work/artifacts-$f"/*; do
    [ -f "$a" ] || continue
    keep="$corpus_root/$f/bug-$(sha1sum "$a" | cut -c1-16)"
    cp "$a" "$keep"
    echo "fuzz-$f: kept the failing input as $keep"
  done
  failed="$failed $f"
done
if [ -n "$failed" ]; then
  echo "fuzzers that found a bug:$failed" >&2
  exit 1
fi
echo "all fuzzers ran ${seconds}s each without a finding"
