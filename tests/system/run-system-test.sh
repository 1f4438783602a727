#!/usr/bin/env bash
# The system test: builds benchbox's Debian package, publishes it to a
# signed apt archive, boots this host's own OS in systemd-nspawn (a real
# systemd as PID 1, see ../../docs/systemd.md and /work/shared/PLATFORM.md),
# provisions the box exactly as docs/install.md says (trust the key, add the
# source, apt install benchbox, create the credentials, edit the config,
# systemctl enable --now benchbox.target), and drives it with systemctl,
# busctl, journalctl and curl:
#   p. the package: nothing starts without the webhook secret, and status and
#      the journal say how to create it; users, directories, conffiles
#   0. systemd-analyze verify is clean; systemd-analyze security per unit
#   1. all units active; every interface introspects; benchboxctl status
#   2. signed webhook -> job done; its benchmark ran in benchbox-job-*.service
#      as benchbox-job
#      under benchbox-bench.slice with the expected Cpus_allowed_list;
#      its output is in the job's output.log, one journal entry per command
#   3. an unprivileged user is refused a state-changing method by policy
#  3b. a contained benchmark (tests/system/attack.sh) is refused every
#      attempt on the bus, the caches, the credentials and another job's
#      result; one `containment:` line with the counts
#   5. a hanging benchmark is stopped at its timeout, scope gone, job failed
#   6. the dashboard: nginx in the container serves the site with the
#      documented server block; Chromium on the host draws its pages over
#      HTTP (charts drawn, no console error, every link 200)
#   4. restarts of webhookd and queued under a signed-delivery load: zero
#      failed connections, zero lost deliveries
#   7. tunerd applies CPU shielding by slices (AllowedCPUs=) as far as the
#      host allows, every item it cannot apply says why, restore undoes it
#   8. the self-update: a baseline restart of benchbox.target under load;
#      benchbox-update to N+1 under load with a job running (no failed
#      connection, no lost delivery, the job done); a tampered N+2, N+2
#      signed by a stranger and a replayed older index refused; a broken N+3
#      rolled back; one `upgrade:` line with the counts
#  8b. benchbox-update SIGKILLed after the refresh, inside dpkg's unpack, and
#      after the install before the health check, then a power cut inside
#      the unpack (the container killed whole and booted again on what its
#      disk kept): the next run finishes or undoes it from its intent
#      journal; one `update faults:` line
#   9. apt remove keeps queue, history and config, a reinstall carries on
#      with them; apt purge benchbox: no process or unit left
#  10. clean poweroff, nothing left on the host
# Usage: run-system-test.sh BUILD_DIR SOURCE_DIR
# Exit 77 (meson: skipped) when it cannot run here (not root, no nspawn).
# BB_SYSTEM_KEEP=1 leaves the staging directory for a post-mortem;
# BB_SYSTEM_DEBS=DIR takes the packages from DIR (its dist/) instead of
# building them (development only).
set -euo pipefail

build_dir=$(cd "${1:?build dir}" && pwd)
source_dir=$(cd "${2:?source dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=tests/system/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/system/package.sh
. "$here/package.sh"
# shellcheck source=tests/system/upgrade.sh
. "$here/upgrade.sh"
# shellcheck source=tests/system/update_faults.sh
. "$here/update_faults.sh"
# shellcheck source=tests/system/dashboard.sh
. "$here/dashboard.sh"

require_tools

stage=$(mktemp -d /var/tmp/bb-system.XXXXXX)
# apt in the container reads the archive in here as its sandbox user _apt.
chmod 0755 "$stage"
machine="bbsys-$$"
trap cleanup EXIT
trap 'exit 130' INT TERM

step "build the package: N with scripts/build-deb.sh, N+1 from the same tree, N+2 and N+3 re-packed"
build_packages
step "publish $ver_n to a signed archive (scripts/archive.sh)"
make_archive
prepare_host_key
prepare_repositories
port=$(free_port)
write_config "$port"

step "boot the host OS in systemd-nspawn (machine $machine)"
boot_container
in_ct systemctl --version | head -1

step "p. provision as docs/install.md says: trust the key, add the source, apt install benchbox"
prepare_package_manager
provision_box
check_nothing_started
configure_box
install_repositories_in_container
in_ct systemctl enable --now benchbox.target

step "0. systemd-analyze verify and security"
check_verify
measure_security

step "1. every unit active, every interface there"
wait_units_active
[[ $(in_ct systemctl is-active benchbox-update.timer) == active ]] || fail "benchbox-update.timer is not active"
note "benchbox-update.timer: next run $(in_ct systemctl show -P NextElapseUSecRealtime benchbox-update.timer)"
check_introspection
check_benchboxctl_status
check_credentials_not_leaked

step "2. a signed push delivery becomes a job that runs in a scope"
check_job_in_scope
measure_scope_cost

step "3. least privilege on the bus: nobody and each daemon user are refused what is not theirs"
check_policy

step "3b. containment: a repository's benchmark tries what it must not, and is refused every time"
check_containment
check_real_builds

step "5. a hanging benchmark is stopped at its timeout"
check_hanging_benchmark

step "6. the dashboard over HTTP: nginx serves the site, Chromium draws it"
check_dashboard

step "4. restarts under load: no failed connection, no lost delivery"
check_restarts_under_load
check_webhook_liveness
cancel_load_jobs
in_ct systemctl start benchbox-runnerd.service

step "7. host tuning: shielding by slices as far as this host allows, then restore"
check_tuning

step "8. the self-update"
measure_restart_baseline
check_update_under_load
check_refusals
check_rollback
upgrade_summary

step "8b. the self-update killed at each phase, and by a power cut, and finished by the next run"
check_update_faults

step "9. apt remove keeps the state, a reinstall carries on; apt purge leaves nothing running"
check_remove_reinstall
check_purge

step "6. clean poweroff, nothing left on the host"
poweroff_container
check_host_clean

echo
echo "system test: all checks passed"
