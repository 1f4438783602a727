#!/usr/bin/env bash
# Builds benchbox's Debian package from this checkout and checks it:
#   1. installs the build dependencies debian/control names (apt-get build-dep),
#   2. copies the checkout (tracked and new, not ignored, files) to a work
#      directory, so the tree stays clean,
#   3. dpkg-buildpackage -us -uc -b (the unit tests run in dh_auto_test),
#   4. lintian on the result: any error fails the build; the warnings left
#      are the ones docs/install.md lists with their reasons.
# The .deb, .buildinfo, .changes and the lintian report land in OUT
# (default dist/). Prints the path of the .deb on its last line.
#   scripts/build-deb.sh [--no-lintian] [--keep-work DIR]
#   DEB_BUILD_OPTIONS=nocheck scripts/build-deb.sh   (skip the unit tests)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/dist}
lintian=1
work=""
while (($#)); do
  case $1 in
    --no-lintian) lintian=0; shift ;;
    --keep-work) work=${2:?--keep-work needs a directory}; shift 2 ;;
    *) echo "usage: build-deb.sh [--no-lintian] [--keep-work DIR]" >&2; exit 2 ;;
  esac
done
die() { echo "build-deb: $*" >&2; exit 1; }
# The package shares the test command's compile cache (debhelper moves HOME).
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"

version=$(cat "$root/VERSION")
changelog=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
[[ $changelog == "$version" ]] ||
  die "debian/changelog is at $changelog but VERSION says $version (scripts/set-version.sh sets both)"

if ! (cd "$root" && dpkg-checkbuilddeps >/dev/null 2>&1); then
  [[ $EUID -eq 0 ]] || die "build dependencies are missing and installing them needs root: $(cd "$root" && dpkg-checkbuilddeps 2>&1 || true)"
  echo "build-deb: installing the build dependencies from debian/control"
  DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends "$root" >/dev/null
fi
for tool in dpkg-buildpackage dh lintian; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done

if [[ -z $work ]]; then
  work=$(mktemp -d /var/tmp/benchbox-deb.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
src="$work/benchbox-$version"
rm -rf "$src"
mkdir -p "$src" "$out"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$src" -xf -

echo "build-deb: dpkg-buildpackage in $src"
# debhelper builds with one job unless told: use every core.
case " ${DEB_BUILD_OPTIONS:-} " in *" parallel="*) ;; *) export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-} parallel=$(nproc)" ;; esac
(cd "$src" && CCACHE_BASEDIR="$src" dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; die "dpkg-buildpackage failed (whole log: $out/build.log)"; }
arch=$(dpkg --print-architecture)
deb="benchbox_${version}_${arch}.deb"
changes="benchbox_${version}_${arch}.changes"
[[ -f $work/$deb && -f $work/$changes ]] || die "dpkg-buildpackage did not make $deb and $changes"
# Everything the .changes lists (the package, its -dbgsym, the .buildinfo).
for f in $(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$work/$changes") "$changes"; do
  mv -f "$work/$f" "$out/"
done

if ((lintian)); then
  # --fail-on error: warnings are reported (and documented), errors stop us.
  if ! lintian --fail-on error --info --display-info "$out/$changes" \
      >"$out/lintian.txt" 2>&1; then
    cat "$out/lintian.txt"
    die "lintian reports errors"
  fi
  echo "build-deb: lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors," \
    "$(grep -c '^W:' "$out/lintian.txt" || true) warnings, $(grep -c '^I:' "$out/lintian.txt" || true) info" \
    "(report: $out/lintian.txt)"
fi
echo "$out/$deb"
