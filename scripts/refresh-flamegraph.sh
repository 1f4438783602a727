#!/usr/bin/env bash
# Refreshes the run page's flame graph libraries from the npm registry at
# pinned versions, checked against the registry's integrity
# (scripts/npm-vendor.sh): web/d3-flame-graph/ (d3-flame-graph's UMD build,
# which draws the graph) and web/d3/ (d3's UMD bundle, which it needs as the
# global d3).
#   scripts/refresh-flamegraph.sh [FLAME_GRAPH_VERSION D3_VERSION]
#   (default: the versions in their VERSION files)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pinned() { awk -v p="$1" '$1 == p { print $2; exit }' "$root/web/$1/VERSION" 2>/dev/null; }
flame=${1:-$(pinned d3-flame-graph)}
d3=${2:-$(pinned d3)}
[[ -n $flame && -n $d3 ]] || { echo "usage: $0 FLAME_GRAPH_VERSION D3_VERSION (no VERSION files to read them from)" >&2; exit 2; }
"$root/scripts/npm-vendor.sh" d3-flame-graph "$flame" "$root/web/d3-flame-graph" dist/d3-flamegraph.umd.min.js LICENSE
"$root/scripts/npm-vendor.sh" d3 "$d3" "$root/web/d3" dist/d3.min.js LICENSE
