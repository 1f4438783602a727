#!/bin/sh
# One version, from one place: the VERSION file. debian/changelog's newest
# entry, benchboxctl --version and every daemon's --version must say the same.
#   version-agrees.sh SOURCE_ROOT BUILD_ROOT
set -eu
src=$1
build=$2
want=$(cat "$src/VERSION")
fail() { echo "version-agrees: $*" >&2; exit 1; }
changelog=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$changelog" = "$want" ] ||
  fail "debian/changelog says $changelog, VERSION says $want (scripts/set-version.sh sets both)"
got=$("$build/cli/benchboxctl" --version)
[ "$got" = "benchboxctl $want" ] || fail "benchboxctl --version says '$got', VERSION says $want"
for d in webhookd queued tunerd runnerd reporterd; do
  got=$("$build/daemons/$d/benchbox-$d" --version)
  [ "$got" = "benchbox-$d $want" ] || fail "benchbox-$d --version says '$got', VERSION says $want"
done
got=$("$build/daemons/updater/benchbox-update" --version)
[ "$got" = "benchbox-update $want" ] || fail "benchbox-update --version says '$got', VERSION says $want"
echo "version $want everywhere"
