# shellcheck shell=bash disable=SC2154
# (sourced by run-system-test.sh, which sets source_dir, stage, machine)
# Helpers for run-system-test.sh: the container's life cycle and one
# function per check. Sourced; uses the caller's $source_dir, $here,
# $stage, $machine. Every wait polls with a deadline; nothing sleeps blindly
# except the poll interval itself.

units=(benchbox.target benchbox-webhookd.socket benchbox-webhookd.service benchbox-queued.service
       benchbox-tunerd.service benchbox-runnerd.service benchbox-reporterd.service)
services=(benchbox-webhookd.service benchbox-queued.service benchbox-tunerd.service
          benchbox-runnerd.service benchbox-reporterd.service)
ct_pid=""          # the container's PID 1, as seen from the host
nspawn_wrapper=""  # the `timeout` process that runs systemd-nspawn
ct_cpusets=0       # step 7 made the container's cpuset hierarchy writable
job_log=""         # check_job_in_scope: the last job's output.log, without prefixes
created_host_key=0
secret=""

step() { printf '\n== %s\n' "$*"; }
note() { printf '   %s\n' "$*"; }
fail() {
  printf '\nFAIL: %s\n' "$*" >&2
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}

# Polls `cmd` every 0.2 s until it succeeds or `seconds` pass.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

require_tools() {
  [[ $(id -u) -eq 0 ]] || skip "needs root (systemd-nspawn)"
  local t
  for t in systemd-nspawn nsenter curl openssl python3 meson git setsid dpkg-buildpackage dpkg-deb \
    apt-ftparchive gpg lintian systemd-creds; do
    command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh installs it)"
  done
}

# A free port below the ephemeral range (ip_local_port_range). A port from
# that range (what binding port 0 gives) can be handed to a client as its
# own source port while the socket unit is restarting, even to a connect()
# to that very port (a TCP self-connect), and the unit then cannot listen
# again: "Address already in use" (seen once in `systemctl restart
# benchbox.target` under load).
free_port() {
  python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(500):
    port = random.randint(10000, max(10001, low - 1))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("free_port: no free port below %d" % low)
'
}

in_ct() { nsenter -t "$ct_pid" -a "$@"; }

# Runs busctl in the container and prints its --json=short output.
ct_busctl_json() { in_ct busctl --json=short "$@"; }

# ---------------------------------------------------------------- teardown

cleanup() {
  local rc=$?
  set +e
  if [[ -n $nspawn_wrapper ]] && kill -0 "$nspawn_wrapper" 2>/dev/null; then
    if [[ -n $ct_pid ]] && kill -0 "$ct_pid" 2>/dev/null; then
      if ((rc != 0)); then
        timeout 20 nsenter -t "$ct_pid" -a journalctl --no-pager -o short-monotonic \
          -u 'benchbox-*' >"$stage/journal.txt" 2>&1
        echo "--- last lines of the benchbox journal ($stage/journal.txt)"
        tail -n 60 "$stage/journal.txt"
      fi
      timeout 10 nsenter -t "$ct_pid" -a systemctl poweroff --no-block >/dev/null 2>&1
      wait_for 45 bash -c "! kill -0 $nspawn_wrapper" ||
        note "container did not power off in time; terminating systemd-nspawn"
    fi
    if kill -0 "$nspawn_wrapper" 2>/dev/null; then
      pkill -TERM -P "$nspawn_wrapper" 2>/dev/null
      wait_for 20 bash -c "! kill -0 $nspawn_wrapper" || kill -KILL -- "-$nspawn_wrapper" 2>/dev/null
    fi
  fi
  [[ -n ${load_pid:-} ]] && kill $load_pid 2>/dev/null
  # systemd-nspawn leaves this mount-propagation directory behind (and says so).
  rm -rf --one-file-system "/run/systemd/nspawn/propagate/$machine" 2>/dev/null
  # Step 7's v1 shielding, if the test stopped before its restore: the
  # container's tasks are gone with it, so only the empty cpusets are left.
  if ((ct_cpusets)); then rmdir /sys/fs/cgroup/cpuset/benchbox-bench /sys/fs/cgroup/cpuset/benchbox-housekeeping 2>/dev/null; fi
  if ((created_host_key)); then rm -f /var/lib/systemd/credential.secret; fi
  if ((rc != 0)) && [[ -f $stage/container.log ]]; then
    echo "--- last lines of the container console ($stage/container.log)"
    tail -n 40 "$stage/container.log"
  fi
  if [[ -n ${BB_SYSTEM_KEEP:-} ]]; then
    echo "staging directory kept: $stage"
  else
    rm -rf --one-file-system "$stage"
  fi
  exit "$rc"
}

# ---------------------------------------------------------------- preparation

# The host key systemd-creds seals credentials with: the container sees the
# host's (--bind-ro), so benchbox-credentials in the container uses it.
prepare_host_key() {
  [[ -e /var/lib/systemd/credential.secret ]] && return
  created_host_key=1
  systemd-creds setup >/dev/null 2>&1 || fail "systemd-creds setup could not create the host key"
}

# One repository, three branches: main measures a probe that prints where
# it runs; hang measures a command that never ends (timeout 3 s); slow one
# that takes 12 s (running while the update starts).
prepare_repositories() {
  local repo="$stage/repos/demo"
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.email test@benchbox.invalid
  git -C "$repo" config user.name "system test"
  cat >"$repo/.benchbox.yml" <<'EOF'
version: 1
suites:
  - name: probe
    run: "grep Cpus_allowed_list /proc/self/status; cat /proc/self/cgroup; echo BENCHBOX_USER=$(id -un); echo BENCHBOX_PROBE_OK"
    format: command
    repetitions: 2
    warmup: 0
    timeout: 60
EOF
  git -C "$repo" add .benchbox.yml
  git -C "$repo" commit -q -m probe
  main_sha=$(git -C "$repo" rev-parse HEAD)
  git -C "$repo" checkout -q -b hang
  cat >"$repo/.benchbox.yml" <<'EOF'
version: 1
suites:
  - name: hang
    run: "echo BENCHBOX_HANG_START; exec sleep 4242"
    format: command
    repetitions: 1
    warmup: 0
    timeout: 3
EOF
  git -C "$repo" commit -q -am hang
  hang_sha=$(git -C "$repo" rev-parse HEAD)
  # slow: a benchmark that is still running when the update starts.
  git -C "$repo" checkout -q main
  git -C "$repo" checkout -q -b slow
  cat >"$repo/.benchbox.yml" <<'EOF'
version: 1
suites:
  - name: slow
    run: "sleep 12; echo BENCHBOX_SLOW_DONE"
    format: command
    repetitions: 1
    warmup: 0
    timeout: 120
EOF
  git -C "$repo" commit -q -am slow
  slow_sha=$(git -C "$repo" rev-parse HEAD)
  # attack: a benchmark that tries, in its first round, what contained code
  # must not be able to do (check_containment), then measures as usual.
  git -C "$repo" checkout -q main
  git -C "$repo" checkout -q -b attack
  cat >"$repo/.benchbox.yml" <<'EOF'
version: 1
suites:
  - name: attack
    run: "sh ./attack.sh"
    format: command
    counters: [task-clock, instructions]
    repetitions: 2
    warmup: 0
    timeout: 120
EOF
  cp "$here/attack.sh" "$repo/attack.sh"
  git -C "$repo" add .benchbox.yml attack.sh
  git -C "$repo" commit -q -m attack
  attack_sha=$(git -C "$repo" rev-parse HEAD)
  # builds: real toolchains (cmake and gcc, pip with setuptools, node,
  # multiprocessing) build inside a job's sandbox (check_real_builds).
  git -C "$repo" checkout -q main
  git -C "$repo" checkout -q -b builds
  cp -r "$here/builds/." "$repo/"
  cat >"$repo/.benchbox.yml" <<'EOF'
version: 1
suites:
  - name: builds
    build: "sh ./build.sh"
    run: "true"
    format: command
    repetitions: 2
    warmup: 0
    timeout: 300
  - name: callgrind
    run: "/bin/sh -c 'echo counted'"
    format: command
    measure: callgrind
    repetitions: 2
    warmup: 0
    timeout: 300
EOF
  git -C "$repo" add -A
  git -C "$repo" commit -q -m builds
  builds_sha=$(git -C "$repo" rev-parse HEAD)
  git -C "$repo" checkout -q main
}

write_config() {
  local port=$1
  bench_cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
  cat >"$stage/benchbox.yml" <<EOF
# written by tests/system/run-system-test.sh
repositories:
  - name: bench/demo
    clone_url: file:///srv/benchbox-test/demo
    branches: [main, hang, slow, attack, builds]
  - name: bench/load
    clone_url: file:///srv/benchbox-test/demo
    branches: ["load-*"]
queue:
  lease_seconds: 60
runner:
  benchmark_cpus: "$bench_cpu"
  heartbeat_seconds: 5
reporter:
  github_app_id: 0
update:
  max_wait_seconds: 120
  health_timeout_seconds: 20
EOF
  printf '[Socket]\nListenStream=\nListenStream=127.0.0.1:%s\n' "$port" >"$stage/socket-port.conf"
  webhook_url="http://127.0.0.1:$port/webhook"
}

install_repositories_in_container() {
  in_ct mkdir -p /srv/benchbox-test
  in_ct cp -a /mnt/bb-stage/repos/demo /srv/benchbox-test/demo
  # libgit2 refuses a repository owned by another user.
  in_ct chown -R benchbox-runner:benchbox /srv/benchbox-test
}

# ---------------------------------------------------------------- container

# The root is a tmpfs with the host's /usr under an overlay, but what a box
# keeps on its disk (/etc, /var, /srv, /root and the overlay's upper /usr)
# lives in $stage/ct on the host: it survives a power cut and the next boot
# finds it as a real box would.
boot_container() {
  mkdir -p "$stage"/ct/{usr,etc,var,srv,root}
  setsid timeout 1500 systemd-nspawn -D / --volatile=yes -M "$machine" --register=no --keep-unit -b \
    --console=pipe --uuid="$(cat /etc/machine-id)" --overlay="/usr:$stage/ct/usr:/usr" \
    --bind="$stage/ct/etc:/etc" --bind="$stage/ct/var:/var" --bind="$stage/ct/srv:/srv" --bind="$stage/ct/root:/root" \
    --bind-ro=/var/lib/dpkg:/mnt/host/dpkg --bind-ro=/etc/apt:/mnt/host/apt --bind-ro=/etc/dpkg:/mnt/host/etc-dpkg \
    --bind-ro=/etc/passwd:/mnt/host/passwd --bind-ro=/etc/group:/mnt/host/group \
    --bind-ro=/etc/shadow:/mnt/host/shadow --bind-ro=/etc/gshadow:/mnt/host/gshadow \
    --bind-ro=/var/lib/systemd/credential.secret --bind-ro="$stage:/mnt/bb-stage" \
    -- systemd.mask=systemd-firstboot.service >>"$stage/container.log" 2>&1 </dev/null &
  nspawn_wrapper=$!
  local nspawn="" deadline=$((SECONDS + 60))
  while [[ -z $ct_pid ]]; do
    ((SECONDS < deadline)) || fail "the container's systemd did not appear"
    kill -0 "$nspawn_wrapper" 2>/dev/null || fail "systemd-nspawn exited: $(tail -5 "$stage/container.log")"
    [[ -n $nspawn ]] || nspawn=$(pgrep -P "$nspawn_wrapper" -x systemd-nspawn || true)
    if [[ -n $nspawn ]]; then
      local child
      for child in $(pgrep -P "$nspawn" || true); do
        [[ $(cat "/proc/$child/comm" 2>/dev/null) == systemd ]] && ct_pid=$child
      done
    fi
    [[ -n $ct_pid ]] || sleep 0.1
  done
  local state=""
  deadline=$((SECONDS + 120))
  until state=$(in_ct systemctl is-system-running --wait 2>/dev/null) && [[ $state == running ]]; do
    if [[ $state == degraded ]]; then
      note "container degraded: $(in_ct systemctl --failed --no-legend --plain | tr '\n' ' ')"
      break
    fi
    ((SECONDS < deadline)) || fail "the container did not finish booting (state '$state')"
    sleep 0.2
  done
  note "container PID 1 is host pid $ct_pid (state ${state:-?})"
}

# A power cut: every process of the container killed at once (SIGKILL to its
# PID 1 ends its PID namespace), nothing shut down, /run and /tmp gone. (The
# host's page cache survives it: a crash of everything but the disk.)
power_cut_container() {
  kill -KILL "$ct_pid"
  wait_for 30 bash -c "! kill -0 $nspawn_wrapper" || fail "systemd-nspawn did not exit after the power cut"
  wait "$nspawn_wrapper" || true
  nspawn_wrapper=""
  ct_pid=""
  rm -rf --one-file-system "/run/systemd/nspawn/propagate/$machine" 2>/dev/null
  echo "--- power cut" >>"$stage/container.log"
}

poweroff_container() {
  in_ct systemctl poweroff --no-block
  wait_for 90 bash -c "! kill -0 $nspawn_wrapper" || fail "the container did not power off within 90 s"
  local rc=0
  wait "$nspawn_wrapper" || rc=$?
  nspawn_wrapper=""
  ct_pid=""
  ((rc == 0)) || fail "systemd-nspawn exited with status $rc after poweroff"
  note "container powered off, systemd-nspawn exited 0"
}

check_host_clean() {
  local left
  left=$(pgrep -af '/usr/libexec/benchbox/|sleep 4242' || true)
  [[ -z $left ]] || fail "processes left on the host: $left"
  if grep -qF "$stage" /proc/self/mounts; then fail "mounts of $stage left on the host"; fi
  [[ -z $(pgrep -f "systemd-nspawn.*-M $machine" || true) ]] || fail "systemd-nspawn still running"
  note "no benchbox process, no container, no mount left on the host"
}

# ---------------------------------------------------------------- checks

check_verify() {
  local files=() u out
  for u in "${units[@]}" benchbox-bench.slice benchbox-update.service benchbox-update.timer; do
    files+=("/lib/systemd/system/$u")
  done
  out=$(in_ct systemd-analyze verify "${files[@]}" 2>&1) || fail "systemd-analyze verify failed:
$out"
  [[ -z $out ]] || fail "systemd-analyze verify is not clean:
$out"
  note "systemd-analyze verify: clean for ${#files[@]} units"
}

measure_security() {
  local u line level
  {
    echo "| unit | exposure | verdict |"
    echo "|---|---|---|"
    for u in "${services[@]}"; do
      line=$(in_ct systemd-analyze security --no-pager "$u" | tail -n 1)
      level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p' <<<"$line")
      [[ -n $level ]] || fail "cannot read the exposure of $u from: $line"
      echo "| $u | ${level% *} | ${level#* } |"
    done
  } | tee "$stage/security.md"
  # None may be above what it was before containment (issue 12's figures);
  # tunerd 2.0, not 1.8, since v1 shielding needed CAP_DAC_OVERRIDE and
  # CAP_SYS_NICE (docs/systemd.md says why).
  local limit
  for entry in benchbox-webhookd.service:1.3 benchbox-queued.service:0.4 benchbox-tunerd.service:2.0 \
    benchbox-runnerd.service:2.0 benchbox-reporterd.service:1.3; do
    u=${entry%%:*} limit=${entry#*:}
    level=$(awk -F' [|] ' -v u="$u" '$1 == "| " u {print $2}' "$stage/security.md")
    python3 -c "import sys; sys.exit(0 if float('$level') <= float('$limit') else 1)" ||
      fail "$u exposure $level is above $limit"
  done
  note "systemd-analyze security: every daemon at or below its limit (webhookd 1.3, queued 0.4, tunerd 2.0, runnerd 2.0, reporterd 1.3)"
}

all_units_active() {
  local u
  for u in "${units[@]}"; do
    [[ $(in_ct systemctl is-active "$u" 2>/dev/null) == active ]] || return 1
  done
}

wait_units_active() {
  if ! wait_for 120 all_units_active; then
    local u
    for u in "${units[@]}"; do
      echo "   $u: $(in_ct systemctl is-active "$u" 2>/dev/null || true)"
    done
    in_ct systemctl status --no-pager --lines=15 "${services[@]}" 2>&1 | tail -n 80 || true
    fail "not every benchbox unit became active"
  fi
  note "active: ${units[*]}"
}

check_introspection() {
  local name iface out
  for name in Queue1 Tuner1 Runner1 Reporter1; do
    iface="org.benchbox.$name"
    # Read whole, then matched: `busctl | grep -q` under pipefail fails
    # whenever grep quits before busctl has written everything (SIGPIPE).
    out=$(in_ct busctl introspect --no-pager "$iface" "/org/benchbox/$name" 2>&1) || true
    grep -q "^$iface *interface" <<<"$out" || fail "busctl introspect does not show $iface: $(head -c 300 <<<"$out")"
  done
  note "busctl introspect shows org.benchbox.{Queue1,Tuner1,Runner1,Reporter1}"
}

check_benchboxctl_status() {
  local out
  out=$(in_ct benchboxctl status 2>&1) || fail "benchboxctl status failed:
$out"
  if grep -q "down" <<<"$out"; then fail "benchboxctl status reports a daemon down:
$out"; fi
  while IFS= read -r line; do echo "   | $line"; done <<<"$out"
}

# webhookd answers GET /healthz through the socket PID 1 holds, and its
# watchdog (petted only while its own probe of that socket succeeds) never
# lapsed, restarts included.
check_webhook_liveness() {
  local answer watchdog
  answer=$(curl -sS --max-time 10 "http://127.0.0.1:$port/healthz") || fail "GET /healthz failed"
  [[ $answer == '{"status":"serving"}' ]] || fail "GET /healthz answered: $answer"
  watchdog=$(in_ct systemctl show -P WatchdogUSec benchbox-webhookd.service)
  [[ -n $watchdog && $watchdog != 0 ]] || fail "benchbox-webhookd has no watchdog (WatchdogUSec=$watchdog)"
  if in_ct journalctl --no-pager -u benchbox-webhookd.service | grep -q "not petting the watchdog"; then
    fail "webhookd stopped serving at some point: $(in_ct journalctl --no-pager -u benchbox-webhookd.service |
      grep "not petting" | tail -1)"
  fi
  note "GET /healthz: $answer; watchdog $watchdog, petted throughout (liveness probe of the socket)"
}

check_credentials_not_leaked() {
  local pid
  pid=$(in_ct systemctl show -P MainPID benchbox-webhookd.service)
  if in_ct cat "/proc/$pid/environ" | tr '\0' '\n' | grep -qF "$secret"; then
    fail "the webhook secret is in webhookd's environment"
  fi
  if in_ct journalctl --no-pager -o export | grep -qF "$secret"; then fail "the webhook secret is in the journal"; fi
  note "the webhook secret is neither in webhookd's environment nor in the journal"
}

# Writes a push payload for repository $1, branch $2, commit $3 to $4; a
# fifth argument goes into the commit message, so the same commit can be
# delivered again as a new body (webhookd answers a repeated body with its
# first job: replay protection).
push_payload() {
  python3 - "$source_dir/tests/fixtures/github/push_branch.json" "$@" <<'EOF'
import json, sys
fixture, repo, branch, sha, out = sys.argv[1:6]
nonce = sys.argv[6] if len(sys.argv) > 6 else ""
p = json.load(open(fixture))
owner, name = repo.split("/")
p["ref"] = "refs/heads/" + branch
p["before"] = "0" * 40
p["after"] = sha
p["repository"]["full_name"] = repo
p["repository"]["name"] = name
p["repository"]["owner"]["login"] = owner
p["repository"]["owner"]["name"] = owner
p["repository"]["clone_url"] = "file:///srv/benchbox-test/demo"
if p.get("head_commit"):
    p["head_commit"]["id"] = sha
    if nonce: p["head_commit"]["message"] += " " + nonce
for c in p.get("commits", []): c["id"] = sha
json.dump(p, open(out, "w"))
EOF
}

# Sends a signed delivery; prints "<http code> <curl exit> <body>".
send_delivery() {
  local event=$1 file=$2 delivery=$3 sig code rc=0
  sig=$(openssl dgst -sha256 -hmac "$secret" -r "$file" | cut -d' ' -f1)
  code=$(curl -sS --max-time 30 -o "$file.response" -w '%{http_code}' \
    -H "Content-Type: application/json" -H "X-GitHub-Event: $event" \
    -H "X-GitHub-Delivery: $delivery" -H "X-Hub-Signature-256: sha256=$sig" \
    --data-binary "@$file" "$webhook_url" 2>/dev/null) || rc=$?
  echo "${code:-000} $rc $(tr -d '\n' <"$file.response" 2>/dev/null)"
}

# Prints field $2 of job $1 (from Queue1.Get).
job_field() {
  ct_busctl_json call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Get x "$1" |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["data"][0]; print(d.get(sys.argv[1],{}).get("data",""))' "$2"
}

job_state_is() { [[ $(job_field "$1" state) == "$2" ]]; }
job_finished() { [[ $(job_field "$1" state) =~ ^(done|failed|cancelled)$ ]]; }

# Sends a push for commit $2 on branch $1 of bench/demo ($3: a nonce, for a
# new delivery of the same commit); prints the job id.
enqueue_push() {
  local file="$stage/push-$1${3:+-$3}.json" answer id
  push_payload bench/demo "$1" "$2" "$file" ${3:+"$3"}
  answer=$(send_delivery push "$file" "system-test-$1-$$${3:+-$3}")
  [[ $answer =~ ^20[02]\ 0 ]] || fail "the $1 delivery was not accepted: $answer"
  id=$(sed -n 's/.*"job_id":\([0-9]*\).*/\1/p' <<<"$answer")
  [[ -n $id ]] || fail "no job id in webhookd's answer: $answer"
  echo "$id"
}

# One more commit on main of the box's copy of the demo repository, given
# back to its owner (libgit2 reads only a repository its user owns): its
# sha in $new_sha. (The container has no PAM configuration for runuser.)
new_sha=""
commit_on_main() {
  local git=(git -c safe.directory=/srv/benchbox-test/demo -C /srv/benchbox-test/demo)
  in_ct "${git[@]}" commit -q --allow-empty -m "$1" || fail "cannot commit to the box's demo repository"
  new_sha=$(in_ct "${git[@]}" rev-parse HEAD)
  in_ct chown -R benchbox-runner:benchbox /srv/benchbox-test/demo
  [[ $new_sha =~ ^[0-9a-f]{40}$ ]] || fail "no sha for the new commit: '$new_sha'"
}

# check_job_in_scope [SHA NONCE]: a push of main (at SHA, default the
# first commit; NONCE makes it a delivery of its own) becomes a job that
# runs contained and pinned.
check_job_in_scope() {
  local id state err log sha=${1:-$main_sha}
  id=$(enqueue_push main "$sha" ${2:+"$2"})
  note "delivery accepted: job $id"
  wait_for 300 job_finished "$id" || fail "job $id did not finish within 300 s (state $(job_field "$id" state))"
  state=$(job_field "$id" state)
  err=$(job_field "$id" error)
  [[ $state == "done" ]] || fail "job $id ended $state: $err"
  note "job $id is done (observed with busctl call org.benchbox.Queue1 Get)"
  # The benchmark's output is in the job's output.log (each line prefixed
  # with its suite, role and round); the journal has one entry per command.
  log=$(in_ct cat "/var/lib/benchbox/results/$id/output.log" | sed 's/^\[[^]]*\] //')
  job_log=$log
  grep -q BENCHBOX_PROBE_OK <<<"$log" || fail "the job's output.log does not hold the benchmark's output:
$log"
  local journal
  journal=$(in_ct journalctl --no-pager -o cat "JOB_ID=$id")
  grep -q "round 0\] run done in" <<<"$journal" ||
    fail "journalctl JOB_ID=$id has no entry for the benchmark's command: $(tail -20 <<<"$journal")"
  if grep -q BENCHBOX_PROBE_OK <<<"$journal"; then fail "the benchmark's output went to the journal line by line"; fi
  grep -qE "benchbox-bench\.slice/benchbox-job-$id-[0-9]+\.service" <<<"$log" ||
    fail "the benchmark did not run in a benchbox-job-$id-*.service under benchbox-bench.slice:
$(grep -i cgroup <<<"$log" || grep ':/' <<<"$log")"
  grep -qx "BENCHBOX_USER=benchbox-job" <<<"$log" ||
    fail "the benchmark did not run as benchbox-job: $(grep BENCHBOX_USER <<<"$log")"
  grep -qP "Cpus_allowed_list:\s+$bench_cpu$" <<<"$log" ||
    fail "the benchmark's Cpus_allowed_list is not $bench_cpu: $(grep Cpus_allowed_list <<<"$log")"
  note "output.log of job $id: output present, the journal one entry per command; ran as benchbox-job in $(grep -oE "benchbox-bench\.slice/benchbox-job-$id-[0-9]+\.service" <<<"$log" | head -1); $(grep -m1 Cpus_allowed_list <<<"$log" | tr '\t' ' ')"
  local isolation
  isolation=$(in_ct busctl get-property org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 Isolation)
  note "Runner1.Isolation = $isolation"
}

# bench/runner's per-process figures where systemd is PID 1: a benchmark
# process in a transient scope against a plain fork/exec, ratios of one run.
measure_scope_cost() {
  local bin="$build_dir/bench/bench-runner" out
  if [[ ! -x $bin ]]; then
    note "bench-runner not built ($bin): the scope's cost is not measured"
    return
  fi
  cp "$bin" "$stage/bench-runner"
  local meter
  meter=$(in_ct sh -c 'ls /usr/libexec/benchbox/benchbox-meter /usr/lib/*/benchbox/benchbox-meter 2>/dev/null | head -1')
  out=$(in_ct /mnt/bb-stage/bench-runner --processes 100 --only processes --meter "$meter" 2>&1) ||
    fail "bench-runner failed in the container: $out"
  grep -Eq 'transient scope runner +[0-9.]+ ms +[0-9.]+x' <<<"$out" ||
    fail "bench-runner measured no transient scope in the container: $out"
  grep -Eq 'contained service runner +[0-9.]+ ms +[0-9.]+x' <<<"$out" ||
    fail "bench-runner measured no contained launch in the container: $out"
  grep -Eq 'contained, one unit per job +[0-9.]+ ms +[0-9.]+x' <<<"$out" ||
    fail "bench-runner measured no supervised launch (one unit per job) in the container: $out"
  local line
  while IFS= read -r line; do note "bench-runner: $line"; done <<<"$out"
}

# Least privilege on the bus (docs/systemd.md, "Bus policy"): each call is
# made as `nobody` and as every daemon user that must not make it; each must
# end in AccessDenied, from the bus or from the daemon. Prints one line
# "bus policy: N of M calls refused".
check_policy() {
  local out
  in_ct setpriv --reuid=65534 --regid=65534 --clear-groups \
    busctl get-property org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Queued >/dev/null ||
    fail "an unprivileged user cannot read Queue1.Queued"
  in_ct setpriv --reuid=65534 --regid=65534 --clear-groups \
    busctl introspect --no-pager org.benchbox.Runner1 /org/benchbox/Runner1 >/dev/null ||
    fail "an unprivileged user cannot introspect Runner1"
  local q="org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1"
  local t="org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1"
  local r="org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1"
  local p="org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1"
  # "who|call": job 1 exists and is finished by now, so Cancel is of a job
  # that is not running (the one Cancel runnerd's user may make).
  local calls=(
    "nobody|$q Cancel xs 1 policy-test"
    "nobody|$q Enqueue a{sv} 0"
    "nobody|$t Apply"
    "nobody|$t AdmitToBench u 1"
    "nobody|$r CancelCurrent s policy-test"
    "nobody|$p Ingest x 1"
    "benchbox-webhook|$q Claim su policy-test 0"
    "benchbox-webhook|$q Complete xss 1 policy-test /tmp/forged.json"
    "benchbox-webhook|$q Cancel xs 1 policy-test"
    "benchbox-webhook|$t Restore"
    "benchbox-webhook|$t AdmitToBench u 1"
    "benchbox-report|$t AdmitToBench u 1"
    "benchbox-runner|$q Enqueue a{sv} 0"
    "benchbox-runner|$q RecordPullRequest a{sv} 0"
    "benchbox-runner|$q Cancel xs 1 policy-test"
    "benchbox-runner|$t Restore"
    "benchbox-runner|$t Apply"
    "benchbox-runner|$r Pause s policy-test"
    "benchbox-runner|$r Hold s policy-test"
    "benchbox-runner|$p Ingest x 1"
    "benchbox-report|$q Cancel xs 1 policy-test"
    "benchbox-report|$q Complete xss 1 policy-test /tmp/forged.json"
    "benchbox-report|$q Enqueue a{sv} 0"
    "benchbox-report|$q CancelGroup xs 1 policy-test"
    "benchbox-report|$p Ingest x 1"
    "benchbox-queue|$q Cancel xs 1 policy-test"
    "benchbox-queue|$t Apply")
  local entry who c ids refused=0
  for entry in "${calls[@]}"; do
    who=${entry%%|*} c=${entry#*|}
    if [[ $who == nobody ]]; then ids=(--reuid=65534 --regid=65534 --clear-groups)
    else ids=(--reuid="$who" --regid="$(in_ct id -gn "$who")" --init-groups); fi
    # shellcheck disable=SC2086
    if out=$(in_ct setpriv "${ids[@]}" busctl call $c 2>&1); then fail "$who was allowed: busctl call $c"; fi
    grep -qi "access denied\|AccessDenied" <<<"$out" || fail "busctl call $c as $who failed, but not by policy: $out"
    refused=$((refused + 1))
  done
  [[ $(job_field 1 state) != cancelled ]] || fail "job 1 was cancelled by a refused call"
  note "bus policy: $refused of ${#calls[@]} calls refused (as nobody and as each daemon user)"
}

# Contained code tries what it must not do (tests/system/attack.sh): every
# attempt must be refused, and its own result still recorded correctly.
check_containment() {
  local id state log attempts total refused result line
  # What "another job" left behind, writable by anyone: a POSIX shared
  # memory file and a System V message queue (key 0x62623031).
  in_ct sh -c 'echo planted >/dev/shm/benchbox-other-job && chmod 0666 /dev/shm/benchbox-other-job'
  in_ct python3 -c 'import ctypes; ctypes.CDLL(None).msgget(0x62623031, 0o1666) >= 0 or exit(1)' ||
    fail "could not plant a System V message queue"
  id=$(enqueue_push attack "$attack_sha")
  note "delivery accepted: job $id (the attack branch)"
  measure_job_security "$id"
  wait_for 300 job_finished "$id" || fail "job $id did not finish within 300 s"
  in_ct rm -f /dev/shm/benchbox-other-job
  in_ct python3 -c 'import ctypes; c = ctypes.CDLL(None); q = c.msgget(0x62623031, 0); q < 0 or c.msgctl(q, 0, None)'
  state=$(job_field "$id" state)
  [[ $state == done ]] || fail "the attacking job $id ended $state: $(job_field "$id" error)"
  log=$(in_ct cat "/var/lib/benchbox/results/$id/output.log" | sed 's/^\[[^]]*\] //')
  job_log=$log
  attempts=$(grep '^ATTEMPT ' <<<"$log" || true)
  total=$(grep -c . <<<"$attempts" || true)
  refused=$(grep -c ': refused: ' <<<"$attempts" || true)
  [[ $total -eq 23 ]] || fail "expected 23 attempts in job $id's output.log, found $total:
$log"
  while IFS= read -r line; do note "$line"; done <<<"$attempts"
  note "$(grep -m1 '^NOTE ' <<<"$log" || true)"
  echo "containment: $refused of $total attempts refused"
  [[ $refused -eq $total ]] || fail "not every attempt was refused"
  [[ $(job_field 1 state) == done ]] || fail "job 1 is no longer done: $(job_field 1 state)"
  if in_ct test -e /var/lib/benchbox/results/1/forged.json; then fail "a forged result file exists"; fi
  if in_ct test -e /var/cache/benchbox/git/planted; then fail "the git cache was written"; fi
  result=$(job_field "$id" result_path)
  in_ct python3 -c "$(cat "$here/check_result.py")" "$result" || fail "job $id's own result is not what it measured"
  check_procsubset_left_out
}

# While job $1 runs: `systemd-analyze security` of one of its transient
# units (each command's unit has the same sandbox), at most 2.5, as the
# daemons are held to their limits.
measure_job_security() {
  local id=$1 unit line exposure="" deadline=$((SECONDS + 300))
  until [[ -n $exposure ]]; do
    ((SECONDS < deadline)) || fail "no unit of job $id was running long enough to be analyzed"
    job_finished "$id" && fail "job $id ended before any of its units could be analyzed"
    unit=$(active_job_unit "$id")
    if [[ -n $unit ]] && in_ct systemd-analyze security --no-pager "$unit" >"$stage/job-security.txt" 2>&1; then
      line=$(tail -n 1 "$stage/job-security.txt")
      exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$line")
    fi
    [[ -n $exposure ]] || sleep 0.2
  done
  python3 -c "import sys; sys.exit(0 if float('$exposure') <= 2.5 else 1)" ||
    fail "$unit: exposure $exposure is above 2.5:
$(grep -E '^✗' "$stage/job-security.txt")"
  note "systemd-analyze security $unit: ${line#*: } (at most 2.5)"
}

# docs/systemd.md says why a job's unit has no ProcSubset=pid: what a
# harness or a build reads of the machine is gone under it. Shown here on
# the same user and /proc view (ProtectProc=invisible) as a job's, once
# without and once with it.
check_procsubset_left_out() {
  local props=(--quiet --wait --pipe -p User=benchbox-job -p ProtectProc=invisible) without with
  # shellcheck disable=SC2016
  local probe='n=$(grep -c ^processor /proc/cpuinfo 2>/dev/null); echo "cpuinfo:${n:-none}"
    command -v node >/dev/null && echo "node:$(node -e "console.log(require(\"os\").cpus().length)")"
    exit 0'
  without=$(in_ct systemd-run "${props[@]}" /bin/sh -c "$probe" | tr '\n' ' ')
  with=$(in_ct systemd-run "${props[@]}" -p ProcSubset=pid /bin/sh -c "$probe" | tr '\n' ' ')
  [[ $without == *cpuinfo:[1-9]* ]] || fail "a job's view of /proc/cpuinfo is not there without ProcSubset=pid: $without"
  [[ $with == *cpuinfo:none* ]] || fail "ProcSubset=pid left /proc/cpuinfo readable: $with"
  if [[ $without == *node:* ]]; then
    [[ $with == *node:0* ]] || fail "under ProcSubset=pid node's os.cpus() still sees CPUs: $with"
  fi
  note "ProcSubset=pid (left out of a job's sandbox): without it $without; with it $with"
}

# Real builds inside a job's sandbox (tests/system/builds/build.sh): the
# sandbox's system call filter, namespaces, private IPC and /dev/shm must
# not break cmake, pip, node or multiprocessing. A toolchain the box
# lacks is said, not counted.
check_real_builds() {
  local id state log built
  id=$(enqueue_push builds "$builds_sha")
  wait_for 400 job_finished "$id" || fail "the builds job $id did not finish within 400 s"
  state=$(job_field "$id" state)
  log=$(in_ct cat "/var/lib/benchbox/results/$id/output.log" | sed 's/^\[[^]]*\] //')
  job_log=$log
  [[ $state == done ]] || fail "real builds failed in a job's sandbox (job $id $state: $(job_field "$id" error)):
$log"
  built=$(grep -c '^BUILT ' <<<"$log" || true)
  ((built >= 2)) || fail "fewer than two toolchains built in job $id:
$log"
  while IFS= read -r line; do note "$line"; done < <(grep -E '^(BUILT|NOT HERE) ' <<<"$log")
  # valgrind under the sandbox's system call filter, ASLR off (callgrind
  # mode: the one command without LockPersonality=).
  local instructions
  instructions=$(in_ct python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r = r.get("head", r)
b = [b for b in r["benchmarks"] if b["suite"] == "callgrind" and b["metric"] == "instructions"]
if not b or not b[0]["samples"]: sys.exit("no callgrind instructions: %s" % (b[0] if b else [x["suite"] for x in r["benchmarks"]]))
print(b[0]["samples"][0])' "$(job_field "$id" result_path)" 2>&1) ||
    fail "job $id: $instructions"
  note "callgrind in a job's sandbox: $instructions instructions"
  echo "real builds: $built toolchains built in a job's sandbox"
}

# The first active transient unit of job $1, "" when none runs.
active_job_unit() {
  in_ct systemctl list-units --no-legend --plain --state=active --type=service "benchbox-job-$1-*" |
    awk 'NR == 1 {print $1}'
}

scope_of_job() { [[ -n $(active_job_unit "$1") ]]; }

check_hanging_benchmark() {
  local id err
  id=$(enqueue_push hang "$hang_sha")
  note "delivery accepted: job $id"
  wait_for 240 scope_of_job "$id" || fail "no active benchbox-job-$id-*.service appeared"
  note "$(in_ct systemctl list-units --no-legend --plain --type=service "benchbox-job-$id-*" | awk '{print $1}') is active"
  wait_for 120 job_finished "$id" || fail "the hanging job $id was not stopped"
  [[ $(job_field "$id" state) == failed ]] || fail "the hanging job ended $(job_field "$id" state), not failed"
  err=$(job_field "$id" error)
  grep -qi "timed out" <<<"$err" || fail "the hanging job's reason does not say it timed out: $err"
  wait_for 30 bash -c "! nsenter -t $ct_pid -a systemctl list-units --no-legend --all --type=service 'benchbox-job-$id-*' | grep -q ." ||
    fail "the unit of job $id is still there"
  if in_ct pgrep -f 'sleep 4242' >/dev/null; then fail "the hanging benchmark process survived"; fi
  note "job $id failed: $err"
  note "its unit is gone and no process of it is left"
}

# The load generator: signed push deliveries to bench/load, each a new
# commit, sequentially until $stage/load.stop exists. One line per delivery:
# "<delivery id> <http code> <curl exit>".
# One sender of signed deliveries, until load.stop appears; $1 names it.
load_generator() {
  local worker=$1 i=0 file="$stage/load-$1.json" answer sha
  while [[ ! -e $stage/load.stop ]]; do
    i=$((i + 1))
    sha=$(printf 'load-%s-%s-%s' "$$" "$worker" "$i" | sha1sum | cut -c1-40)
    push_payload bench/load "load-$worker-$i" "$sha" "$file"
    answer=$(send_delivery push "$file" "load-$$-$worker-$i")
    # delivery id, status, curl's exit, when the answer came (upgrade.sh's gaps)
    echo "load-$$-$worker-$i ${answer%% \{*} $(date +%s.%N)" >>"$stage/load.log"
  done
}

# Lists the delivery ids of bench/load jobs into jobs.txt; true when every
# accepted delivery has one.
count_jobs() {
  ct_busctl_json call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 List su "" 100000 |
    python3 -c '
import json, sys
jobs = json.load(sys.stdin)["data"][0]
for j in jobs:
  if j.get("repository", {}).get("data") == "bench/load":
      print(j.get("delivery_id", {}).get("data", ""))' | sort -u >"$stage/jobs.txt"
  [[ -z $(comm -23 "$stage/accepted.txt" "$stage/jobs.txt") ]]
}

unit_active() { [[ $(in_ct systemctl is-active "$1") == active ]]; }

# Cancels the bench/load jobs still queued, so the runner is free for the
# next step (they exist only to be counted).
cancel_load_jobs() {
  in_ct sh -c '
    busctl --json=short call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 List su queued 0 |
      python3 -c "
import json, sys
for j in json.load(sys.stdin)[\"data\"][0]:
    if j.get(\"repository\", {}).get(\"data\") == \"bench/load\": print(j[\"id\"][\"data\"])" |
      while read -r id; do
        busctl call org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1 Cancel xs "$id" "load only" >/dev/null 2>&1 || true
      done'
}

# Four concurrent senders (so restarts land while requests are in flight),
# until stop_load; their lines go to a fresh load.log.
start_load() {
  : >"$stage/load.log"
  rm -f "$stage/load.stop"
  local w
  load_pids=()
  for w in 1 2 3 4; do
    load_generator "$w" &
    load_pids+=($!)
  done
  load_pid="${load_pids[*]}"
  wait_for 60 bash -c "[[ \$(grep -c ' 20[02] 0' '$stage/load.log') -ge 4 ]]" ||
    fail "the load generator's first deliveries were not accepted: $(head -3 "$stage/load.log")"
}

stop_load() {
  touch "$stage/load.stop"
  local w
  for w in "${load_pids[@]}"; do wait "$w" || true; done
  load_pid=""
}

check_restarts_under_load() {
  # Jobs stay queued while the runner is stopped, so each one can be counted.
  in_ct systemctl stop benchbox-runnerd.service
  start_load
  local k restarts=5
  for ((k = 1; k <= restarts; k++)); do
    # Manual restarts count toward StartLimitBurst= (5 in 10 s, which guards
    # against crash loops); ten restarts in a few seconds would trip it, so
    # reset the counter as an operator scripting this would.
    in_ct systemctl reset-failed benchbox-webhookd.service benchbox-queued.service
    in_ct systemctl restart benchbox-webhookd.service
    wait_for 60 unit_active benchbox-webhookd.service || fail "webhookd did not come back after restart $k"
    in_ct systemctl restart benchbox-queued.service
    wait_for 60 unit_active benchbox-queued.service || fail "queued did not come back after restart $k"
  done
  local before
  before=$(wc -l <"$stage/load.log")
  # Keep the load on after the last restart, and make sure it was a load.
  wait_for 60 bash -c "[[ \$(wc -l < '$stage/load.log') -ge $((before + 20)) && \$(wc -l < '$stage/load.log') -ge 100 ]]" || true
  stop_load

  local sent ok spooled failed_conn other
  sent=$(wc -l <"$stage/load.log")
  ok=$(awk '$2 ~ /^20[02]$/ && $3 == 0' "$stage/load.log" | wc -l)
  # A 503 is the documented answer when Enqueue times out or queued is not
  # on the bus (a slow restart on a loaded box): the delivery is spooled
  # first and replayed. It loses nothing if it still becomes a job, which
  # is checked with the 2xx ones; a 503 that was not spooled would not.
  spooled=$(awk '$2 == "503" && $3 == 0' "$stage/load.log" | wc -l)
  failed_conn=$(awk '$3 != 0 || $2 == "000"' "$stage/load.log" | wc -l)
  other=$((sent - ok - spooled - failed_conn))
  awk '($2 ~ /^20[02]$/ || $2 == "503") && $3 == 0 {print $1}' "$stage/load.log" | sort >"$stage/accepted.txt"

  # Every accepted or spooled delivery must become a job (spooled ones once replayed).
  wait_for 90 count_jobs || true
  local lost
  lost=$(comm -23 "$stage/accepted.txt" "$stage/jobs.txt" | wc -l)
  echo "   restart-under-load: restarts webhookd=$restarts queued=$restarts; deliveries sent=$sent" \
    "accepted(2xx)=$ok answered-503-and-spooled=$spooled other-status=$other failed-connections=$failed_conn;" \
    "jobs for them=$((ok + spooled - lost)) lost=$lost" | tee "$stage/load-summary.txt"
  if ((other + spooled > 0)); then
    note "non-2xx answers: $(awk '$2 !~ /^20[02]$/ && $3 == 0 {print $2}' "$stage/load.log" | sort | uniq -c | tr '\n' ' ')"
  fi
  ((failed_conn == 0)) || fail "$failed_conn deliveries failed to connect during restarts"
  ((lost == 0)) || fail "$lost accepted or spooled deliveries have no job: $(comm -23 "$stage/accepted.txt" "$stage/jobs.txt" | head -5 | tr '\n' ' ')"
  ((other == 0)) || fail "$other deliveries were answered with neither 2xx nor 503-and-spooled during restarts"
}

# nspawn mounts a cgroup-v1 cpuset hierarchy read-only in the container.
# Writable again, tunerd can shield the container's tasks for real: the
# container sees the host's cpusets (the cgroup namespace roots where it
# runs) but only its own tasks in them. tunerd restarts to see it writable
# (its mount namespace was made at start). Not on a cgroup-v2 host.
writable_cpusets() {
  in_ct test -e /sys/fs/cgroup/cpuset/cpuset.cpus || return 0
  in_ct test ! -e /sys/fs/cgroup/cgroup.controllers || return 0
  in_ct mount -o remount,rw,bind /sys/fs/cgroup/cpuset || {
    note "the container's cpuset hierarchy cannot be made writable: v1 shielding is not tried"
    return 0
  }
  ct_cpusets=1
  in_ct systemctl restart benchbox-tunerd.service || fail "benchbox-tunerd did not restart"
  note "the container's cgroup-v1 cpuset hierarchy is writable: tunerd shields with cpusets"
}

# The CPU that task $1 (a container PID) last ran on, every 5 ms, one per
# line: field 39 of /proc/PID/stat, read from the host (no process per
# sample) under the task's host PID.
sample_cpus() {
  exec python3 - "$1" "$ct_pid" <<'PY'  # exec: the caller's kill reaches python
import os, sys, time
inner, ct = sys.argv[1], sys.argv[2]
ns = os.readlink("/proc/%s/ns/pid" % ct)
host = None
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        if os.readlink("/proc/%s/ns/pid" % p) != ns:
            continue
        nspid = next(l for l in open("/proc/%s/status" % p) if l.startswith("NSpid:")).split()
        if nspid[-1] == inner:
            host = p
            break
    except (OSError, StopIteration):
        pass
if host is None:
    sys.exit("no host PID for container PID " + inner)
while True:
    try:
        stat = open("/proc/%s/stat" % host).read()
    except OSError:
        break
    print(stat[stat.rindex(")") + 2:].split()[36], flush=True)
    time.sleep(0.005)
PY
}

# 7. Host tuning on a booted systemd: Apply shields the CPUs by slices as far
# as this host allows, the checklist gives a reason for every item it could
# not apply, and Restore puts the slices back. The container shares the
# host's kernel, but /proc/sys, /proc/irq and /sys are read-only in it, so
# the host itself is never changed by this step.
check_tuning() {
  local rc=0 out
  writable_cpusets
  out=$(in_ct benchboxctl tune apply --json 2>&1) || rc=$?
  ((rc <= 1)) || fail "benchboxctl tune apply failed (exit $rc): $out"
  printf '%s\n' "$out" >"$stage/tune-apply.json"
  python3 - "$stage/tune-apply.json" <<'PY' || fail "the tuning checklist is not honest: $(cat "$stage/tune-apply.json")"
import json, sys
report = json.load(open(sys.argv[1]))
items = {i["name"]: i for i in report["items"]}
bad = [n for n, i in items.items() if not i["ok"] and not i["reason"]]
if bad:
    sys.exit("items not applied without a reason: " + ", ".join(bad))
if "shielding" not in items:
    sys.exit("no shielding item in the checklist")
for n, i in sorted(items.items()):
    print("   | %-20s %-4s %s" % (n, "ok" if i["ok"] else "no", i["reason"] or i["actual"]))
print("   state after apply: %s" % report["state"])
PY
  local bench_cpus house_cpus bench_slice system_slice shielded
  bench_cpus=$(in_ct busctl get-property org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 BenchmarkCPUs | cut -d'"' -f2)
  house_cpus=$(in_ct busctl get-property org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 HousekeepingCPUs | cut -d'"' -f2)
  shielded=$(python3 -c 'import json,sys; print(next(i["ok"] for i in json.load(open(sys.argv[1]))["items"] if i["name"] == "shielding"))' "$stage/tune-apply.json")
  if [[ $shielded == True ]]; then
    # Shielding took effect: on cgroup v2 through AllowedCPUs= on the slices.
    bench_slice=$(in_ct systemctl show -P AllowedCPUs benchbox-bench.slice)
    system_slice=$(in_ct systemctl show -P AllowedCPUs system.slice)
    note "AllowedCPUs: benchbox-bench.slice=${bench_slice:-(all)} (benchmark CPUs $bench_cpus)," \
      "system.slice=${system_slice:-(all)} (housekeeping CPUs $house_cpus)"
    if in_ct test -e /sys/fs/cgroup/cgroup.controllers && ! in_ct test -d /sys/fs/cgroup/cpuset; then
      [[ $bench_slice == "$bench_cpus" ]] || fail "benchbox-bench.slice did not get AllowedCPUs=$bench_cpus"
      [[ $system_slice == "$house_cpus" ]] || fail "system.slice did not get AllowedCPUs=$house_cpus"
    fi
  elif ((ct_cpusets)); then
    fail "shielding was not applied on the container's writable cpusets: see the checklist above"
  else
    # This host cannot shield. The checklist must say so, and the runner
    # still pins every benchmark to its CPUs by affinity (step 2).
    note "shielding not applied here, and the checklist says why (see above); benchmarks stay pinned by affinity"
  fi
  # A job under the tuning just applied, shielding included where it took,
  # and a busy loop in system.slice sampled throughout.
  note "a job while the tuning is applied:"
  commit_on_main "a job under tuning"
  [[ $new_sha != "$main_sha" ]] || fail "the new commit is main's first"
  local busy
  in_ct systemd-run --quiet --unit=benchbox-test-busy.service /bin/sh -c 'while :; do :; done' ||
    fail "could not start a busy loop in system.slice"
  busy=$(in_ct systemctl show -P MainPID benchbox-test-busy.service)
  sample_cpus "$busy" >"$stage/busy-samples.txt" &
  local sampler=$!
  check_job_in_scope "$new_sha" tuned
  kill "$sampler" 2>/dev/null || true  # (it ends by itself if the loop is gone)
  wait "$sampler" 2>/dev/null || true  # killed: status 143
  in_ct systemctl stop benchbox-test-busy.service || true
  local samples on_bench
  samples=$(grep -c . "$stage/busy-samples.txt" || true)
  on_bench=$(grep -cx "$bench_cpu" "$stage/busy-samples.txt" || true)
  if ((ct_cpusets)); then
    if ! grep -q "cpuset:/benchbox-bench$" <<<"$job_log"; then
      local runnerd
      runnerd=$(in_ct systemctl show -P MainPID benchbox-runnerd.service)
      fail "the benchmark's unit was not admitted to the bench cpuset: $(grep cpuset <<<"$job_log" | sort -u | tr '\n' ' ')
  PID 1's cpuset: $(in_ct cat /proc/1/cpuset); the cpusets: $(in_ct ls /sys/fs/cgroup/cpuset | grep benchbox | tr '\n' ' ')
  runnerd (PID $runnerd) sees: $(in_ct nsenter -t "$runnerd" -m setpriv --reuid=benchbox-runner --regid=benchbox --init-groups stat -c '%A %U' /sys/fs/cgroup/cpuset/benchbox-bench/tasks 2>&1)
  installed runnerd knows AdmitToBench: $(in_ct grep -c AdmitToBench /usr/libexec/benchbox/benchbox-runnerd 2>&1)
  journal: $(in_ct journalctl --no-pager -o cat -u benchbox-runnerd -u benchbox-tunerd -n 300 | grep -iE 'admit|gate|cpuset|pin' | tail -8)"
    fi
    ((samples >= 50)) || fail "the busy loop (PID $busy in the container) was sampled only $samples times during the job: $(head -c 300 "$stage/busy-samples.txt")"
    ((on_bench == 0)) || fail "the busy loop in system.slice ran $on_bench of $samples times on benchmark CPU $bench_cpu"
    echo "shielding (systemd, cgroup v1): a busy loop in system.slice sampled $samples times during the job, $on_bench" \
      "on benchmark CPU $bench_cpu; the benchmark's unit ran from /benchbox-bench on CPU $bench_cpu"
  else
    note "busy loop in system.slice, not shielded: $on_bench of $samples samples on benchmark CPU $bench_cpu"
  fi

  rc=0
  out=$(in_ct benchboxctl tune restore --json 2>&1) || rc=$?
  ((rc <= 1)) || fail "benchboxctl tune restore failed (exit $rc): $out"
  system_slice=$(in_ct systemctl show -P AllowedCPUs system.slice)
  bench_slice=$(in_ct systemctl show -P AllowedCPUs benchbox-bench.slice)
  [[ -z $system_slice && -z $bench_slice ]] ||
    fail "restore left AllowedCPUs on the slices: system.slice='$system_slice' benchbox-bench.slice='$bench_slice'"
  [[ $(in_ct busctl get-property org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 State) == 's "untuned"' ]] ||
    fail "tunerd is not untuned after restore"
  in_ct test ! -e /var/lib/benchbox/tuner/originals.json || fail "restore left the save of originals behind"
  if ((ct_cpusets)); then
    in_ct test ! -e /sys/fs/cgroup/cpuset/benchbox-bench || fail "restore left the benchmark cpuset behind"
    [[ $(in_ct cat /proc/1/cpuset) == / ]] || fail "restore left the container's PID 1 in cpuset $(in_ct cat /proc/1/cpuset)"
  fi
  note "restore: no AllowedCPUs= left on the slices, state untuned, no save of originals left"
}
