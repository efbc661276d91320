#!/usr/bin/env bash
# From the original service's public database dump to the CDN (docs/hosting.md, "From
# the original's public dump to the CDN"):
#
#   deploy/original-to-cdn.sh DUMP [--schema FILE] [--db PATH] [--site DIR]
#                             [--roost BIN] [--changed FILE] [-- GENERATE-ARGS…]
#
#  1. starts a throwaway PostgreSQL server (Debian's, the highest version under
#     /usr/lib/postgresql/*/bin): a cluster in a temporary folder, 127.0.0.1 on a free
#     port only, its Unix socket in that folder, trust authentication for the user
#     `roost`, fsync off; as root, the server runs as `nobody` (initdb refuses root);
#  2. loads the dump into a database of it: with --schema, the SQL file first (psql,
#     stopping at the first error), then the dump's data (pg_restore --data-only
#     --no-owner --no-privileges --disable-triggers) for the tables that file created,
#     naming the tables of the dump it skipped; without --schema, the whole dump (a
#     dump that carries its own schema);
#  3. `roost db import postgresql://…` into --db (default data/roost.db; all or
#     nothing: on any error the previous dataset stays);
#  4. `roost generate --db … --out … --json GENERATE-ARGS…` into --site (default
#     site), which writes SITE/changes/ (added, changed, removed files; URLs);
#  5. with --changed FILE, writes there the files to upload, paths relative to SITE,
#     one a line: added and changed, the root manifest (manifest.json,
#     manifest/root.json) last; empty when nothing changed. The files to delete are
#     SITE/changes/removed.txt, the URLs to purge SITE/changes/urls.txt.
#
# The server is stopped and its folder removed on every exit. Exits non-zero on any
# failure. The server has no password and none is printed. Needs bash, Debian's
# postgresql (apt-get install postgresql) and roost.
set -euo pipefail

me="original-to-cdn"
usage() {
  echo "usage: $0 DUMP [--schema FILE] [--db PATH] [--site DIR] [--roost BIN]"
  echo "       [--changed FILE] [-- GENERATE-ARGS...]"
}
fail() {
  echo "$me: $*" >&2
  exit 2
}
say() {
  echo "$me: $*" >&2
}

dump=""
schema=""
db="data/roost.db"
site="site"
roost="roost"
changed=""
generate_args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --schema | --db | --site | --roost | --changed)
      [ "$#" -ge 2 ] || fail "$1 needs a value"
      case "$1" in
        --schema) schema="$2" ;;
        --db) db="$2" ;;
        --site) site="$2" ;;
        --roost) roost="$2" ;;
        --changed) changed="$2" ;;
      esac
      shift 2
      ;;
    --schema=* | --db=* | --site=* | --roost=* | --changed=*)
      value="${1#*=}"
      case "$1" in
        --schema=*) schema="$value" ;;
        --db=*) db="$value" ;;
        --site=*) site="$value" ;;
        --roost=*) roost="$value" ;;
        --changed=*) changed="$value" ;;
      esac
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    --)
      shift
      generate_args=("$@")
      break
      ;;
    -*)
      usage >&2
      fail "unknown option $1"
      ;;
    *)
      [ -z "$dump" ] || fail "one DUMP only ($dump, $1)"
      dump="$1"
      shift
      ;;
  esac
done
[ -n "$dump" ] || { usage >&2; fail "no DUMP given"; }
[ -f "$dump" ] || fail "$dump: no such file"
[ -z "$schema" ] || [ -f "$schema" ] || fail "$schema: no such file"
command -v "$roost" >/dev/null 2>&1 || fail "$roost: not found (--roost BIN)"
# The highest version of Debian's server.
pg="$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)"
[ -x "$pg" ] || fail "no PostgreSQL server in /usr/lib/postgresql/*/bin; install Debian's: apt-get install postgresql"
pg="$(dirname "$pg")"

# Only this script's server: no connection settings from the environment.
while read -r name; do
  unset "$name"
done < <(compgen -e | grep '^PG' || true)

# A list left by an earlier run is never taken for this one's.
[ -z "$changed" ] || rm -f "$changed"

work="$(mktemp -d "${TMPDIR:-/tmp}/roost-original-to-cdn.XXXXXX")"
cleanup() {
  local status=$?
  if [ -f "$work/data/postmaster.pid" ]; then
    server "$pg/pg_ctl" stop -m immediate -w -D "$work/data" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$status"
}
run=()
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mkdir "$work/socket"
if [ "$(id -u)" = 0 ]; then
  chown -R nobody "$work"
  run=(runuser -u nobody --)
fi
# The server's programs run from its folder, which `nobody` can read.
server() { (cd "$work" && "${run[@]}" "$@"); }

say "PostgreSQL $("$pg/postgres" --version | awk '{print $3}') in $work"
server "$pg/initdb" -D "$work/data" -U roost --auth=trust -E UTF8 --locale=C --no-sync \
  >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; fail "initdb failed"; }
cat >>"$work/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work/socket'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
  else
    local port
    while :; do
      port=$((20000 + RANDOM % 40000))
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
  fi
}

# A port found free may be taken before the server binds it: try another.
port=""
for _ in 1 2 3 4 5; do
  candidate="$(free_port)"
  echo "port = $candidate" >>"$work/data/postgresql.conf"
  rm -f "$work/server.log" # the server's user creates it
  if server "$pg/pg_ctl" start -w -t 60 -D "$work/data" -l "$work/server.log" >"$work/pg_ctl.out" 2>&1; then
    port="$candidate"
    break
  fi
  server "$pg/pg_ctl" stop -m immediate -w -D "$work/data" >/dev/null 2>&1 || true
  grep -qE 'could not bind|could not create any TCP' "$work/server.log" 2>/dev/null || {
    cat "$work/pg_ctl.out" "$work/server.log" >&2 2>/dev/null || true
    fail "PostgreSQL did not start"
  }
done
[ -n "$port" ] || { cat "$work/server.log" >&2; fail "PostgreSQL found no free port"; }

url="postgresql://roost@127.0.0.1:$port/original"
psql_run() { "$pg/psql" -X -q -v ON_ERROR_STOP=1 -d "$url" "$@"; }
"$pg/createdb" -h 127.0.0.1 -p "$port" -U roost original

if [ -n "$schema" ]; then
  say "schema from $schema"
  psql_run -f "$schema" >/dev/null
  # The dump's data for the tables (and sequences) the schema created.
  psql_run -A -t -c "SELECT n.nspname || ' ' || c.relname FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'S')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg_toast%'" >"$work/relations"
  "$pg/pg_restore" -l "$dump" >"$work/toc"
  awk -v skipped="$work/skipped" '
    NR == FNR { have[$0] = 1; next }
    /^;/ { next }
    ($4 == "TABLE" && $5 == "DATA") || ($4 == "SEQUENCE" && $5 == "SET") {
      if (($6 " " $7) in have) { print; next }
      if ($4 == "TABLE") print $6 "." $7 >skipped
    }' "$work/relations" "$work/toc" >"$work/toc.load"
  tables="$(grep -c ' TABLE DATA ' "$work/toc.load" || true)"
  [ "$tables" -gt 0 ] || fail "$dump holds no data for a table $schema creates"
  if [ -s "$work/skipped" ]; then
    say "skipped the data of the tables $schema does not create: $(paste -sd ' ' "$work/skipped")"
  fi
  say "data of $tables tables from $dump"
  "$pg/pg_restore" --data-only --no-owner --no-privileges --disable-triggers \
    --exit-on-error -L "$work/toc.load" -d "$url" "$dump"
else
  "$pg/pg_restore" -l "$dump" >"$work/toc"
  grep -qE '^[0-9]+; [0-9]+ [0-9]+ TABLE [^D]' "$work/toc" ||
    fail "$dump creates no table (a data-only dump): give the schema with --schema FILE"
  say "schema and data from $dump"
  "$pg/pg_restore" --no-owner --no-privileges --exit-on-error -d "$url" "$dump"
fi

say "roost db import into $db"
"$roost" db import "$url" --db "$db" --json >"$work/import.json"
say "imported: $(cat "$work/import.json")"

say "roost generate into $site"
"$roost" generate --db "$db" --out "$site" --json "${generate_args[@]}" >"$work/generate.json"
say "generated: $(cat "$work/generate.json")"

for list in added changed removed; do
  [ -f "$site/changes/$list.txt" ] || fail "$site/changes/$list.txt: missing after roost generate"
done
upload="$work/upload"
LC_ALL=C sort "$site/changes/added.txt" "$site/changes/changed.txt" |
  grep -vxF -e manifest.json -e manifest/root.json >"$upload" || true
for root in manifest.json manifest/root.json; do
  if grep -qxF "$root" "$site/changes/added.txt" "$site/changes/changed.txt"; then
    echo "$root" >>"$upload"
  fi
done
if [ -n "$changed" ]; then
  cp "$upload" "$changed"
fi
echo "$me: $(wc -l <"$upload") files to upload${changed:+ (listed in $changed)}," \
  "$(wc -l <"$site/changes/removed.txt") to delete ($site/changes/removed.txt)"
