#!/bin/bash
# benchbox-credentials against a credential store and a unit directory of
# its own (real systemd-creds, the host key): a notify webhook's key is
# stored encrypted, decrypts to what was given, and a drop-in gives it to
# benchbox-reporterd.service; a name that is neither benchbox's nor
# notify-NAME is refused. Needs root (systemd-creds' host key): else
# skipped (exit 77), saying why.
set -euo pipefail
script=${1:?usage: test_credentials.sh PATH-TO-benchbox-credentials}
[[ $(id -u) == 0 ]] || { echo "skip: systemd-creds --with-key=host needs root"; exit 77; }
command -v systemd-creds >/dev/null || { echo "skip: no systemd-creds (systemd >= 250)"; exit 77; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
bc() { sh "$script" --credstore "$dir/store" --unit-dir "$dir/units" --with-key host "$@"; }

printf 'hook-key\n' > "$dir/key"
out=$(bc set notify-octo-widgets "$dir/key") || fail "set notify-octo-widgets: $out"
[[ -s $dir/store/notify-octo-widgets ]] || fail "no encrypted blob in the store"
! grep -q hook-key "$dir/store/notify-octo-widgets" || fail "the key is stored in the clear"
got=$(systemd-creds decrypt --name=notify-octo-widgets "$dir/store/notify-octo-widgets" -)
[[ $got == hook-key ]] || fail "decrypts to '$got', not hook-key"
dropin=$dir/units/benchbox-reporterd.service.d/credential-notify-octo-widgets.conf
[[ -f $dropin ]] || fail "no drop-in for reporterd: $out"
grep -qx '\[Service\]' "$dropin" && grep -qx 'LoadCredentialEncrypted=notify-octo-widgets' "$dropin" ||
  fail "the drop-in does not load it: $(cat "$dropin")"
[[ $out == *"systemctl daemon-reload"* ]] || fail "does not say what to run next: $out"
list=$(bc list)
[[ $list == *"notify-octo-widgets: present"* ]] || fail "list does not show it: $list"
rm "$dropin"
list=$(bc list)
[[ $list == *"notify-octo-widgets: present, not given to benchbox-reporterd"* ]] || fail "list: $list"

for bad in notify- notify-a/b hook-key webhook; do
  if out=$(bc set "$bad" "$dir/key" 2>&1); then fail "set $bad was accepted: $out"; fi
  [[ $out == *"unknown credential"* ]] || fail "set $bad: $out"
done
[[ ! -e $dir/store/hook-key ]] || fail "a refused name was stored"

# require names what is missing, and how to make it.
if out=$(bc require notify-other 2>&1); then fail "require of a missing key passed"; fi
[[ $out == *"benchbox-credentials set notify-other KEY-FILE"* ]] || fail "require: $out"
echo "benchbox-credentials: a notify key stored encrypted and given to reporterd; bad names refused"
