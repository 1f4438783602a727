#!/bin/bash
# bench/canary: what the canary tells from two separate runs on this box.
# For each work scale (1.00 = no change), TRIALS pairs of runs of
# benchbox-canary pinned to CPU, the head doing SCALE times the work, each
# pair compared by benchboxctl compare (unpaired: canary runs carry no
# rounds). Prints every verdict with its ratio and the engine's minimum
# detectable change, then the verdict counts per scale. The 1.00 rows are
# the baseline measured in the same run: any verdict there is the box
# moving by itself.
#
#   bench/canary/shift-trials.sh [BUILD_DIR] [TRIALS] [CPU] [SCALES...]
#   e.g. bench/canary/shift-trials.sh build 5 1 1.0 1.02 1.05
set -euo pipefail
build=${1:-build}
trials=${2:-5}
cpu=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
scales=${*:-1.0 1.02 1.05}
canary=$build/daemons/runnerd/benchbox-canary
ctl=$build/cli/benchboxctl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for scale in $scales; do
  for t in $(seq 1 "$trials"); do
    taskset -c "$cpu" "$canary" --rounds 30 > "$work/base.json" 2>/dev/null
    taskset -c "$cpu" "$canary" --rounds 30 --scale "$scale" > "$work/head.json" 2>/dev/null
    "$ctl" compare --json "$work/base.json" "$work/head.json" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('$scale', $t, ' '.join('%s:%s:%.3f:mde=%.3f' % (r['key']['name'], r['verdict'], r['ratio'], r['min_detectable'])
                          for r in sorted(d['rows'], key=lambda r: r['key']['name'])))" || true
  done
done | tee "$work/verdicts"
echo
echo "verdicts per work scale (each row: cpu and memory; 1.00 = no change, the baseline)"
python3 - "$work/verdicts" <<'PY'
import collections, sys
counts = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    parts = line.split()
    for cell in parts[2:]:
        name, verdict = cell.split(':')[:2]
        counts[(parts[0], name)][verdict] += 1
for (scale, name), c in sorted(counts.items()):
    print(f"  x{scale:<5} {name:<7} " + ", ".join(f"{v} {k}" for k, v in sorted(c.items())))
PY
