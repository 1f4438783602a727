#!/usr/bin/env bash
# benchbox end to end on one box, with no systemd needed: the five daemons on a
# private D-Bus bus, state in SQLite files under one directory, a demo git
# repository made on the spot, and real signed webhook deliveries over HTTP:
# a push to main, then a pull request whose head is ~20 % slower, blessed by
# an allowed user's "/benchbox run" comment. Prints the PR report. Then one
# push of six commits to main, one of them slower: reporterd confirms the
# step and bisects it to that commit (docs/bisect.md).
# Exits non-zero if anything in the chain fails.
#   BENCHBOX_DEMO_DIR  where state goes (default: ./_demo, wiped first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install-deps.sh"
# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"

echo "== building benchbox"
[[ -d build ]] || meson setup build >/dev/null
# Only what the demo starts: the five daemons, the meter runnerd runs beside
# each benchmark, and the CLI; not the tests and bench programs.
meson compile -C build benchbox-webhookd benchbox-queued benchbox-tunerd benchbox-runnerd \
  benchbox-meter benchbox-reporterd benchboxctl >/dev/null

demo=${BENCHBOX_DEMO_DIR:-$root/_demo}
rm -rf "$demo"
mkdir -p "$demo"/{state,cache,creds,logs}
# runnerd runs as root here, so every job's build and benchmark run as the
# job's own uid (docs/systemd.md, "Containment"), which must be able to pass
# through each directory above its work tree. A checkout under /root (0700)
# is not: then the work trees go under /var/tmp instead.
cache=$demo/cache
reachable() {
  local d=$1
  while [[ $d != / ]]; do
    d=$(dirname "$d")
    [[ $(( 0$(stat -c %a "$d") & 1 )) -ne 0 ]] || return 1
  done
}
if ! reachable "$cache"; then
  cache=/var/tmp/benchbox-demo-cache
  rm -rf "$cache" && mkdir -p "$cache"
  echo "== $demo is not reachable by other users: job work trees go under $cache"
fi
bin="$root/build"
ctl="$bin/cli/benchboxctl"
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [[ -n ${bus_pid:-} ]] && kill "$bus_pid" 2>/dev/null || true
  if [[ $rc -ne 0 ]]; then
    echo "demo FAILED (exit $rc). Daemon logs:" >&2
    tail -n 30 "$demo"/logs/*.log >&2 || true
  fi
}
trap cleanup EXIT

die() { echo "demo: $*" >&2; exit 1; }

# Polls a command until it succeeds, up to $1 seconds.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

echo "== a demo repository with a small benchmark suite"
repo="$demo/repos/demo.git"
work="$demo/repos/work"
git init -q --bare "$repo"
git init -q -b main "$work"
cat >"$work/bench.c" <<'C'
/* A CPU-bound loop; WORK sets how long it runs (~50-100 ms here). */
#include <stdio.h>
#include "work.h"
int main(void) {
  volatile unsigned long x = 1;
  for (unsigned long i = 0; i < WORK; ++i) x = x * 6364136223846793005ul + i;
  printf("%lu\n", (unsigned long)x);
  return 0;
}
C
echo '#define WORK 60000000ul' >"$work/work.h"
cat >"$work/.benchbox.yml" <<'YML'
version: 1
suites:
  - name: loop
    build: cc -O2 -o bench bench.c
    run: ./bench
    format: command        # benchbox times the command: wall_time and cpu_time
    repetitions: 15
    warmup: 1
    timeout: 60
  - name: loop-hyperfine
    build: cc -O2 -o bench bench.c
    run: hyperfine --runs 3 --warmup 1 --style none --export-json "$BENCHBOX_OUTPUT" ./bench
    format: hyperfine
    output: hyperfine.json
    repetitions: 8
    timeout: 120
YML
git -C "$work" add -A
git -C "$work" -c user.name=alice -c user.email=alice@example.org commit -qm "Add the loop benchmark"
git -C "$work" push -q "$repo" main
main_sha=$(git -C "$work" rev-parse HEAD)
git -C "$work" checkout -q -b slower
echo '#define WORK 72000000ul' >"$work/work.h"   # 20 % more work
git -C "$work" -c user.name=mallory -c user.email=m@example.org commit -qam "Do more work per call"
pr_sha=$(git -C "$work" rev-parse HEAD)
git -C "$work" push -q "$repo" slower
git -C "$repo" update-ref refs/pull/1/head "$pr_sha"   # what GitHub provides for PRs

echo "== configuration, credentials, private D-Bus bus"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
secret=$(openssl rand -hex 32)
printf '%s' "$secret" >"$demo/creds/webhook-secret"
chmod 0400 "$demo/creds/webhook-secret"
cpus=$(nproc)
cat >"$demo/benchbox.yml" <<YML
state_dir: $demo/state
cache_dir: $cache
repositories:
  - name: demo/loop
    clone_url: $repo
    branches: [main]
    blessers: [alice]
queue:
  lease_seconds: 60
runner:
  benchmark_cpus: "$((cpus - 1))"
  heartbeat_seconds: 5
tuner:
  sysfs_root: /
YML
read -r bus_address bus_pid < <(dbus-daemon --session --fork --print-address=1 --print-pid=1 --nopidfile | paste -sd' ')
export DBUS_SYSTEM_BUS_ADDRESS=$bus_address BENCHBOX_LOG=stderr

start() {
  local name=$1; shift
  "$@" >"$demo/logs/$name.log" 2>&1 &
  pids+=($!)
}
start queued "$bin/daemons/queued/benchbox-queued" --config "$demo/benchbox.yml"
start tunerd "$bin/daemons/tunerd/benchbox-tunerd" --config "$demo/benchbox.yml"
start reporterd "$bin/daemons/reporterd/benchbox-reporterd" --config "$demo/benchbox.yml"
start runnerd "$bin/daemons/runnerd/benchbox-runnerd" --config "$demo/benchbox.yml"
CREDENTIALS_DIRECTORY="$demo/creds" start webhookd "$bin/daemons/webhookd/benchbox-webhookd" \
  --config "$demo/benchbox.yml" --listen "127.0.0.1:$port"
wait_for 30 "$ctl" status || { "$ctl" status || true; die "daemons did not come up"; }
wait_for 30 curl -s -o /dev/null "http://127.0.0.1:$port/" || die "webhookd is not listening on $port"
"$ctl" status

# Sends one signed delivery; prints the HTTP status and the body.
deliver() {
  local event=$1 body=$2 sig
  sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
  curl -sS -o "$demo/last-response" -w '%{http_code}' -X POST "http://127.0.0.1:$port/webhook" \
    -H "Content-Type: application/json" -H "X-GitHub-Event: $event" \
    -H "X-GitHub-Delivery: $(cat /proc/sys/kernel/random/uuid)" \
    -H "X-Hub-Signature-256: sha256=$sig" --data-binary "$body"
}
job_id_of_response() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$demo/last-response"; }

repo_json="{\"full_name\":\"demo/loop\",\"clone_url\":\"$repo\",\"default_branch\":\"main\",\"owner\":{\"login\":\"demo\"},\"name\":\"loop\"}"

echo "== webhook: push to main"
code=$(deliver push "{\"ref\":\"refs/heads/main\",\"before\":\"0000000000000000000000000000000000000000\",\"after\":\"$main_sha\",\"created\":true,\"deleted\":false,\"forced\":false,\"repository\":$repo_json,\"sender\":{\"login\":\"alice\"},\"pusher\":{\"name\":\"alice\"},\"head_commit\":{\"id\":\"$main_sha\",\"message\":\"Add the loop benchmark\"}}")
[[ $code == 202 ]] || die "push delivery answered $code: $(cat "$demo/last-response")"
push_job=$(job_id_of_response)
echo "push delivery accepted: job $push_job"

echo "== webhook: pull request #1 opened"
pr_json="{\"number\":1,\"state\":\"open\",\"title\":\"Do more work per call\",\"user\":{\"login\":\"mallory\"},\"head\":{\"sha\":\"$pr_sha\",\"ref\":\"slower\",\"repo\":$repo_json},\"base\":{\"sha\":\"$main_sha\",\"ref\":\"main\",\"repo\":$repo_json}}"
code=$(deliver pull_request "{\"action\":\"opened\",\"number\":1,\"pull_request\":$pr_json,\"repository\":$repo_json,\"sender\":{\"login\":\"mallory\"}}")
[[ $code == 202 || $code == 200 ]] || die "pull_request delivery answered $code: $(cat "$demo/last-response")"
echo "pull_request recorded ($code): $(cat "$demo/last-response")"

echo "== webhook: a comment by someone who may not bless (ignored)"
comment() { echo "{\"action\":\"created\",\"issue\":{\"number\":1,\"title\":\"Do more work per call\",\"pull_request\":{\"url\":\"https://api.github.com/repos/demo/loop/pulls/1\"},\"user\":{\"login\":\"mallory\"}},\"comment\":{\"id\":$2,\"body\":\"/benchbox run\",\"user\":{\"login\":\"$1\"}},\"repository\":$repo_json,\"sender\":{\"login\":\"$1\"}}"; }
code=$(deliver issue_comment "$(comment mallory 11)")
echo "answered $code: $(cat "$demo/last-response")"
grep -q job_id "$demo/last-response" && die "an unauthorised comment produced a job"

echo "== webhook: alice blesses the pull request with /benchbox run"
code=$(deliver issue_comment "$(comment alice 12)")
[[ $code == 202 ]] || die "blessing delivery answered $code: $(cat "$demo/last-response")"
pr_job=$(job_id_of_response)
echo "blessed: job $pr_job (PR head against its merge-base, interleaved)"

echo "== waiting for both jobs (runnerd builds and runs them pinned to CPU $((cpus - 1)))"
job_state() { "$ctl" jobs show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
for job in "$push_job" "$pr_job"; do
  wait_for 600 bash -c "s=\$('$ctl' jobs show $job | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"state\"])'); [[ \$s == done || \$s == failed || \$s == cancelled ]]" \
    || die "job $job did not finish in time"
  state=$(job_state "$job")
  [[ $state == done ]] || { "$ctl" jobs show "$job"; die "job $job ended $state"; }
  wait_for 60 "$ctl" report "$job" || die "no report for job $job"
done
"$ctl" jobs list

echo
echo "== report of the push (job $push_job)"
"$ctl" report "$push_job"
echo
echo "== report of pull request #1 (job $pr_job)"
"$ctl" report "$pr_job" | tee "$demo/pr-report.md"
grep -q "Overall: regressed" "$demo/pr-report.md" || die "the PR report does not show the regression"

echo
echo "== main: one push of six commits, one of them slower (a bisection finds it)"
git -C "$work" checkout -q main
commit_main() {  # FILE CONTENT AUTHOR MESSAGE
  printf '%s\n' "$2" >"$work/$1"
  git -C "$work" add -A
  git -C "$work" -c user.name="$3" -c user.email="$3@example.org" commit -qm "$4"
}
commit_main NEWS "0.2: faster builds" alice "Start the 0.2 notes"
commit_main README "A loop benchmark." bob "Add a README"
commit_main work.h "#define WORK 72000000ul" carol "Unroll the state update (#7)"   # 20 % more work
commit_main CONTRIBUTING "Be kind." alice "Add CONTRIBUTING"
commit_main NEWS "0.2: faster builds, a README" bob "Update the notes"
commit_main AUTHORS "alice bob carol" alice "Add AUTHORS"
tip=$(git -C "$work" rev-parse HEAD)
culprit=$(git -C "$work" rev-parse HEAD~3)
git -C "$work" push -q "$repo" main
code=$(deliver push "{\"ref\":\"refs/heads/main\",\"before\":\"$main_sha\",\"after\":\"$tip\",\"created\":false,\"deleted\":false,\"forced\":false,\"repository\":$repo_json,\"sender\":{\"login\":\"alice\"},\"pusher\":{\"name\":\"alice\"},\"head_commit\":{\"id\":\"$tip\",\"message\":\"Add AUTHORS\"}}")
[[ $code == 202 ]] || die "push delivery answered $code: $(cat "$demo/last-response")"
main_job=$(job_id_of_response)
echo "push delivery accepted: job $main_job"
wait_for 300 "$ctl" report "$main_job" || die "no report for job $main_job"
"$ctl" report "$main_job" | tee "$demo/main-report.md" | sed -n '1,12p'
grep -q "Overall: regressed" "$demo/main-report.md" || die "the push's report does not show the step"
echo
echo "== the regression is confirmed (last good against first bad, interleaved), then bisected"
bisection_of_group() {
  "$ctl" jobs groups --json | python3 -c 'import json,sys; g=[x for x in json.load(sys.stdin) if x["kind"]=="bisect"]; print(g[0]["description"].split(":")[0].split()[1]) if g else sys.exit(1)'
}
wait_for 60 bisection_of_group || die "reporterd started no bisection"
bisection=$(bisection_of_group)
"$ctl" bisect --follow "$bisection" | tee "$demo/bisect.txt" || die "the bisection named no culprit"
grep -q "first bad commit: $culprit" "$demo/bisect.txt" || die "the bisection named the wrong commit (expected $culprit)"
"$ctl" jobs groups

echo
"$ctl" status | grep -E '^benchbox-(reporterd|queued) ' || true
site=$demo/state/site
[[ -s $site/data/index.js && -s $site/r/demo/loop/runs/$pr_job.html ]] || die "the dashboard was not written"
# The open regression on the index names the culprit the bisection found.
culprit_shown() { grep -q "\"commit\":\"$culprit\"" "$site/data/index.js"; }
wait_for 30 culprit_shown || die "the dashboard's open regression does not name the culprit $culprit"
echo
echo "Result files:  $demo/state/results/<job>/result.json"
echo "Reports:       $demo/state/reports/<job>/report.{md,json}"
echo "Dashboard:     file://$site/index.html (or any static web server: docs/dashboard.md)"
echo "  the PR run:  file://$site/r/demo/loop/runs/$pr_job.html"
echo "Daemon logs:   $demo/logs/"
echo "demo OK: the push was recorded, the pull request's regression was caught, and the slower commit"
echo "among six pushed at once was named: $culprit (Unroll the state update (#7))."
