# The attack branch's benchmark (tests/system/lib.sh, check_containment):
# run by benchbox inside the booted container as a contained job, it tries
# what a repository's code must not be able to do. Each attempt prints one
# line: "ATTEMPT <name>: refused: <why>" when the box said no, "ATTEMPT
# <name>: ALLOWED" when it did not, and "failed otherwise" when it failed
# for some other reason (which proves nothing, and fails the check).
[ "$BENCHBOX_ROUND" = 0 ] || exit 0
try() {
  name=$1
  shift
  if out=$("$@" 2>&1); then
    echo "ATTEMPT $name: ALLOWED"
    return
  fi
  out=$(printf '%s' "$out" | tr '\n' ' ')
  case $out in
    # The bus policy and polkit, file modes, and the unit's read-only view
    # of the system (ProtectSystem=strict) each count as a refusal.
    *"ccess denied"* | *"ermission denied"* | *"not authorized"* | *"uthentication required"* | *"ead-only file system"*)
      echo "ATTEMPT $name: refused: $out" ;;
    *) echo "ATTEMPT $name: failed otherwise: $out" ;;
  esac
}
q="org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1"
# Job 1 is the system test's first job, done by now.
try queue-complete-other-job busctl call $q Complete xss 1 attack /tmp/forged.json
try queue-enqueue busctl call $q Enqueue 'a{sv}' 0
try runner-cancel busctl call org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 CancelCurrent s attack
try tuner-restore busctl call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 Restore
try reporter-ingest busctl call org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 Ingest x 1
try git-cache-write touch /var/cache/benchbox/git/planted
try build-cache-write touch /var/cache/benchbox/builds/planted
try credential-read cat /run/credentials/benchbox-webhookd.service/webhook-secret
try credential-store-read cat /etc/credstore.encrypted/webhook-secret
try other-job-result-write sh -c 'echo forged > /var/lib/benchbox/results/1/forged.json'
try start-a-unit systemd-run --quiet --wait true
