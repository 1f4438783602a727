#!/usr/bin/env bash
# Vendors files of one npm package into a directory of web/, checked:
#   scripts/npm-vendor.sh PACKAGE VERSION DEST FILE...
# Packs PACKAGE@VERSION with `npm pack`, checks the tarball against the
# sha512 integrity the registry reports for that version (and against what
# npm itself reported), copies each FILE (a path in the package, e.g.
# dist/uPlot.iife.min.js or LICENSE) into DEST under its base name, and
# writes DEST/VERSION: "PACKAGE VERSION", its integrity, where the files
# came from, and each file's sha256 (scripts/check-vendored.sh checks the
# committed copies against them). Only the refresh-* scripts that call this talk to the
# registry: the build and the tests use the committed copy.
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 PACKAGE VERSION DEST FILE..." >&2; exit 2; }
package=$1 version=$2 dest=$3
shift 3
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.-]+)?$ ]] ||
  { echo "npm-vendor: not a version: '$version'" >&2; exit 2; }
command -v npm >/dev/null || { echo "npm-vendor: npm is needed (apt-get install npm)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What the registry says the tarball must hash to...
want=$(npm view "$package@$version" dist.integrity)
[[ $want == sha512-* ]] || { echo "npm-vendor: no sha512 integrity for $package@$version: '$want'" >&2; exit 1; }

# ...what npm pack fetched (npm checks it too, and reports the integrity)...
(cd "$work" && npm pack --silent --json "$package@$version" >pack.json)
field() { node -e 'const p=require(process.argv[1])[0]; process.stdout.write(String(p[process.argv[2]]))' "$work/pack.json" "$1"; }
file=$(field filename)
reported=$(field integrity)
packed_version=$(field version)
[[ $packed_version == "$version" ]] ||
  { echo "npm-vendor: asked for $package@$version, npm packed $packed_version" >&2; exit 1; }

# ...and what the file on disk actually hashes to.
have="sha512-$(openssl dgst -sha512 -binary "$work/$file" | base64 -w0)"
if [[ $have != "$want" || $reported != "$want" ]]; then
  echo "npm-vendor: integrity mismatch for $file" >&2
  echo "  registry: $want" >&2
  echo "  npm pack: $reported" >&2
  echo "  on disk:  $have" >&2
  exit 1
fi

mkdir -p "$work/x"
tar -xzf "$work/$file" -C "$work/x"
pkg=$work/x/package
for f in "$@"; do
  [[ -s $pkg/$f ]] || { echo "npm-vendor: the tarball of $package@$version has no $f" >&2; exit 1; }
done

mkdir -p "$dest"
for f in "$@"; do install -m 0644 "$pkg/$f" "$dest/$(basename "$f")"; done
{
  echo "$package $version"
  echo "integrity $want"
  echo "source npm $package@$version ($file): $*"
  for f in "$@"; do echo "sha256 $(sha256sum "$dest/$(basename "$f")" | cut -d' ' -f1) $(basename "$f")"; done
} >"$dest/VERSION"
echo "${dest#"$(cd "$(dirname "$0")/.." && pwd)/"}: $package $version ($want)"
