#!/usr/bin/env bash
# Sets benchbox's version in its one place (VERSION) and opens the matching
# debian/changelog entry, so the two never disagree.
#   scripts/set-version.sh NEW_VERSION "what changed"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
new=${1:?usage: set-version.sh NEW_VERSION "what changed"}
what=${2:?usage: set-version.sh NEW_VERSION "what changed"}
[[ $new =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || { echo "set-version: '$new' is not a Debian native version" >&2; exit 2; }
old=$(cat "$root/VERSION")
if dpkg --compare-versions "$new" le "$old"; then
  echo "set-version: $new is not newer than $old" >&2
  exit 2
fi
printf '%s\n' "$new" >"$root/VERSION"
entry=$(mktemp)
{
  echo "benchbox ($new) bookworm; urgency=medium"
  echo
  echo "  * $what"
  echo
  echo " -- ${DEBFULLNAME:-benchbox maintainers} <${DEBEMAIL:-maintainers@benchbox.invalid}>  $(date -R)"
  echo
  cat "$root/debian/changelog"
} >"$entry"
mv "$entry" "$root/debian/changelog"
echo "version $old -> $new (VERSION and debian/changelog)"
