#!/usr/bin/env bash
# Checks the front-end's vendored libraries (web/*/VERSION, written by
# scripts/npm-vendor.sh) against the sha256 each VERSION file recorded when
# the files were taken from the registry: an edited or truncated copy fails.
#   scripts/check-vendored.sh [WEB_DIR]
set -euo pipefail
web=${1:-$(cd "$(dirname "$0")/.." && pwd)/web}
checked=0
for version in "$web"/*/VERSION; do
  dir=$(dirname "$version")
  package=$(awk 'NR == 1 { print $1 " " $2 }' "$version")
  files=$(awk '$1 == "sha256" { n++ } END { print n + 0 }' "$version")
  [[ $files -gt 0 ]] || { echo "check-vendored: $version lists no sha256 (refresh it with its scripts/refresh-* script)" >&2; exit 1; }
  while read -r _ sum name; do
    [[ -f $dir/$name ]] || { echo "check-vendored: $package: $dir/$name is missing" >&2; exit 1; }
    have=$(sha256sum "$dir/$name" | cut -d' ' -f1)
    [[ $have == "$sum" ]] || { echo "check-vendored: $package: $dir/$name is not the file taken from the registry" >&2; exit 1; }
    checked=$((checked + 1))
  done < <(awk '$1 == "sha256"' "$version")
done
[[ $checked -gt 0 ]] || { echo "check-vendored: nothing vendored under $web" >&2; exit 1; }
echo "check-vendored: $checked files match their registry copies"
