#!/usr/bin/env bash
# Killed at any instant, nothing lost (docs/architecture.md §9.1): with roost built
# with its crash points (`--features failpoints`), .ci/crash/sweep.py kills every
# writer (generate, mirror, db import from a folder and from PostgreSQL, db export,
# keys/sessions create and revoke) at each named crash point in turn and at random
# instants (SIGKILL), and after each kill checks that readers see exactly the old
# state or the new one, that the next run of the same command succeeds and that
# nothing is left behind; a `roost serve` running during the generate and import
# sweeps answers every request from one whole state. Prints, per writer, the crash
# points and kills, all recovered; exits non-zero on any failure.
#
# Datasets: A (the sample) and B (a sponsor less, a chapter renamed), as folders, as
# SQLite files and in a throwaway PostgreSQL server in the original's tables; the
# mirror copies trees A and B served by Debian's nginx. CRASH_KILLS (default 240)
# sets the number of random kills; CRASH_SEED draws a run's random choices again
# (which command, and each delay as a share of the command's measured duration);
# CRASH_ONLY=export,credentials sweeps only the writers named.
set -euo pipefail
cd "$(dirname "$0")/../.."

. .ci/lib/nginx.sh
nginx_install
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
pg="$(dirname "$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")"

cargo build --quiet --features failpoints --bin roost --example original_fixture
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug"
bin="$target/roost"
fixture="$target/examples/original_fixture"

# On tmpfs where there is one: a kill is what is tested, not a power cut, and syncs
# there cost nothing.
work="$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)"
run=()
cleanup() {
  nginx_stop "$work/nginx"
  if [ -f "$work/pg/data/postmaster.pid" ]; then
    (cd "$work/pg" && "${run[@]}" "$pg/pg_ctl" stop -m immediate -w -D "$work/pg/data") >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
while read -r name; do unset "$name"; done < <(compgen -e | grep '^PG' || true)

echo "-- datasets A (the sample) and B (a sponsor less, a chapter renamed)"
"$bin" db init --db "$work/a.db" >/dev/null
"$bin" db export "$work/a-export" --db "$work/a.db" >/dev/null
cp -r "$work/a-export" "$work/b-export"
sed -i '$d' "$work/b-export/sponsors.jsonl"
sed -i 's/"name":"London"/"name":"London Town"/' "$work/b-export/chapters.jsonl"
"$bin" db import "$work/b-export" --db "$work/b.db" >/dev/null

echo "-- A and B in the original's tables (PostgreSQL $("$pg/postgres" --version | awk '{print $3}'))"
mkdir -p "$work/pg/socket"
if [ "$(id -u)" = 0 ]; then
  chown -R nobody "$work/pg"
  run=(runuser -u nobody --)
fi
server() { (cd "$work/pg" && "${run[@]}" "$@"); }
server "$pg/initdb" -D "$work/pg/data" -U roost --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
pg_port="$(free_port)"
cat >>"$work/pg/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$work/pg/socket'
fsync = off
EOF
server "$pg/pg_ctl" start -w -t 60 -D "$work/pg/data" -l "$work/pg/server.log" >/dev/null ||
  { cat "$work/pg/server.log"; echo "PostgreSQL did not start" >&2; exit 1; }
for db in a b; do
  "$pg/createdb" -h 127.0.0.1 -p "$pg_port" -U roost "original_$db"
  "$fixture" --from "$work/$db-export" --to "postgresql://roost@127.0.0.1:$pg_port/original_$db" >/dev/null
done

echo "-- nginx serving the tree $work/served points to (the mirror's source)"
prefix="$work/nginx"
nginx_prefix "$prefix"
nginx_port="$(free_port)"
cat >"$prefix/nginx.conf" <<EOF
worker_processes 1;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    $NGINX_TEMP_PATHS
    types { application/json json; application/gzip gz; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/served;
    }
}
EOF
nginx_start "$prefix"

echo "-- the sweep"
python3 .ci/crash/sweep.py --roost "$bin" --work "$work/sweep" \
  --a-db "$work/a.db" --b-db "$work/b.db" --a-export "$work/a-export" --b-export "$work/b-export" \
  --pg-a "postgresql://roost@127.0.0.1:$pg_port/original_a" \
  --pg-b "postgresql://roost@127.0.0.1:$pg_port/original_b" \
  --mirror-url "http://127.0.0.1:$nginx_port/" --served "$work/served" \
  --kills "${CRASH_KILLS:-240}" --verbose ${CRASH_SEED:+--seed "$CRASH_SEED"} ${CRASH_ONLY:+--only "$CRASH_ONLY"}
nginx_errors "$prefix"
