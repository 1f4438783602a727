#!/usr/bin/env bash
# The system test: boots this host's own OS in systemd-nspawn (a real
# systemd as PID 1, see ../../docs/systemd.md and /work/shared/PLATFORM.md),
# installs the build into the container's /usr overlay exactly as a package
# would, and drives benchbox with systemctl, busctl, journalctl and curl:
#   0. systemd-analyze verify is clean; systemd-analyze security per unit
#   1. all units active; every interface introspects; benchboxctl status
#   2. signed webhook -> job done; its benchmark ran in benchbox-job-*.scope
#      under benchbox-bench.slice with the expected Cpus_allowed_list;
#      journalctl JOB_ID=<id> shows its output
#   3. an unprivileged user is refused a state-changing method by policy
#   5. a hanging benchmark is stopped at its timeout, scope gone, job failed
#   4. restarts of webhookd and queued under a signed-delivery load: zero
#      failed connections, zero lost deliveries
#   7. tunerd applies CPU shielding by slices (AllowedCPUs=) as far as the
#      host allows, every item it cannot apply says why, restore undoes it
#   6. clean poweroff, nothing left on the host
# Usage: run-system-test.sh BUILD_DIR SOURCE_DIR
# Exit 77 (meson: skipped) when it cannot run here (not root, no nspawn).
# BB_SYSTEM_KEEP=1 leaves the staging directory for a post-mortem.
set -euo pipefail

build=$(cd "${1:?build dir}" && pwd)
source_dir=$(cd "${2:?source dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/system/lib.sh
. "$here/lib.sh"

require_tools
check_prefix "$build"

stage=$(mktemp -d /var/tmp/bb-system.XXXXXX)
machine="bbsys-$$"
trap cleanup EXIT
trap 'exit 130' INT TERM

step "install the build into a staging tree"
DESTDIR="$stage/root" meson install -C "$build" --no-rebuild --quiet >"$stage/install.log" 2>&1 ||
  fail "meson install failed: $(tail -5 "$stage/install.log")"
for f in lib/systemd/system/benchbox.target usr/share/dbus-1/system.d/org.benchbox.Queue1.conf \
         usr/share/dbus-1/system-services/org.benchbox.Queue1.service usr/lib/sysusers.d/benchbox.conf \
         usr/lib/tmpfiles.d/benchbox.conf usr/sbin/benchbox-credentials usr/bin/benchboxctl; do
  [[ -e $stage/root/$f || -e $stage/root/usr/$f ]] || fail "meson install did not install $f"
done

step "create the encrypted credentials on the host"
prepare_credentials
prepare_repositories
port=$(free_port)
write_config "$port"

step "boot the host OS in systemd-nspawn (machine $machine)"
boot_container
in_ct systemctl --version | head -1

step "install into the container's /usr overlay; sysusers, tmpfiles, dbus reload"
in_ct sh -c 'tar -C /mnt/bb-stage/root -cf - . | tar -C / -xf - --keep-directory-symlink --no-same-owner'
in_ct install -D -m 0644 /mnt/bb-stage/benchbox.yml /etc/benchbox/benchbox.yml
in_ct install -d -m 0700 /etc/credstore.encrypted
in_ct install -m 0600 /mnt/bb-stage/credstore/webhook-secret /mnt/bb-stage/credstore/github-app-key \
  /etc/credstore.encrypted/
in_ct install -D -m 0644 /mnt/bb-stage/socket-port.conf \
  /etc/systemd/system/benchbox-webhookd.socket.d/50-test-port.conf
in_ct systemd-sysusers
in_ct systemd-tmpfiles --create /usr/lib/tmpfiles.d/benchbox.conf
in_ct id benchbox-runner
in_ct systemctl daemon-reload
in_ct busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
install_repositories_in_container

step "0. systemd-analyze verify and security"
check_verify
measure_security

step "1. start benchbox.target: every unit active, every interface there"
in_ct systemctl start benchbox.target || true
wait_units_active
check_introspection
check_benchboxctl_status
check_credentials_not_leaked

step "2. a signed push delivery becomes a job that runs in a scope"
check_job_in_scope

step "3. an unprivileged user is refused by policy"
check_policy

step "5. a hanging benchmark is stopped at its timeout"
check_hanging_benchmark

step "4. restarts under load: no failed connection, no lost delivery"
check_restarts_under_load
check_webhook_liveness

step "7. host tuning: shielding by slices as far as this host allows, then restore"
check_tuning

step "6. clean poweroff, nothing left on the host"
poweroff_container
check_host_clean

echo
echo "system test: all checks passed"
