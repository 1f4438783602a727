#!/usr/bin/env bash
# benchbox's signed apt archive: indexed by apt-ftparchive, signed with an
# OpenPGP key of its own into InRelease and Release.gpg (docs/install.md,
# steps 1 and 4).
#
#   archive.sh --archive DIR init                   create the archive and its signing key
#   archive.sh --archive DIR publish DEB...         add packages; re-index and re-sign
#   archive.sh --archive DIR refresh                re-sign the index (new Date and Valid-Until)
#   archive.sh --archive DIR rotate                 add a new signing key; sign with both
#   archive.sh --archive DIR retire FINGERPRINT     stop signing with an old key
#   archive.sh --archive DIR keys                   the keys the index is signed with
#
# Layout: DIR/signing-keys and DIR/.gnupg (private: which keys sign, and the
# secret keys) and DIR/public, what a web server serves: dists/, pool/, and
# benchbox-archive-keyring.gpg, the public keys a box trusts.
# The archive keeps the newest --keep versions of each package (default 3),
# so a box can still fetch the version it runs for a rollback.
# Options: --gnupghome DIR (default ARCHIVE/.gnupg), --suite NAME (default
# stable), --valid-days N (default 14): an index nobody re-signs for that
# long stops being trusted, so an old copy replayed later holds no box back.
set -euo pipefail

archive="" gnupghome="" suite=stable valid_days=14 keep=3
die() { echo "archive: $*" >&2; exit 1; }
usage() { sed -n '2,22s/^# \{0,1\}//p' "$0"; }
while (($#)); do
  case $1 in
    --archive) archive=${2:?}; shift 2 ;;
    --gnupghome) gnupghome=${2:?}; shift 2 ;;
    --suite) suite=${2:?}; shift 2 ;;
    --valid-days) valid_days=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[[ -n $archive ]] || die "--archive DIR is required"
[[ $valid_days =~ ^[0-9]+$ && $keep =~ ^[1-9][0-9]*$ ]] || die "--valid-days and --keep take whole numbers"
cmd=${1:-}
[[ -n $cmd ]] || { usage >&2; exit 2; }
shift
for tool in apt-ftparchive gpg dpkg-deb; do
  command -v $tool >/dev/null || die "$tool is not installed (apt install apt-utils gnupg dpkg-dev)"
done
archive=$(mkdir -p "$archive" && cd "$archive" && pwd)
export GNUPGHOME=${gnupghome:-$archive/.gnupg}
public="$archive/public"
keyring="$public/benchbox-archive-keyring.gpg"
dists="$public/dists/$suite"
pool="$public/pool/main"

signing_keys() { cat "$archive/signing-keys" 2>/dev/null; }

# The public halves of every signing key: what a box trusts.
export_keyring() {
  mkdir -p "$public"
  # shellcheck disable=SC2046
  gpg --batch --export $(signing_keys) >"$keyring.new"
  [[ -s $keyring.new ]] || die "no public key to export"
  mv -f "$keyring.new" "$keyring"
}

new_key() {
  install -d -m 0700 "$GNUPGHOME"
  local uid
  uid="benchbox archive $(date -u +%Y%m%dT%H%M%S)-$$ <archive@benchbox.invalid>"
  gpg --batch --quiet --passphrase '' --quick-gen-key "$uid" ed25519 sign 3y >/dev/null 2>&1 ||
    die "gpg could not create a signing key"
  gpg --batch --with-colons --list-secret-keys "$uid" | awk -F: '/^fpr/ {print $10; exit}'
}

# Keeps the newest $keep versions of each package in the pool.
prune_pool() {
  local pkg
  for pkg in $(for f in "$pool"/*.deb; do [[ -e $f ]] && dpkg-deb -f "$f" Package; done | sort -u); do
    local -a files=()
    mapfile -t files < <(for f in "$pool"/*.deb; do
      [[ $(dpkg-deb -f "$f" Package) == "$pkg" ]] && echo "$(dpkg-deb -f "$f" Version) $f"
    done | sort -r -V -k1,1)
    local i
    for ((i = keep; i < ${#files[@]}; i++)); do rm -f "${files[i]#* }"; done
  done
}

# Re-indexes the pool and signs the result: Packages per architecture,
# Release with their hashes, Date and Valid-Until, InRelease and Release.gpg.
sign_index() {
  local keys
  keys=$(signing_keys)
  [[ -n $keys ]] || die "no signing key (init first)"
  mkdir -p "$dists" "$pool"
  local arch
  for arch in amd64 arm64; do
    mkdir -p "$dists/main/binary-$arch"
    (cd "$public" && apt-ftparchive --arch "$arch" packages pool/main) >"$dists/main/binary-$arch/Packages"
    gzip -9nkf "$dists/main/binary-$arch/Packages"
  done
  local now
  now=$(LC_ALL=C date -u "+%a, %d %b %Y %H:%M:%S UTC")
  rm -f "$dists/Release" "$dists/InRelease" "$dists/Release.gpg"
  apt-ftparchive -o APT::FTPArchive::Release::Origin=benchbox -o APT::FTPArchive::Release::Label=benchbox \
    -o APT::FTPArchive::Release::Suite="$suite" -o APT::FTPArchive::Release::Codename="$suite" \
    -o APT::FTPArchive::Release::Architectures="amd64 arm64" -o APT::FTPArchive::Release::Components=main \
    -o APT::FTPArchive::Release::Description="benchbox appliance packages" \
    -o APT::FTPArchive::Release::Date="$now" -o APT::FTPArchive::Release::ValidTime=$((valid_days * 86400)) \
    release "$dists" >"$dists/Release.new"
  mv -f "$dists/Release.new" "$dists/Release"
  local -a users=()
  local k
  for k in $keys; do users+=(--local-user "$k"); done
  gpg --batch --yes --digest-algo SHA512 "${users[@]}" --clearsign -o "$dists/InRelease" "$dists/Release"
  gpg --batch --yes --digest-algo SHA512 "${users[@]}" --armor --detach-sign -o "$dists/Release.gpg" "$dists/Release"
}

case $cmd in
  init)
    [[ ! -e $archive/signing-keys ]] || die "$archive is already an archive"
    new_key >"$archive/signing-keys"
    export_keyring
    sign_index
    echo "archive: $archive (serve $public), signing key $(signing_keys)"
    echo "archive: boxes trust $keyring"
    ;;
  publish)
    (($#)) || die "publish needs .deb files"
    for deb in "$@"; do
      [[ -f $deb ]] || die "no such file: $deb"
      dpkg-deb -f "$deb" Package Version >/dev/null || die "$deb is not a Debian package"
      install -D -m 0644 "$deb" "$pool/$(basename "$deb")"
    done
    prune_pool
    sign_index
    for f in "$pool"/*.deb; do echo "archive: $(dpkg-deb -f "$f" Package) $(dpkg-deb -f "$f" Version)"; done
    ;;
  refresh)
    sign_index
    sed -n 's/^\(Date\|Valid-Until\): /archive: \1: /p' "$dists/Release"
    ;;
  rotate)
    old=$(signing_keys)
    new=$(new_key)
    printf '%s\n' "$new" $old >"$archive/signing-keys"
    export_keyring
    sign_index
    echo "archive: signing with $new and $old; install the new $keyring on every box, then retire $old"
    ;;
  retire)
    fpr=${1:?retire needs the fingerprint of the key to drop}
    grep -qx "$fpr" "$archive/signing-keys" || die "$fpr is not a signing key of this archive (keys: $(signing_keys | tr '\n' ' '))"
    grep -vx "$fpr" "$archive/signing-keys" >"$archive/signing-keys.new" || die "$fpr is the only signing key; rotate first"
    mv -f "$archive/signing-keys.new" "$archive/signing-keys"
    export_keyring
    sign_index
    gpg --batch --yes --delete-secret-and-public-key "$fpr" >/dev/null 2>&1 || true
    echo "archive: $fpr retired; signing with $(signing_keys | tr '\n' ' ')"
    ;;
  keys)
    signing_keys
    ;;
  *)
    usage >&2
    exit 2
    ;;
esac
