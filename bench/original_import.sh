#!/usr/bin/env bash
# `roost db import` from the original service's PostgreSQL database beside the folder
# import of the same records, at a `db synth` scale (default `nest`), in one run:
# synth, export to JSON Lines, load the records into the original's tables with the
# fixture writer (examples/original_fixture.rs) on a throwaway Debian PostgreSQL
# server (loopback, its own data directory), then ROUNDS alternating turns of each
# import, each timed with its peak RSS (/usr/bin/time). The goal (docs/data.md §7):
# the database import within 1.5× the folder import, under 2 GB.
#
#   bench/original_import.sh [--scale nest|small] [--rounds N] [--work DIR]
#
# Needs Debian's postgresql and ~3 GB free in DIR at `nest`; removes what it made.
set -euo pipefail
cd "$(dirname "$0")/.."

scale=nest rounds=2 work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
work="${work:-$(mktemp -d /tmp/roost-original-bench.XXXXXX)}"
mkdir -p "$work"

cargo build --release -q --bin roost --example original_fixture
roost=target/release/roost
writer=target/release/examples/original_fixture
bin="$(dirname "$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")"

# The server runs as an unprivileged user when this runs as root (initdb refuses root).
as_server() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
pgdir="$(mktemp -d /tmp/roost-pg.XXXXXX)"
[ "$(id -u)" = 0 ] && chown nobody "$pgdir"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cleanup() {
  as_server "$bin/pg_ctl" -D "$pgdir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pgdir" "$work"
}
trap cleanup EXIT
as_server "$bin/initdb" -D "$pgdir/data" -A trust -U roost >/dev/null
as_server "$bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $pgdir -c fsync=off -c shared_buffers=512MB" \
  start >/dev/null
"$bin/createdb" -h 127.0.0.1 -p "$port" -U roost nest
url="postgresql://roost@127.0.0.1:$port/nest"

echo "== machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; commit $(git rev-parse --short HEAD)"
echo "== synth --scale $scale, export, load into the original's tables"
"$roost" db synth --scale "$scale" --db "$work/synth.db" >/dev/null
"$roost" db export "$work/records" --db "$work/synth.db" >/dev/null
# The original's tables hold no mentorship records: both imports read the same ones.
rm -f "$work/records/programs.jsonl" "$work/records/modules.jsonl"
/usr/bin/time -f "load: %e s, peak RSS %M KB" "$writer" --from "$work/records" --to "$url"
"$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U roost -d nest -c "VACUUM ANALYZE" >/dev/null

turn() { # turn NAME SOURCE
  /usr/bin/time -f "%e %M" -o "$work/time" "$roost" db import "$2" --db "$work/$1.db" \
    --allow-empty all >/dev/null 2>"$work/stderr" || { cat "$work/stderr" "$work/time"; exit 1; }
  read -r seconds kb < <(tail -1 "$work/time")
  printf '| %s | %s | %.1f s | %d MB |\n' "$i" "$1" "$seconds" "$((kb / 1024))"
  echo "$1 $seconds $kb" >>"$work/turns"
}
echo "| round | import | time | peak RSS |"
echo "|---|---|---|---|"
for i in $(seq 1 "$rounds"); do
  turn folder "$work/records"
  turn postgresql "$url"
done
awk '{ t[$1] += $2; if ($3 > m[$1]) m[$1] = $3; n[$1]++ }
  END { printf "mean: folder %.1f s (peak %d MB), postgresql %.1f s (peak %d MB): %.2f×\n",
          t["folder"]/n["folder"], m["folder"]/1024, t["postgresql"]/n["postgresql"],
          m["postgresql"]/1024, (t["postgresql"]/n["postgresql"])/(t["folder"]/n["folder"]) }' \
  "$work/turns"
cmp <("$roost" db export "$work/a" --db "$work/folder.db" >/dev/null; cat "$work"/a/*.jsonl | sha256sum) \
    <("$roost" db export "$work/b" --db "$work/postgresql.db" >/dev/null; cat "$work"/b/*.jsonl | sha256sum) \
  >/dev/null && echo "the two datasets export the same records" \
  || echo "the two datasets differ (fields the original cannot hold: docs/data.md §7)"
