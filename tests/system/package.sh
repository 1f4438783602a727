# shellcheck shell=bash disable=SC2154
# (sourced by run-system-test.sh, after lib.sh)
# The package and its archive for the system test: build benchbox's .deb
# once with scripts/build-deb.sh (version N), N+1 from the same build with
# only the version changed, N+2 and N+3 re-packed from N+1 (dpkg-deb -R);
# a signed archive made with scripts/archive.sh and handed to the container
# as a file: source; the box provisioned exactly as docs/install.md says.

archive="" archive_url="/mnt/bb-stage/archive/public"
ver_n="" ver_n1="" ver_n2="" ver_n3=""

# Builds N (lintian-checked) and N+1; re-packs N+2 and N+3 (broken queued).
build_packages() {
  ver_n=$(cat "$source_dir/VERSION")
  ver_n1="$ver_n+sys1" ver_n2="$ver_n+sys2" ver_n3="$ver_n+sys3"
  if [[ -n ${BB_SYSTEM_DEBS:-} ]]; then  # development: the four packages of an earlier run (BB_SYSTEM_KEEP)
    mkdir -p "$stage/dist"
    local v
    for v in "$ver_n" "$ver_n1" "$ver_n2" "$ver_n3"; do
      cp "$BB_SYSTEM_DEBS/benchbox_${v}_amd64.deb" "$stage/dist/" || fail "no benchbox_${v}_amd64.deb in $BB_SYSTEM_DEBS"
    done
    note "packages from $BB_SYSTEM_DEBS (BB_SYSTEM_DEBS): not built"
    return
  fi
  local t0=$SECONDS work="$stage/deb-work"
  OUT="$stage/dist" DEB_BUILD_OPTIONS=nocheck "$source_dir/scripts/build-deb.sh" --keep-work "$work" \
    >"$stage/build-deb.log" 2>&1 || fail "scripts/build-deb.sh failed: $(tail -30 "$stage/build-deb.log")"
  note "$(grep '^build-deb: lintian' "$stage/build-deb.log")"
  note "built $(basename "$(tail -1 "$stage/build-deb.log")") in $((SECONDS - t0)) s"
  # N+1: the same build tree, only VERSION and the changelog moved on. With
  # -nc dh keeps its build stamp and skips the build steps; dh_auto_install
  # runs ninja install, and meson rebuilds one file and relinks.
  t0=$SECONDS
  local src="$work/benchbox-$ver_n"
  (cd "$src" && ./scripts/set-version.sh "$ver_n1" "system test: the next version" &&
    DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b -nc) \
    >"$stage/build-n1.log" 2>&1 || fail "building $ver_n1 failed: $(tail -30 "$stage/build-n1.log")"
  cp "$work/benchbox_${ver_n1}_amd64.deb" "$stage/dist/"
  note "built benchbox_${ver_n1}_amd64.deb from the same tree in $((SECONDS - t0)) s"
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$ver_n2" "$stage/dist/benchbox_${ver_n2}_amd64.deb"
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$ver_n3" "$stage/dist/benchbox_${ver_n3}_amd64.deb" break_queued
  note "re-packed $ver_n2 (to be tampered with) and $ver_n3 (benchbox-queued exits at once)"
}

break_queued() {
  printf '#!/bin/sh\necho "benchbox-queued: broken on purpose by the system test" >&2\nexit 1\n' \
    >"$1/usr/libexec/benchbox/benchbox-queued"
}

# repack DEB VERSION OUT [MUTATOR]: the same package under another version.
repack() {
  local tree="$stage/repack.$$"
  rm -rf "$tree"
  dpkg-deb -R "$1" "$tree"
  sed -i "s/^Version: .*/Version: $2/" "$tree/DEBIAN/control"
  [[ -z ${4:-} ]] || "$4" "$tree"
  (cd "$tree" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  dpkg-deb --root-owner-group -Zxz -b "$tree" "$3" >/dev/null
  rm -rf "$tree"
}

make_archive() {
  archive="$stage/archive"
  "$source_dir/scripts/archive.sh" --archive "$archive" init >"$stage/archive.log" 2>&1 ||
    fail "scripts/archive.sh init failed: $(cat "$stage/archive.log")"
  publish "$stage/dist/benchbox_${ver_n}_amd64.deb"
  note "archive signed by $("$source_dir/scripts/archive.sh" --archive "$archive" keys), serving $ver_n"
}

publish() {
  "$source_dir/scripts/archive.sh" --archive "$archive" publish "$@" >>"$stage/archive.log" 2>&1 ||
    fail "scripts/archive.sh publish $* failed: $(tail -5 "$stage/archive.log")"
}

# The container's root is a tmpfs with the host's /usr: give dpkg and apt
# a copy of the host's database, configuration and users (the host's own are
# bound read-only under /mnt/host), so dpkg knows the dependencies are
# installed and the users its database names exist. The host's Debian
# sources are left out: apt talks to the benchbox archive only.
prepare_package_manager() {
  in_ct sh -c 'for f in passwd group shadow gshadow; do cp /mnt/host/$f /etc/$f; done &&
    mkdir -p /var/lib /etc && cp -a /mnt/host/dpkg /var/lib/dpkg &&
    cp -a /mnt/host/apt /etc/apt && cp -a /mnt/host/etc-dpkg /etc/dpkg &&
    rm -f /etc/apt/sources.list /etc/apt/sources.list.d/* /etc/apt/apt.conf.d/20packagekit'
  # This machine's image is a container image, whose policy-rc.d forbids
  # maintainer scripts to start or restart anything. A Debian box has none;
  # nor has this container's throwaway /usr from here on.
  in_ct rm -f /usr/sbin/policy-rc.d
  note "dpkg knows $(in_ct dpkg-query -W -f='.\n' | wc -l) packages (the host's); apt has no source yet"
}

# docs/install.md, step 2, in the container.
provision_box() {
  in_ct install -D -m 0644 "$archive_url/benchbox-archive-keyring.gpg" \
    /usr/share/keyrings/benchbox-archive-keyring.gpg
  in_ct gpg --show-keys /usr/share/keyrings/benchbox-archive-keyring.gpg >"$stage/trusted-key.txt" 2>&1
  in_ct sh -c "cat >/etc/apt/sources.list.d/benchbox.sources" <<EOF
Types: deb
URIs: file:$archive_url
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/benchbox-archive-keyring.gpg
EOF
  in_ct apt update >"$stage/apt-update.log" 2>&1 || fail "apt update failed: $(tail -5 "$stage/apt-update.log")"
  in_ct env DEBIAN_FRONTEND=noninteractive apt install -y benchbox >"$stage/apt-install.log" 2>&1 ||
    fail "apt install benchbox failed: $(tail -20 "$stage/apt-install.log")"
  [[ $(installed_version) == "$ver_n" ]] || fail "apt installed $(installed_version), not $ver_n"
  note "apt install benchbox: $ver_n from the signed archive ($(grep -c . "$stage/apt-install.log") lines of apt output)"
  in_ct id benchbox-runner >/dev/null || fail "the package did not create the benchbox users"
  in_ct id -nG benchbox-runner | grep -qw benchbox-job || fail "benchbox-runner is not in group benchbox-job"
  if in_ct id -nG benchbox-job | tr " " "\n" | grep -qx benchbox; then fail "benchbox-job is in group benchbox"; fi
  in_ct test -d /var/lib/benchbox/spool || fail "the package did not create /var/lib/benchbox/spool"
  [[ $(in_ct systemctl is-enabled benchbox.target) == enabled ]] || fail "benchbox.target is not enabled"
  in_ct dpkg-query -W -f='${Conffiles}\n' benchbox | grep -q /etc/benchbox/benchbox.yml ||
    fail "/etc/benchbox/benchbox.yml is not a conffile"
  in_ct dpkg-query -W -f='${Conffiles}\n' benchbox | grep -q /etc/benchbox/tuning.yml ||
    fail "/etc/benchbox/tuning.yml is not a conffile"
  note "users, directories, enabled benchbox.target, conffiles benchbox.yml and tuning.yml: as the package promises"
}

installed_version() { in_ct dpkg-query -W -f='${Version}' benchbox 2>/dev/null; }

# Installed, but the webhook secret is missing: nothing runs, and status
# and the journal say what to do.
check_nothing_started() {
  in_ct systemctl start benchbox.target || true
  local u
  for u in "${services[@]}" benchbox-webhookd.socket; do
    [[ $(in_ct systemctl is-active "$u" 2>/dev/null) != active ]] || fail "$u started without the webhook secret"
  done
  local status journal
  status=$(in_ct systemctl status --no-pager --lines=5 benchbox-webhookd.service 2>&1 || true)
  journal=$(in_ct journalctl --no-pager -o cat -u benchbox-webhookd.service 2>&1)
  grep -q "credential 'webhook-secret' is missing" <<<"$status" ||
    fail "systemctl status does not name the missing credential:
$status"
  grep -q "benchbox-credentials generate webhook-secret" <<<"$journal" ||
    fail "the journal does not say how to create the credential:
$journal"
  note "without the secret nothing runs; systemctl status and the journal say:"
  note "  $(grep -m1 "credential 'webhook-secret' is missing" <<<"$journal")"
}

# The operator's part of step 2: both credentials, the config, the port.
configure_box() {
  local out
  out=$(in_ct benchbox-credentials --with-key=host generate webhook-secret) ||
    fail "benchbox-credentials generate failed: $out"
  secret=$(tail -1 <<<"$out")
  [[ ${#secret} -eq 64 ]] || fail "benchbox-credentials generate printed no secret: $out"
  in_ct openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out /root/app-key.pem 2>/dev/null
  in_ct benchbox-credentials --with-key=host set github-app-key /root/app-key.pem >/dev/null
  in_ct rm -f /root/app-key.pem
  in_ct benchbox-credentials check webhook-secret >/dev/null || fail "the webhook secret does not decrypt"
  in_ct install -m 0644 /mnt/bb-stage/benchbox.yml /etc/benchbox/benchbox.yml
  in_ct install -D -m 0644 /mnt/bb-stage/socket-port.conf \
    /etc/systemd/system/benchbox-webhookd.socket.d/50-test-port.conf
  in_ct systemctl daemon-reload
  note "credentials created with benchbox-credentials (host key), benchbox.yml edited, socket on port $port"
}

check_purge() {
  in_ct env DEBIAN_FRONTEND=noninteractive apt purge -y benchbox >"$stage/apt-purge.log" 2>&1 ||
    fail "apt purge benchbox failed: $(tail -20 "$stage/apt-purge.log")"
  local left units_left
  left=$(in_ct pgrep -af '/usr/libexec/benchbox/' || true)
  [[ -z $left ]] || fail "benchbox processes left after purge: $left"
  units_left=$(in_ct systemctl list-units --all --plain --no-legend 'benchbox*' | grep -v 'not-found' || true)
  [[ -z $units_left ]] || fail "benchbox units left after purge: $units_left"
  [[ -z $(in_ct systemctl list-unit-files --no-legend 'benchbox*') ]] || fail "benchbox unit files left after purge"
  in_ct test ! -e /var/lib/benchbox || fail "purge left /var/lib/benchbox"
  in_ct test ! -e /etc/benchbox/benchbox.yml || fail "purge left /etc/benchbox/benchbox.yml"
  in_ct id benchbox-runner >/dev/null 2>&1 || fail "purge removed the benchbox-runner user (Debian keeps system users)"
  note "apt purge: no benchbox process or unit left; state and conffiles gone; users kept (docs/install.md)"
}

# apt remove keeps the state; installing again carries on with the same
# queue and history, and starts again (the secret is still there).
check_remove_reinstall() {
  # The version the box runs now (the archive keeps the newest few only).
  local done_before last_job was
  was=$(installed_version)
  done_before=$(in_ct busctl get-property org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Done)
  last_job=$(in_ct benchboxctl jobs list --limit 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  in_ct env DEBIAN_FRONTEND=noninteractive apt remove -y benchbox >"$stage/apt-remove.log" 2>&1 ||
    fail "apt remove benchbox failed: $(tail -20 "$stage/apt-remove.log")"
  local left
  left=$(in_ct pgrep -af '/usr/libexec/benchbox/' || true)
  [[ -z $left ]] || fail "benchbox processes left after apt remove: $left"
  in_ct test -s /var/lib/benchbox/queue.db || fail "apt remove removed the queue"
  in_ct test -s /var/lib/benchbox/history.db || fail "apt remove removed the history"
  in_ct test -s /etc/benchbox/benchbox.yml || fail "apt remove removed the edited config"
  note "apt remove: every daemon stopped; queue.db, history.db and benchbox.yml kept"
  in_ct env DEBIAN_FRONTEND=noninteractive apt install -y "benchbox=$was" >"$stage/apt-reinstall.log" 2>&1 ||
    fail "installing benchbox again failed: $(tail -20 "$stage/apt-reinstall.log")"
  wait_for 60 versions_are "$was" || fail "benchbox did not start again after the reinstall"
  [[ $(in_ct busctl get-property org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Done) == "$done_before" ]] ||
    fail "the queue's done count changed across remove and reinstall"
  in_ct benchboxctl jobs show "$last_job" >/dev/null || fail "job $last_job is gone after the reinstall"
  in_ct grep -q "bench/demo" /etc/benchbox/benchbox.yml || fail "the edited config was replaced on reinstall"
  note "installed again: running on $was with the same queue ($done_before; job $last_job still there) and config"
}
