#!/usr/bin/env bash
# Reproduces the mirror rows of bench/history/2026-11.md at nest scale: export and the
# published dataset (time, size), then `roost mirror --with-dataset` through nginx on
# loopback for a full copy, a run with nothing changed and a run after a 1% change
# (2,000 of the 200,000 issues retitled), with the requests and bytes nginx sent.
#
#   bench/mirror.sh [--scale small|nest] [--keep]
#
# Needs nginx (Debian's) and sqlite3. Works in ${BENCH_DIR:-/tmp/roost-mirror-bench};
# at nest scale the published tree and its copy take about 11 GB on disk: both are
# deleted at the end unless --keep is given.
set -euo pipefail

scale=nest
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "usage: $0 [--scale small|nest] [--keep]" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
. .ci/lib/nginx.sh
work=${BENCH_DIR:-/tmp/roost-mirror-bench}
rm -rf "$work"
mkdir -p "$work"
chmod 755 "$work"
cleanup() {
    nginx_stop "$work/nginx"
    if [ "$keep" = 0 ]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT

cargo build --release --quiet
cp target/release/roost "$work/roost"
roost=$work/roost

echo "== machine"
echo "cores: $(nproc)"
echo "cpu:   $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "ram:   $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, before the runs)"
echo "git:   $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (dirty)')"

# run LABEL CMD...: wall time (and peak RSS via /usr/bin/time -v when available).
run() {
    local label=$1; shift
    echo "== $label"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v -o "$work/time.txt" "$@"
        grep -E 'Elapsed \(wall clock\)|Maximum resident set size' "$work/time.txt" \
            | sed 's/^\s*/   /'
    else
        local start
        start=$(date +%s.%N)
        "$@"
        echo "   wall: $(echo "$(date +%s.%N) - $start" | bc) s"
    fi
}

db=$work/$scale.db
run "synth --scale $scale" "$roost" db synth --scale "$scale" --db "$db"
run "db export" "$roost" db export --db "$db" "$work/export"
echo "   export: $(du -sb "$work/export" | cut -f1) bytes in $(ls "$work/export" | wc -l) files"
rm -rf "$work/export"
run "generate --with-dataset (full)" "$roost" generate --db "$db" --out "$work/pub/site" --with-dataset
echo "   dataset published: $(du -sb "$work/pub/site/dataset" | cut -f1) bytes gzip"
echo "   root manifest: $(stat -c %s "$work/pub/site/manifest/root.json") bytes, $(ls "$work/pub/site/manifest" | wc -l) manifest documents"
echo "   manifest.json: $(stat -c %s "$work/pub/site/manifest.json") bytes"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
prefix=$work/nginx
nginx_prefix "$prefix"
cat >"$prefix/nginx.conf" <<EOF
worker_processes 2;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 1024; }
http {
    log_format files '\$request_uri \$status \$body_bytes_sent';
    access_log $prefix/access.log files;
    $NGINX_TEMP_PATHS
    types { application/json json; }
    default_type application/octet-stream;
    gzip on;
    gzip_types application/json;
    server {
        listen 127.0.0.1:$port;
        root $work/pub/site;
    }
}
EOF
nginx_start "$prefix" "http://127.0.0.1:$port/manifest.json"
url="http://127.0.0.1:$port/"
sent() {
    echo "   nginx: $(wc -l <"$prefix/access.log") requests, $(awk '{s += $3} END {print s + 0}' "$prefix/access.log") bytes sent"
    : >"$prefix/access.log"
}

: >"$prefix/access.log"
run "mirror --with-dataset (full copy into an empty folder)" "$roost" mirror "$url" --out "$work/m" --with-dataset
sent
run "mirror --with-dataset (nothing changed)" "$roost" mirror "$url" --out "$work/m" --with-dataset
sent
sqlite3 "$db" "UPDATE issues SET title = title || ' (edited)' WHERE id % 100 = 0; SELECT changes() || ' issues retitled';"
run "generate --with-dataset (after the 1% change)" "$roost" generate --db "$db" --out "$work/pub/site" --with-dataset
echo "   change lists: $(wc -l <"$work/pub/site/changes/added.txt") added, $(wc -l <"$work/pub/site/changes/changed.txt") changed, $(wc -l <"$work/pub/site/changes/removed.txt") removed, $(wc -l <"$work/pub/site/changes/urls.txt") URLs"
: >"$prefix/access.log"
run "mirror --with-dataset (1% change)" "$roost" mirror "$url" --out "$work/m" --with-dataset
sent
if diff -r --exclude=changes "$work/pub/site/" "$work/m/site/" >/dev/null; then
    echo "   the copy equals the published tree"
else
    echo "   THE COPY DIFFERS" >&2
    exit 1
fi
echo "   copy on disk: $(du -sh "$work/m/" | cut -f1)"
