#!/usr/bin/env bash
# Runs a command beside a real PostgreSQL server of its own: Debian's
# postgresql, initdb into a temporary directory as an unprivileged user
# (nobody when we are root), listening only on a Unix socket in that
# directory. The command gets the admin connection string in
# BENCHBOX_TEST_POSTGRES; the server and its files go when it ends.
set -euo pipefail

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
if [[ -z $bindir || ! -x $bindir/initdb ]]; then
  # 77: meson counts the test as skipped, and scripts/test.sh names it.
  echo "SKIP $(basename "${1:-test}"): PostgreSQL is not installed (apt-get install postgresql; scripts/install-deps.sh does)"
  exit 77
fi

dir=$(mktemp -d /tmp/benchbox-pg-XXXXXX)
run_as=()
if [[ $EUID -eq 0 ]]; then
  chown nobody:nogroup "$dir"
  run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
chmod 0755 "$dir"

stop() {
  "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

# nobody's HOME does not exist: keep every tool out of it.
export HOME=$dir
"${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C.UTF-8 \
  >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# Room for three boxes' daemons and the tests' own connections.
"${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-k $dir -c listen_addresses= -c max_connections=200" start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }

export BENCHBOX_TEST_POSTGRES="host=$dir port=5432 user=postgres dbname=postgres"
export BENCHBOX_TEST_POSTGRES_LOG=$dir/server.log
# How a test restarts the server (its options are kept in postmaster.opts).
export BENCHBOX_TEST_POSTGRES_RESTART="${run_as[*]} $bindir/pg_ctl -D $dir/data -l $dir/server.log -m fast -w restart"
rc=0
"$@" || rc=$?
if [[ $rc -ne 0 ]]; then
  echo "with-postgres: the server's log ($dir/server.log), last lines:" >&2
  tail -n 20 "$dir/server.log" >&2 || true
fi
exit "$rc"
