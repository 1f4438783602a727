#!/usr/bin/env bash
# Refreshes web/uplot/ (the dashboard's vendored charting library) from the
# npm registry at a pinned version, checked against the registry's
# integrity (scripts/npm-vendor.sh):
#   scripts/refresh-uplot.sh [VERSION]      (default: the version in web/uplot/VERSION)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/web/uplot
version=${1:-}
if [[ -z $version ]]; then
  [[ -f $dest/VERSION ]] || { echo "usage: $0 VERSION (no $dest/VERSION to read one from)" >&2; exit 2; }
  version=$(awk '$1 == "uplot" { print $2; exit }' "$dest/VERSION")
fi
exec "$root/scripts/npm-vendor.sh" uplot "$version" "$dest" dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE
