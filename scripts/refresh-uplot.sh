#!/usr/bin/env bash
# Refreshes web/uplot/ (the dashboard's vendored charting library) from the
# npm registry at a pinned version:
#   scripts/refresh-uplot.sh [VERSION]      (default: the version in web/uplot/VERSION)
# Packs uplot@VERSION with `npm pack`, checks the tarball against the sha512
# integrity the registry reports for that version, and copies
# dist/uPlot.iife.min.js, dist/uPlot.min.css and LICENSE into web/uplot/,
# then writes web/uplot/VERSION ("uplot VERSION" and the integrity).
# Only this script talks to the registry: the build and the tests use the
# committed copy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/web/uplot

version=${1:-}
if [[ -z $version ]]; then
  [[ -f $dest/VERSION ]] || { echo "usage: $0 VERSION (no $dest/VERSION to read one from)" >&2; exit 2; }
  version=$(awk '$1 == "uplot" { print $2; exit }' "$dest/VERSION")
fi
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.-]+)?$ ]] ||
  { echo "refresh-uplot: not a version: '$version'" >&2; exit 2; }
command -v npm >/dev/null || { echo "refresh-uplot: npm is needed (apt-get install npm)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What the registry says the tarball must hash to...
want=$(npm view "uplot@$version" dist.integrity)
[[ $want == sha512-* ]] || { echo "refresh-uplot: no sha512 integrity for uplot@$version: '$want'" >&2; exit 1; }

# ...what npm pack fetched (npm checks it too, and reports the integrity)...
(cd "$work" && npm pack --silent --json "uplot@$version" >pack.json)
file=$(node -e 'const p=require(process.argv[1])[0]; process.stdout.write(p.filename)' "$work/pack.json")
reported=$(node -e 'const p=require(process.argv[1])[0]; process.stdout.write(p.integrity)' "$work/pack.json")
packed_version=$(node -e 'const p=require(process.argv[1])[0]; process.stdout.write(p.version)' "$work/pack.json")
[[ $packed_version == "$version" ]] ||
  { echo "refresh-uplot: asked for $version, npm packed $packed_version" >&2; exit 1; }

# ...and what the file on disk actually hashes to.
have="sha512-$(openssl dgst -sha512 -binary "$work/$file" | base64 -w0)"
if [[ $have != "$want" || $reported != "$want" ]]; then
  echo "refresh-uplot: integrity mismatch for $file" >&2
  echo "  registry: $want" >&2
  echo "  npm pack: $reported" >&2
  echo "  on disk:  $have" >&2
  exit 1
fi

mkdir -p "$work/x"
tar -xzf "$work/$file" -C "$work/x"
pkg=$work/x/package
for f in dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE; do
  [[ -s $pkg/$f ]] || { echo "refresh-uplot: the tarball has no $f" >&2; exit 1; }
done

mkdir -p "$dest"
install -m 0644 "$pkg/dist/uPlot.iife.min.js" "$dest/uPlot.iife.min.js"
install -m 0644 "$pkg/dist/uPlot.min.css" "$dest/uPlot.min.css"
install -m 0644 "$pkg/LICENSE" "$dest/LICENSE"
{
  echo "uplot $version"
  echo "integrity $want"
  echo "source npm uplot@$version ($file): dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE"
} >"$dest/VERSION"
echo "web/uplot: uplot $version ($want)"
