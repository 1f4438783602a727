# The attack branch's benchmark (tests/system/lib.sh, check_containment):
# run by benchbox inside the booted container as a contained job, it tries
# what a repository's code must not be able to do. Each attempt prints one
# line: "ATTEMPT <name>: refused: <why>" when the box said no the way the
# attempt expects, "ATTEMPT <name>: ALLOWED" when it did not, and "failed
# otherwise" when it failed for some other reason (which proves nothing,
# and fails the check).
[ "$BENCHBOX_ROUND" = 0 ] || exit 0
# The bus policy and polkit, file modes, and the unit's read-only view of
# the system (ProtectSystem=strict) each count as a refusal.
denied='ccess denied|ermission denied|not authorized|uthentication required|ead-only file system'
# try NAME PATTERN COMMAND...: refused when COMMAND fails saying PATTERN.
try() {
  name=$1 pattern=$2
  shift 2
  if out=$("$@" 2>&1); then
    echo "ATTEMPT $name: ALLOWED"
    return
  fi
  out=$(printf '%s' "$out" | tr '\n' ' ')
  if printf '%s' "$out" | grep -Eq "$pattern"; then
    echo "ATTEMPT $name: refused: $out"
  else
    echo "ATTEMPT $name: failed otherwise: $out"
  fi
}
# A system call from Python, failing with its errno's text.
syscall() {
  python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = eval(sys.argv[1])
if r == -1: sys.exit(os.strerror(ctypes.get_errno()))' "$1"
}

q="org.benchbox.Queue1 /org/benchbox/Queue1 org.benchbox.Queue1"
# Job 1 is the system test's first job, done by now.
try queue-complete-other-job "$denied" busctl call $q Complete xss 1 attack /tmp/forged.json
try queue-enqueue "$denied" busctl call $q Enqueue 'a{sv}' 0
try runner-cancel "$denied" busctl call org.benchbox.Runner1 /org/benchbox/Runner1 org.benchbox.Runner1 CancelCurrent s attack
try tuner-restore "$denied" busctl call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 Restore
# Only runnerd may have a process moved into the benchmark cpuset.
try tuner-admit "$denied" busctl call org.benchbox.Tuner1 /org/benchbox/Tuner1 org.benchbox.Tuner1 AdmitToBench u $$
try reporter-ingest "$denied" busctl call org.benchbox.Reporter1 /org/benchbox/Reporter1 org.benchbox.Reporter1 Ingest x 1
try git-cache-write "$denied" touch /var/cache/benchbox/git/planted
try build-cache-write "$denied" touch /var/cache/benchbox/builds/planted
try credential-read "$denied" cat /run/credentials/benchbox-webhookd.service/webhook-secret
try credential-store-read "$denied" cat /etc/credstore.encrypted/webhook-secret
try other-job-result-write "$denied" sh -c 'echo forged > /var/lib/benchbox/results/1/forged.json'
try start-a-unit "$denied" systemd-run --quiet --wait true

# runnerd's PID, as anyone may ask PID 1 for it.
runnerd=$(systemctl show -P MainPID benchbox-runnerd.service 2>&1)
case $runnerd in '' | 0 | *[!0-9]*) echo "ATTEMPT runnerd-pid: failed otherwise: systemctl said '$runnerd'" ;; esac
# A user namespace would give the job every capability inside it
# (RestrictNamespaces=).
try user-namespace 'ot permitted' unshare --user --map-root-user true
# ptrace(PTRACE_ATTACH) of runnerd (another user; ptrace is no system call
# a service needs).
try ptrace-runnerd 'ot permitted' syscall "libc.ptrace(16, $runnerd, 0, 0)"
# Its environment: not even there to read (ProtectProc=invisible).
try read-runnerd-environ 'No such file' cat "/proc/$runnerd/environ"
try signal-runnerd 'ot permitted' kill -TERM "$runnerd"
try raw-socket 'ot permitted' python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'
# A packet socket's family is not one a job may open (RestrictAddressFamilies=).
try packet-socket 'amily not supported' python3 -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)'
# A setuid copy of a program, for whoever runs it later (RestrictSUIDSGID=).
try setuid-binary 'ot permitted' sh -c 'cp /bin/true "$HOME/suid-true" && chmod u+s "$HOME/suid-true"'
# The user keyring is shared by every process of the uid, job after job.
case $(uname -m) in aarch64) add_key=217 ;; *) add_key=248 ;; esac
try kernel-keyring 'ot permitted' syscall "libc.syscall($add_key, b'user', b'bb-attack', b'x', 1, ctypes.c_int(-4))"
# What another job left in /dev/shm and in System V IPC (the system test
# planted both, writable by anyone): a /dev/shm and an IPC namespace of
# the command's own.
try shm-of-another-job 'No such file' grep -q planted /dev/shm/benchbox-other-job
try sysv-ipc-of-another-job 'No such file' syscall 'libc.msgget(0x62623031, 0)'
# The host's loopback under network: loopback (the webhook listens there):
# the job's network namespace has a loopback of its own (refused), or, in
# this test's container, none that is up: nspawn without a private network
# keeps CAP_NET_ADMIN from the container's PID 1, so it cannot bring lo up
# in the namespace it makes (unreachable).
echo "NOTE the job's loopback: $(ip -brief addr show dev lo 2>&1 | tr -s ' \n' ' ')"
port=$(sed -n 's/^ListenStream=127\.0\.0\.1://p' /etc/systemd/system/benchbox-webhookd.socket.d/*.conf)
try host-loopback 'onnection refused|etwork is unreachable' python3 -c "import socket; socket.create_connection(('127.0.0.1', int('$port')), 3)"
# Long enough for the system test to read this unit's sandbox
# (systemd-analyze security) while it runs.
sleep 4
