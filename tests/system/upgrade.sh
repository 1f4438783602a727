# shellcheck shell=bash disable=SC2154
# (sourced by run-system-test.sh, after lib.sh and package.sh)
# The self-update on a booted systemd: a baseline `systemctl restart
# benchbox.target` under load, then benchbox-update to N+1 under load with a
# job running, refusals (a tampered package, a stranger's signature, a
# replayed older index), a broken N+3 rolled back, each from the archive
# the box trusts. The counts end in one `upgrade:` line.

refused=0 rolled_back=no
upgrade_sent=0 upgrade_accepted=0 upgrade_lost=0

# Every daemon active and answering as version $1.
versions_are() {
  local v=$1 name
  for name in Queue1 Tuner1 Runner1 Reporter1; do
    [[ $(in_ct busctl get-property "org.benchbox.$name" "/org/benchbox/$name" "org.benchbox.$name" Version 2>/dev/null) == "s \"$v\"" ]] ||
      return 1
  done
  [[ $(in_ct systemctl show -P StatusText benchbox-webhookd.service) == "benchbox-webhookd $v:"* ]] || return 1
  all_units_active
}

# The longest time between two answers (any sender) within [$1, $2], in s.
longest_gap() {
  awk -v a="$1" -v b="$2" '$4 >= a - 1 && $4 <= b + 1 {print $4}' "$stage/load.log" | sort -n |
    awk -v a="$1" -v b="$2" 'BEGIN {last = a; max = 0}
      {if ($1 - last > max) max = $1 - last; last = $1}
      END {if (b - last > max) max = b - last; printf "%.2f\n", max}'
}

now() { date +%s.%N; }

# A plain restart of the whole appliance, measured as the update will be.
measure_restart_baseline() {
  start_load
  local t0 t1
  t0=$(now)
  in_ct systemctl restart benchbox.target
  wait_for 120 versions_are "$ver_n" || fail "the daemons did not come back after systemctl restart benchbox.target"
  t1=$(now)
  sleep 1
  stop_load
  cancel_load_jobs
  restart_seconds=$(python3 -c "print('%.2f' % ($t1 - $t0))")
  restart_gap=$(longest_gap "$t0" "$t1")
  local failed
  failed=$(awk '$3 != 0 || $2 == "000"' "$stage/load.log" | wc -l)
  note "baseline: systemctl restart benchbox.target: every daemon ready after ${restart_seconds} s;" \
    "longest gap between answers ${restart_gap} s; failed connections $failed (the socket restarts too)"
}

# The updater's last attempt, from its state file.
last_attempt() {
  in_ct cat /var/lib/benchbox/update/state.json |
    python3 -c 'import json,sys; l=json.load(sys.stdin)["last"]; print(l["outcome"] + " | " + l["reason"])'
}

run_updater() {
  in_ct systemctl start benchbox-update.service >/dev/null 2>&1 || true
  last_attempt
}

check_update_under_load() {
  # A job is running when the update starts: the updater must wait for it.
  local slow_id t0 t_ready t_done
  slow_id=$(enqueue_push slow "$slow_sha")
  wait_for 120 bash -c "[[ \$(nsenter -t $ct_pid -a busctl get-property org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 CurrentJob) == 'x $slow_id' ]]" ||
    fail "runnerd did not start job $slow_id"
  # The index as it is now, to replay later (check_refusals).
  cp -a "$archive/public" "$stage/public-before-n1"
  sleep 1  # the next index's Date is a later second
  publish "$stage/dist/benchbox_${ver_n1}_amd64.deb"
  start_load
  t0=$(now)
  (in_ct systemctl start benchbox-update.service; echo $? >"$stage/update.rc") &
  local updater=$!
  wait_for 600 versions_are "$ver_n1" || fail "the daemons did not come up on $ver_n1: $(last_attempt)"
  t_ready=$(now)
  wait "$updater" || true
  t_done=$(now)
  sleep 2
  stop_load
  cancel_load_jobs
  [[ $(cat "$stage/update.rc") == 0 ]] || fail "benchbox-update.service failed: $(last_attempt)"
  local attempt
  attempt=$(last_attempt)
  [[ $attempt == upgraded* ]] || fail "the update did not upgrade: $attempt"
  [[ $(installed_version) == "$ver_n1" ]] || fail "$(installed_version) is installed, not $ver_n1"

  update_seconds=$(python3 -c "print('%.2f' % ($t_ready - $t0))")
  update_gap=$(longest_gap "$t0" "$t_ready")
  local install_start wait_seconds
  install_start=$(in_ct journalctl -u benchbox-update.service -o short-unix --no-pager |
    awk -v want="installing $ver_n1" 'index($0, want) {print $1}' | tail -1)
  wait_seconds=$(python3 -c "print('%.2f' % (${install_start:-$t0} - $t0))")

  upgrade_sent=$(wc -l <"$stage/load.log")
  upgrade_accepted=$(awk '$2 ~ /^20[02]$/ && $3 == 0' "$stage/load.log" | wc -l)
  local failed_conn other
  failed_conn=$(awk '$3 != 0 || $2 == "000"' "$stage/load.log" | wc -l)
  other=$((upgrade_sent - upgrade_accepted - failed_conn))
  awk '$2 ~ /^20[02]$/ && $3 == 0 {print $1}' "$stage/load.log" | sort >"$stage/accepted.txt"
  wait_for 90 count_jobs || true
  upgrade_lost=$(comm -23 "$stage/accepted.txt" "$stage/jobs.txt" | wc -l)
  note "update $ver_n -> $ver_n1: $attempt"
  note "every daemon ready on $ver_n1 ${update_seconds} s after the updater started (${wait_seconds} s of it" \
    "before the install began: refresh, keeping $ver_n's package, waiting for job $slow_id);" \
    "longest gap between answers ${update_gap} s"
  note "load: sent $upgrade_sent, accepted $upgrade_accepted, other statuses $other, failed connections" \
    "$failed_conn, accepted without a job $upgrade_lost"
  local install_seconds
  install_seconds=$(python3 -c "print('%.2f' % ($update_seconds - $wait_seconds))")
  echo "   measured: update to ready ${update_seconds} s vs restart ${restart_seconds} s" \
    "($(python3 -c "print('%.2f' % ($update_seconds / $restart_seconds))")x; from the install on ${install_seconds} s," \
    "$(python3 -c "print('%.2f' % ($install_seconds / $restart_seconds))")x);" \
    "longest gap ${update_gap} s vs ${restart_gap} s ($(python3 -c "print('%.2f' % ($update_gap / max($restart_gap, 0.01)))")x)" |
    tee "$stage/update-measured.txt"
  ((failed_conn == 0)) || fail "$failed_conn deliveries failed to connect during the update"
  ((upgrade_lost == 0)) || fail "$upgrade_lost accepted deliveries have no job"
  ((other == 0)) || fail "$other deliveries got a non-2xx answer during the update:" \
    "$(awk '$2 !~ /^20[02]$/ && $3 == 0 && $2 != "000"' "$stage/load.log" | head -5 | tr '\n' ' ')"

  wait_for 300 job_finished "$slow_id" || fail "job $slow_id did not finish after the update"
  [[ $(job_field "$slow_id" state) == done ]] ||
    fail "job $slow_id, running when the update began, ended $(job_field "$slow_id" state): $(job_field "$slow_id" error)"
  note "job $slow_id, running when the update started, is done (the updater waited for it)"
  in_ct grep -q "bench/demo" /etc/benchbox/benchbox.yml || fail "the edited benchbox.yml did not survive the upgrade"
  local status
  status=$(in_ct benchboxctl status 2>&1) || fail "benchboxctl status after the update: $status"
  grep -q "version $ver_n1" <<<"$status" || fail "benchboxctl status does not report $ver_n1:
$status"
  grep -q "^update .*upgraded" <<<"$status" || fail "benchboxctl status does not show the update:
$status"
  note "benchboxctl status: $(grep '^update' <<<"$status")"
  in_ct journalctl -o cat UPDATE_OUTCOME=upgraded "UPDATE_TO=$ver_n1" | grep -q . ||
    fail "no journal line with UPDATE_OUTCOME=upgraded UPDATE_TO=$ver_n1"
}

# One refusal: the updater ran, refused, and the box kept $ver_n1.
expect_refused() {
  local what=$1 pattern=$2 attempt
  attempt=$(run_updater)
  [[ $attempt == refused* ]] || fail "$what was not refused: $attempt"
  grep -q -- "$pattern" <<<"$attempt" || fail "$what was refused for another reason: $attempt"
  [[ $(installed_version) == "$ver_n1" ]] || fail "after $what, $(installed_version) is installed, not $ver_n1"
  versions_are "$ver_n1" || fail "after $what, the daemons are not all up on $ver_n1"
  note "$what: ${attempt#refused | }"
}

check_refusals() {
  local public="$archive/public"
  # An older index, kept from when the archive offered only N: a replay.
  # A tampered N+2: signed correctly, its package changed afterwards.
  publish "$stage/dist/benchbox_${ver_n2}_amd64.deb"
  printf 'tampered' >>"$public/pool/main/benchbox_${ver_n2}_amd64.deb"
  expect_refused "a tampered $ver_n2" "Hash Sum mismatch" && refused=$((refused + 1))
  # N+2 from an archive signed by a stranger's key.
  local stranger="$stage/stranger"
  "$source_dir/scripts/archive.sh" --archive "$stranger" init >/dev/null 2>&1
  "$source_dir/scripts/archive.sh" --archive "$stranger" publish "$stage/dist/benchbox_${ver_n2}_amd64.deb" >/dev/null 2>&1
  mv "$public" "$public.good"
  cp -a "$stranger/public" "$public"
  expect_refused "$ver_n2 signed by a stranger" "NO_PUBKEY" && refused=$((refused + 1))
  rm -rf "$public"
  # The index the box saw before the last update, replayed.
  cp -a "$stage/public-before-n1" "$public"
  expect_refused "a replayed older index" "older than one already accepted"
  rm -rf "$public"
  mv "$public.good" "$public"
  rm -f "$public/pool/main/benchbox_${ver_n2}_amd64.deb"
}

check_rollback() {
  publish "$stage/dist/benchbox_${ver_n3}_amd64.deb"
  local attempt
  attempt=$(run_updater)
  [[ $attempt == rolled-back* ]] || fail "the broken $ver_n3 was not rolled back: $attempt"
  rolled_back=yes
  [[ $(installed_version) == "$ver_n1" ]] || fail "after the rollback $(installed_version) is installed, not $ver_n1"
  wait_for 60 versions_are "$ver_n1" || fail "after the rollback the daemons are not all up on $ver_n1"
  note "broken $ver_n3: ${attempt#rolled-back | }"
  in_ct journalctl -o cat UPDATE_OUTCOME=rolled-back | grep -q "$ver_n3 did not come up" ||
    fail "no journal line says why $ver_n3 was rolled back"
  # Still benchmarking.
  local id
  id=$(enqueue_push main "$main_sha" after-rollback)
  wait_for 300 job_finished "$id" || fail "job $id did not finish after the rollback"
  [[ $(job_field "$id" state) == done ]] || fail "job $id after the rollback ended $(job_field "$id" state)"
  note "after the rollback job $id ran to done on $ver_n1"
  attempt=$(run_updater)
  [[ $attempt == skipped* ]] || fail "the next update run tried the broken $ver_n3 again: $attempt"
  note "the next run skips $ver_n3: ${attempt#skipped | }"
}

upgrade_summary() {
  echo "upgrade: $upgrade_sent sent, $upgrade_accepted accepted, $upgrade_lost lost, $refused of 2 bad archives" \
    "refused, rolled back: $rolled_back, version: $(installed_version)" | tee "$stage/upgrade-summary.txt"
}
