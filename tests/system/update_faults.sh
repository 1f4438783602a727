# shellcheck shell=bash disable=SC2154
# (sourced by run-system-test.sh, after upgrade.sh)
# benchbox-update killed with SIGKILL (the whole unit: apt, dpkg and their
# scripts with it) at each phase of an update: after the refresh, inside
# dpkg's unpack, after the install and before the health check. Each time
# the next run of the updater finishes or undoes what its intent journal
# says, and the box ends on a healthy version with its queue intact. Then a
# power cut inside dpkg's unpack: the whole container killed at once and
# booted again on what its disk kept. One `update faults:` line.

faults_tried=0 faults_recovered=0 faults_lost=0

# The hook the faults stop in: when the test armed PHASE, it says so and
# waits to be killed; otherwise it does nothing.
install_fault_hooks() {
  # shellcheck disable=SC2016
  in_ct sh -c 'mkdir -p /run/bb-fault && cat >/run/bb-fault/hook <<"EOF"
#!/bin/sh
[ "$(cat /run/bb-fault/armed 2>/dev/null)" = "$1" ] || exit 0
rm -f /run/bb-fault/armed
touch "/run/bb-fault/reached-$1"
exec sleep 600
EOF
chmod 0755 /run/bb-fault/hook
cat >/etc/apt/apt.conf.d/99bb-fault <<"EOF"
APT::Update::Post-Invoke { "/run/bb-fault/hook after-refresh"; };
DPkg::Post-Invoke { "/run/bb-fault/hook after-install"; };
EOF'
}

# N+1's files under another version: the version string the daemons carry
# (compiled in) patched in place to $fault_version, the same length, so the
# new version answers as itself on the bus and the health check can pass.
fault_version=""
# shellcheck disable=SC2016
reversion() {
  grep -rlF --null "$ver_n1" "$1/usr" | NEW="$fault_version" OLD="$ver_n1" xargs -0 -r perl -pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/g'
}

# ... and a preinst that stops in the hook: a kill inside dpkg's unpack.
reversion_and_fault_preinst() {
  reversion "$1"
  local preinst="$1/DEBIAN/preinst"
  if [[ -e $preinst ]]; then
    sed -i '1a [ ! -x /run/bb-fault/hook ] || /run/bb-fault/hook unpack' "$preinst"
  else
    printf '#!/bin/sh\n[ ! -x /run/bb-fault/hook ] || /run/bb-fault/hook unpack\nexit 0\n' >"$preinst"
    chmod 0755 "$preinst"
  fi
}

queue_job_count() {
  ct_busctl_json call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 List su "" 100000 |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["data"][0]))'
}

update_intent() {
  in_ct cat /var/lib/benchbox/update/state.json |
    python3 -c 'import json,sys; i=json.load(sys.stdin).get("intent"); print(i["phase"] + " " + i["from"] + " -> " + i["to"] if i else "none")'
}

# Not held: claiming, or not running at all (the health check sees to that).
runner_free() {
  ! unit_active benchbox-runnerd.service ||
    [[ $(in_ct busctl get-property org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 Paused) == "b false" ]]
}

# fault_at PHASE VERSION [power-cut]: publish VERSION, kill the updater (or
# cut the power) when it reaches PHASE, then let the next runs finish; the
# box must end on VERSION.
fault_at() {
  local phase=$1 ver=$2 how=${3:-kill} before after intent attempt runs=1
  publish "$stage/dist/benchbox_${ver}_amd64.deb"
  before=$(queue_job_count)
  faults_tried=$((faults_tried + 1))
  in_ct sh -c "rm -f /run/bb-fault/reached-*; echo $phase >/run/bb-fault/armed"
  (in_ct systemctl start benchbox-update.service >/dev/null 2>&1 || true) &
  local updater=$!
  wait_for 300 in_ct test -e "/run/bb-fault/reached-$phase" ||
    fail "benchbox-update never reached '$phase': $(last_attempt)"
  if [[ $how == power-cut ]]; then
    note "power cut inside '$phase': every process of the box killed at once; booting again on what its disk kept"
    power_cut_container
    wait "$updater" || true
    boot_container
    # The hooks lived in /run and went with the power; their apt
    # configuration, on the disk, would now fail every apt run.
    in_ct rm -f /etc/apt/apt.conf.d/99bb-fault
    phase="$phase, power cut"
  else
    in_ct systemctl kill -s KILL benchbox-update.service
    wait "$updater" || true
  fi
  intent=$(update_intent)
  # Its hold on the runner went with it.
  wait_for 30 runner_free || fail "runnerd is still paused after benchbox-update was killed at '$phase'"
  attempt=$(run_updater)
  # An install undone (dpkg could not finish) is tried again by the next run.
  if [[ $attempt != upgraded* ]]; then
    note "killed at '$phase': the next run: $attempt"
    attempt=$(run_updater)
    runs=2
  fi
  wait_for 120 versions_are "$ver" || fail "after a kill at '$phase' the box is not healthy on $ver: $attempt"
  [[ $(update_intent) == none ]] || fail "after a kill at '$phase' an intent is left: $(update_intent)"
  after=$(queue_job_count)
  if ((after < before)); then
    faults_lost=$((faults_lost + before - after))
    fail "after a kill at '$phase' the queue holds $after jobs, not $before"
  fi
  faults_recovered=$((faults_recovered + 1))
  note "killed at '$phase' (intent left: $intent); $runs run(s) later on $ver: ${attempt#upgraded | }"
}

check_update_faults() {
  local v4="$ver_n+sys4" v5="$ver_n+sys5" v6="$ver_n+sys6" v7="$ver_n+sys7"
  fault_version=$v4
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$v4" "$stage/dist/benchbox_${v4}_amd64.deb" reversion
  fault_version=$v5
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$v5" "$stage/dist/benchbox_${v5}_amd64.deb" \
    reversion_and_fault_preinst
  fault_version=$v7
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$v7" "$stage/dist/benchbox_${v7}_amd64.deb" \
    reversion_and_fault_preinst
  fault_version=$v6
  repack "$stage/dist/benchbox_${ver_n1}_amd64.deb" "$v6" "$stage/dist/benchbox_${v6}_amd64.deb" reversion
  install_fault_hooks
  fault_at after-refresh "$v4"
  fault_at unpack "$v5"
  fault_at after-install "$v6"
  fault_at unpack "$v7" power-cut
  in_ct rm -f /etc/apt/apt.conf.d/99bb-fault
  echo "update faults: $faults_recovered of $faults_tried interruptions recovered, $faults_lost lost," \
    "version: $(installed_version)" | tee "$stage/update-faults.txt"
  ((faults_recovered == faults_tried && faults_lost == 0)) || fail "not every interrupted update was recovered"
}
