#!/usr/bin/env bash
# bench/queue: what a NOTIFY costs concurrent committers, and where the
# queue sends it (lib/store/postgres.cpp). pgbench runs a small durable
# change (one UPDATE, committed) three ways, each with 1 and 3 clients:
#   none      the change alone: the baseline of the same run
#   in-tx     NOTIFY inside the change's transaction (before 2026-12-06):
#             PostgreSQL takes a database-wide lock at its commit and holds
#             it across the WAL flush, so committers queue one by one
#   after     NOTIFY right after the COMMIT in the same pipeline, in a
#             transaction of its own that does not wait for its flush (what
#             the queue does now)
# Each figure is transactions per second and its ratio to "none" with as
# many clients. Run beside a server of its own:
#   tests/postgres/with-postgres.sh bench/queue/notify_lock.sh [SECONDS]
set -euo pipefail
seconds=${1:-8}
: "${BENCHBOX_TEST_POSTGRES:?run it under tests/postgres/with-postgres.sh}"
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
host=$(sed -n 's/.*host=\([^ ]*\).*/\1/p' <<<"$BENCHBOX_TEST_POSTGRES")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bindir/psql" -h "$host" -U postgres -q -v ON_ERROR_STOP=1 \
  -c "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_notify; CREATE TABLE bench_notify (id int PRIMARY KEY, v bigint);
      INSERT INTO bench_notify SELECT g, 0 FROM generate_series(1, 1000) g;"

# Every variant is one pipeline (one round trip), as the queue sends a commit.
change='\set id random(1, 1000)
\startpipeline
BEGIN;
UPDATE bench_notify SET v = v + 1 WHERE id = :id;'
printf '%s\nCOMMIT;\n\\endpipeline\n' "$change" >"$work/none.sql"
printf '%s\nSELECT pg_notify(%s);\nCOMMIT;\n\\endpipeline\n' "$change" "'bench', 'box 1'" >"$work/in-tx.sql"
printf '%s\nCOMMIT;\nSELECT set_config(%s, true), pg_notify(%s);\n\\endpipeline\n' "$change" \
  "'synchronous_commit', 'off'" "'bench', 'box 1'" >"$work/after.sql"

tps() {  # SCRIPT CLIENTS
  "$bindir/pgbench" -h "$host" -U postgres -n -M prepared -c "$2" -j "$2" -T "$seconds" -f "$work/$1.sql" postgres \
    2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}

echo "notify_lock: $seconds s per figure, durable commits (synchronous_commit on)"
printf '%-8s %8s %10s %8s %10s   %s\n' variant "1 client" ratio "3 clients" ratio "3 vs 1"
declare -A base
for variant in none in-tx after; do
  one=$(tps "$variant" 1)
  three=$(tps "$variant" 3)
  [[ $variant == none ]] && base[1]=$one && base[3]=$three
  awk -v v="$variant" -v a="$one" -v b="$three" -v a0="${base[1]}" -v b0="${base[3]}" \
    'BEGIN { printf "%-8s %8.0f %9.2fx %8.0f %9.2fx   %.2fx\n", v, a, a / a0, b, b / b0, b / a }'
done
