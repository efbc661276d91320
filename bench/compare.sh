#!/usr/bin/env bash
# roost beside the generic tools it is meant to beat, on the same machine and data, in
# one run; prints a Markdown table (record it as a dated section of
# bench/history/YYYY-MM.md and update the goals' rows in bench/RESULTS.md).
#
#   bench/compare.sh [--tree-scales "small nest"] [--live-scale nest] [--with-10x]
#                    [--duration 10] [--connections 64]
#
# The live scale's dataset first (`db synth`); then per tree scale: `db synth`,
# `generate` full and incremental (nothing changed, 1% of the issues changed twice: the
# first into a fresh folder, the second updating the spare generation in place; one
# issue changed three times, the last in the steady state) against `cp -r` of the tree it
# wrote (+ sync; the copy needs as much disk again). Then the servers, on the live
# scale's dataset and the last tree scale's tree (a pre-rendered page of 100 issues
# is the same size at every scale):
#   - a live issues list (`state=open&page_size=7&page=3`): roost (production, an API
#     key, rate limit off) against datasette on the same SQLite file running the same
#     SQL through its JSON API;
#   - the pre-rendered `/api/v0/issues/`, plain and with `Accept-Encoding: gzip` (the
#     tree's `.gz` sibling, written by default; nginx with `gzip_static`): roost against
#     nginx serving the same folder; each in three alternating turns, reported as each
#     server's median turn;
#   - the live list alone (one connection) for its p99;
#   - the same two with the live cache off (`--live-cache-mb 0`): the cost of a miss;
#   - `q` structured search (`projects?q=name:a stars:>10&page_size=7`), with and
#     without the live cache, against datasette's search of the same table: the
#     projects table has no full-text index, so datasette's `LIKE` filters
#     (`name__contains=a&stars__gt=10`, active projects, 7 a page, its own count);
#     and alone without the live cache, for its p99;
#   - the frontend's GraphQL page queries (bench/graphql_pages.py: the 21 operations of
#     tests/graphql/pages, one connection, 200 runs each), with the live cache and with
#     `--live-cache-mb 0` (every answer executed).
#   - the GraphQL home page at 16 connections (wrk, a Lua POST body), answers kept and
#     executed (`--live-cache-mb 0`): req/s, p50 and p99.
# wrk runs each for --duration seconds with --connections connections. Peak RSS of
# generate and of the shim after the load come from /usr/bin/time -v and VmHWM.
# Per scale (each tree scale, and 10x with --with-10x) a growth table: dataset size,
# generate time and tree size, and the live list's p99 alone with and without the live
# cache. --with-10x synthesises the 10x dataset (a 7 GB file) and, when the disk has
# 11 times the nest tree free, generates the 10x tree: the full run (time, peak RSS,
# MB on disk, each against nest's), a run with nothing changed and three one-record
# runs; the tree is removed afterwards. Tree sizes are `du`'s: a hard-linked file
# counts once.
#
# Needs: wrk, nginx, datasette (`apt-get install -y wrk nginx`, `pip install datasette`).
# Works in ${BENCH_DIR:-/tmp/roost-compare} and deletes everything it made at the end.
set -euo pipefail

scales="small nest"
live_scale=nest
with_10x=0
duration=10
connections=64
while [ $# -gt 0 ]; do
    case "$1" in
        --tree-scales) scales=$2; shift 2 ;;
        --live-scale) live_scale=$2; shift 2 ;;
        --with-10x) with_10x=1; shift ;;
        --duration) duration=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        *) echo "usage: $0 [--tree-scales \"small nest\"] [--live-scale nest] [--with-10x] [--duration S] [--connections N]" >&2; exit 2 ;;
    esac
done
for tool in wrk nginx datasette; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done

cd "$(dirname "$0")/.."
. bench/static_nginx.sh
work=${BENCH_DIR:-/tmp/roost-compare}
rm -rf "$work"
mkdir -p "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cargo build --release --quiet
cp target/release/roost "$work/roost"
roost=$work/roost
rows=()
# Per tree scale: "full-run seconds, tree MB on disk", for the 10x ratios.
declare -A tree_full=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); }
growth=()

echo "== machine"
echo "cpu:    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "ram:    $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at the start)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (dirty)')"

# timed LABEL CMD...: sets $secs (wall) and $rss_mb (peak RSS).
timed() {
    local label=$1; shift
    /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/out.txt" 2>&1 \
        || { cat "$work/out.txt" >&2; exit 1; }
    secs=$(awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
    rss_mb=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
    echo "   $label: ${secs} s, peak RSS ${rss_mb} MB"
}

# bench NAME URL [header]: wrk; sets $rps and $p99 (ms).
bench() {
    local name=$1 url=$2; shift 2
    local threads=2
    [ "$connections" -lt 2 ] && threads=1
    local args=(-t"$threads" -c"$connections" -d"${duration}s" --latency)
    for h in "$@"; do args+=(-H "$h"); done
    wrk "${args[@]}" "$url" > "$work/wrk.txt" 2>&1
    rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt")
    p99=$(awk '$1 == "99%" {v = $2; if (v ~ /us$/) {sub(/us/, "", v); v /= 1000} else if (v ~ /ms$/) {sub(/ms/, "", v)} else if (v ~ /s$/) {sub(/s/, "", v); v *= 1000}; printf "%.1f", v}' "$work/wrk.txt")
    local errors
    errors=$(grep -E 'Non-2xx|Socket errors' "$work/wrk.txt" | tr '\n' ' ' || true)
    echo "   $name: $rps req/s, p99 $p99 ms ${errors}"
}

# alone NAME URL [header]: one connection, sequential; sets $p99.
alone() {
    local saved=$connections
    connections=1
    bench "$@"
    connections=$saved
}

wait_port() {
    for _ in $(seq 1 100); do
        curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
        sleep 0.2
    done
    echo "nothing listens on $1" >&2
    exit 1
}

live_path='/api/v0/issues/?state=open&page_size=7&page=3'
live_sql="SELECT t.created_at, t.state, t.title, t.updated_at, t.url FROM issues t WHERE t.state = 'open' ORDER BY t.created_at DESC, t.updated_at DESC, t.id LIMIT 7 OFFSET 14"
q_path='/api/v0/projects/?q=name:a%20stars:%3E10&page_size=7'
# datasette's table search (no full-text index on projects: its LIKE filters).
q_ds='projects.json?_shape=array&_size=7&is_active__exact=1&name__contains=a&stars__gt=10&_sort_desc=stars'

key=$("$roost" keys create --name bench --auth-db "$work/auth.db" | grep -o 'rk_[A-Za-z0-9_-]*' | head -1)
# empty_site: a tree of no files, newer than every dataset made so far (`serve`
# generates a tree older than its dataset before it listens).
empty_site() {
    rm -rf "$work/empty-site" "$work"/.empty-site.*
    mkdir -p "$work/empty-site"
    echo '{"files":[]}' > "$work/empty-site/manifest.json"
}

# scale_live SCALE DB TREE: the live list alone on DB, with and without the live cache;
# adds SCALE's row to the growth table (TREE: "files, MB" or "not generated").
scale_live() {
    local scale=$1 db=$2 tree=$3 cached uncached
    empty_site
    "$roost" serve --env production --rate-limit 0 --db "$db" --site "$work/empty-site" \
        --auth-db "$work/auth.db" --listen 127.0.0.1:18086 > "$work/roost-scale.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_port 18086
    curl -sf -H "X-API-Key: $key" "http://127.0.0.1:18086$live_path" > /dev/null
    alone "$scale live, alone" "http://127.0.0.1:18086$live_path" "X-API-Key: $key"
    cached=$p99
    kill "$pid"; wait "$pid" 2>/dev/null || true
    "$roost" serve --env production --rate-limit 0 --live-cache-mb 0 --db "$db" \
        --site "$work/empty-site" --auth-db "$work/auth.db" --listen 127.0.0.1:18086 \
        > "$work/roost-scale.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_port 18086
    alone "$scale live, alone, no live cache" "http://127.0.0.1:18086$live_path" "X-API-Key: $key"
    uncached=$p99
    kill "$pid"; wait "$pid" 2>/dev/null || true
    growth+=("| $scale | $(du -m "$db" | cut -f1) MB | ${gen_full:--} | $tree | $cached ms | $uncached ms |")
}

# The live dataset is made before the trees, so that no tree is older than it (the
# shim would regenerate a tree older than its dataset).
live_db=$work/live-$live_scale.db
echo "== $live_scale (live)"
timed "synth" "$roost" db synth --scale "$live_scale" --db "$live_db"
row "\`db synth --scale $live_scale\`" "${secs} s, ${rss_mb} MB peak" "" ""

for scale in $scales; do
    echo "== $scale"
    db=$work/$scale.db
    site=$work/$scale-site
    if [ "$scale" != "$live_scale" ]; then
        timed "synth" "$roost" db synth --scale "$scale" --db "$db"
        row "\`db synth --scale $scale\`" "${secs} s, ${rss_mb} MB peak" "" ""
    else
        cp "$live_db" "$db"
    fi
    timed "generate, full" "$roost" generate --db "$db" --out "$site"
    full=$secs
    summary=$(grep -o 'generated [0-9]* tree files.*MB in' "$work/out.txt" | sed 's/ in$//')
    tree_mb=$(du -sm "$(readlink -f "$site")" | cut -f1)
    gen_full="$full s, ${rss_mb} MB peak"
    tree_full[$scale]="$full $tree_mb"
    row "\`generate\` $scale, full ($summary; $tree_mb MB on disk)" "${secs} s, ${rss_mb} MB peak" "" ""
    timed "generate, nothing changed" "$roost" generate --db "$db" --out "$site"
    row "\`generate\` $scale, nothing changed" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    # A 1% change (one issue in a hundred retitled, with SQL as a sync job would) and
    # then a one-record change (one issue's title), each generated again: the time, and
    # the files written and rendered (the others are linked by their keys).
    edit() { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$db" "$1"; }
    # The first change after a full run has no spare generation to update (the full
    # run replaced none): it fills a fresh folder. The next ones update the spare in
    # place, as every run of a publisher syncing regularly does.
    edit "UPDATE issues SET title = title || ' (edited)' WHERE id % 100 = 0"
    timed "generate, 1% of issues changed" "$roost" generate --db "$db" --out "$site"
    counts=$(grep -o '[0-9]* written.*[0-9]* rendered\( ([0-9]* of [0-9]* units skipped)\)\?' "$work/out.txt")
    row "\`generate\` $scale, 1% of the issues retitled, first change, no spare yet ($counts)" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    edit "UPDATE issues SET title = title || ' (edited)' WHERE id % 100 = 1"
    timed "generate, another 1% of issues changed" "$roost" generate --db "$db" --out "$site"
    counts=$(grep -o '[0-9]* written.*[0-9]* rendered\( ([0-9]* of [0-9]* units skipped)\)\?' "$work/out.txt")
    row "\`generate\` $scale, another 1% of the issues retitled, spare updated in place ($counts)" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    edit "UPDATE issues SET title = title || ' (again)' WHERE id = (SELECT min(id) FROM issues)"
    timed "generate, one record changed" "$roost" generate --db "$db" --out "$site"
    counts=$(grep -o '[0-9]* written.*[0-9]* rendered\( ([0-9]* of [0-9]* units skipped)\)\?' "$work/out.txt")
    row "\`generate\` $scale, one issue retitled, right after the 1% runs (the spare lacks the files they changed) ($counts)" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    # Twice more, as a publisher syncing every few minutes runs it: the spare then holds
    # every file but the last run's few.
    for run in 1 2; do
        edit "UPDATE issues SET title = title || ' (again)' WHERE id = (SELECT id FROM issues ORDER BY id LIMIT 1 OFFSET $run)"
        timed "generate, one record changed, steady ($run)" "$roost" generate --db "$db" --out "$site"
    done
    counts=$(grep -o '[0-9]* written.*[0-9]* rendered\( ([0-9]* of [0-9]* units skipped)\)\?' "$work/out.txt")
    row "\`generate\` $scale, one issue retitled, steady state (the third such run) ($counts)" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    # The same tree from a rebuilt executable: the input record does not match, so every
    # file is rendered, hashed and hard-linked from the previous generation.
    cp "$roost" "$work/roost-rebuilt"
    timed "generate, same tree, other executable" "$work/roost-rebuilt" generate --db "$db" --out "$site"
    row "\`generate\` $scale, same tree from another executable (every file relinked)" "${secs} s, ${rss_mb} MB peak" "the full run: ${full} s" \
        "$(awk -v a="$secs" -v b="$full" 'BEGIN {printf "%.2f", a / b}')"
    rm -f "$work/roost-rebuilt"
    timed "cp -a + sync" bash -c "cp -a '$(readlink -f "$site")' '$work/copy' && sync"
    row "\`generate\` $scale, full" "${full} s" "\`cp -a\` of its tree (hard links kept) + sync: ${secs} s" \
        "$(awk -v a="$full" -v b="$secs" 'BEGIN {printf "%.2f", a / b}')"
    rm -rf "$work/copy"
    scale_live "$scale" "$db" "${summary#generated }"
    gen_full=
    rm -f "$db"
    if [ "$scale" != "${scales##* }" ]; then
        rm -rf "$site" "$work"/."$scale"-site.*
    fi
done

scale=${scales##* }
db=$live_db
site=$work/$scale-site
echo "== servers ($live_scale dataset, $scale tree)"
"$roost" serve --env production --rate-limit 0 --db "$db" --site "$site" --auth-db "$work/auth.db" \
    --listen 127.0.0.1:18080 > "$work/roost.log" 2>&1 &
roost_pid=$!
pids+=("$roost_pid")
static_nginx_conf "$work" "$site"
nginx -c "$work/nginx.conf"
datasette serve --immutable "$db" --port 18082 --setting sql_time_limit_ms 10000 \
    > "$work/datasette.log" 2>&1 &
pids+=("$!")
wait_port 18080
wait_port 18081
wait_port 18082
ds_url="http://127.0.0.1:18082/$(basename "$db" .db)/-/query.json?_shape=array&sql=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$live_sql")"
curl -sf -H "X-API-Key: $key" "http://127.0.0.1:18080$live_path" > /dev/null
curl -sf "$ds_url" > /dev/null || ds_url="${ds_url/\/-\/query.json/.json}"
curl -sf "$ds_url" > /dev/null
ds_q_url="http://127.0.0.1:18082/$(basename "$db" .db)/$q_ds"
curl -sf "$ds_q_url" > /dev/null

bench "roost live" "http://127.0.0.1:18080$live_path" "X-API-Key: $key"
r_rps=$rps; r_p99=$p99
bench "datasette" "$ds_url"
row "live \`$live_path\` ($live_scale), $connections connections" "$r_rps req/s, p99 $r_p99 ms" "datasette, same file, same SQL: $rps req/s, p99 $p99 ms" \
    "$(awk -v a="$r_rps" -v b="$rps" 'BEGIN {printf "%.1f", a / b}')"
alone "roost live, alone" "http://127.0.0.1:18080$live_path" "X-API-Key: $key"
row "the same, one connection" "p99 $p99 ms" "" ""
# The cost of making a live answer (what every distinct query pays once): the same
# request to a shim that keeps no live answer.
"$roost" serve --env production --rate-limit 0 --live-cache-mb 0 --db "$db" --site "$site" \
    --auth-db "$work/auth.db" --listen 127.0.0.1:18084 > "$work/roost-nocache.log" 2>&1 &
nocache_pid=$!
pids+=("$nocache_pid")
wait_port 18084
bench "roost live, no live cache" "http://127.0.0.1:18084$live_path" "X-API-Key: $key"
r_rps=$rps; r_p99=$p99
bench "datasette" "$ds_url"
row "the same with \`--live-cache-mb 0\` (every answer made from SQLite)" "$r_rps req/s, p99 $r_p99 ms" "datasette: $rps req/s, p99 $p99 ms" \
    "$(awk -v a="$r_rps" -v b="$rps" 'BEGIN {printf "%.1f", a / b}')"
alone "roost live, no live cache, alone" "http://127.0.0.1:18084$live_path" "X-API-Key: $key"
row "the same, one connection" "p99 $p99 ms" "" ""
bench "roost q" "http://127.0.0.1:18080$q_path" "X-API-Key: $key"
r_rps=$rps; r_p99=$p99
bench "datasette LIKE search" "$ds_q_url"
ds_rps=$rps; ds_p99=$p99
row "\`q\` \`${q_path#/api/v0/}\` ($live_scale), $connections connections" "$r_rps req/s, p99 $r_p99 ms" "datasette's \`LIKE\` search of the same table (no full-text index): $ds_rps req/s, p99 $ds_p99 ms" \
    "$(awk -v a="$r_rps" -v b="$ds_rps" 'BEGIN {printf "%.1f", a / b}')"
bench "roost q, no live cache" "http://127.0.0.1:18084$q_path" "X-API-Key: $key"
row "the same with \`--live-cache-mb 0\`" "$rps req/s, p99 $p99 ms" "datasette: $ds_rps req/s, p99 $ds_p99 ms" \
    "$(awk -v a="$rps" -v b="$ds_rps" 'BEGIN {printf "%.1f", a / b}')"
alone "roost q, no live cache, alone" "http://127.0.0.1:18084$q_path" "X-API-Key: $key"
row "the same, one connection" "p99 $p99 ms" "" ""
kill "$nocache_pid"

# The file rows move with whatever else the machine runs: roost and nginx take turns,
# three runs each, and the row gives each one's median run (by req/s).
# file_turns LABEL [header]: roost and nginx take turns, three runs each; sets r_rps,
# r_p99 (roost's median run by req/s) and rps, p99 (nginx's).
file_turns() {
    local label=$1; shift
    local runs=() turn
    for turn in 1 2 3; do
        bench "roost file$label ($turn)" "http://127.0.0.1:18080/api/v0/issues/" "X-API-Key: $key" "$@"
        r_rps=$rps; r_p99=$p99
        bench "nginx file$label ($turn)" "http://127.0.0.1:18081/api/v0/issues/" "$@"
        runs+=("$r_rps $r_p99 $rps $p99")
    done
    # The median run by a field (1 = roost req/s, 3 = nginx req/s).
    read -r r_rps r_p99 _ _ <<< "$(printf '%s\n' "${runs[@]}" | sort -n -k1,1 | sed -n 2p)"
    read -r _ _ rps p99 <<< "$(printf '%s\n' "${runs[@]}" | sort -n -k3,3 | sed -n 2p)"
    echo "   file$label, medians of 3: roost $r_rps req/s (p99 $r_p99 ms), nginx $rps req/s (p99 $p99 ms)"
}
file_turns ""
row "pre-rendered \`/api/v0/issues/\` ($(stat -Lc %s "$site/api/v0/issues/index.json") bytes), $connections connections, median of 3 turns" "$r_rps req/s, p99 $r_p99 ms" "nginx, same file: $rps req/s, p99 $p99 ms" \
    "$(awk -v a="$r_rps" -v b="$rps" 'BEGIN {printf "%.2f", a / b}')"
file_turns " gzip" "Accept-Encoding: gzip"
row "the same with \`Accept-Encoding: gzip\` (the tree's \`.gz\` sibling, $(stat -Lc %s "$site/api/v0/issues/index.json.gz") bytes), median of 3 turns" "$r_rps req/s, p99 $r_p99 ms" "nginx \`gzip_static\`, same sibling: $rps req/s, p99 $p99 ms" \
    "$(awk -v a="$r_rps" -v b="$rps" 'BEGIN {printf "%.2f", a / b}')"
rss=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$roost_pid/status")
row "shim peak RSS after the load" "$rss MB" "" ""

kill "$roost_pid"
kill "$(cat "$work/nginx.pid")" 2>/dev/null || true

# graphql_pages LABEL [serve options]: the frontend's page queries on the live dataset;
# adds a row with the slowest operation's p99 and keeps the whole table.
graphql_tables=()
graphql_pages() {
    local label=$1; shift
    empty_site
    "$roost" serve --env e2e --graphql-rate-limit 0 "$@" --db "$db" --site "$work/empty-site" \
        --listen 127.0.0.1:18085 > "$work/roost-graphql.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_port 18085
    python3 bench/graphql_pages.py --url http://127.0.0.1:18085 --db "$db" > "$work/pages.md"
    kill "$pid"; wait "$pid" 2>/dev/null || true
    local worst
    worst=$(awk -F'|' '$2 ~ /[a-z]/ && $4 ~ /[0-9]/ && $2 !~ /operation/ {gsub(/ /, "", $2); gsub(/ /, "", $4); if ($4 + 0 > max) {max = $4 + 0; op = $2}} END {printf "%s ms (%s)", max, op}' "$work/pages.md")
    echo "   GraphQL pages, $label: slowest p99 $worst"
    row "GraphQL: the frontend's 21 page queries ($live_scale), one connection, $label" "slowest p99 $worst" "" ""
    graphql_tables+=("GraphQL page queries, $label:" "" "$(sed -n '/^| operation/,/^$/p' "$work/pages.md")" "")
}
echo "== GraphQL pages ($live_scale dataset)"
graphql_pages "live cache on (default)"
graphql_pages "\`--live-cache-mb 0\`" --live-cache-mb 0

# graphql_home LABEL [serve options]: the home page's operation (tests/graphql/pages,
# `{"distinct": true}`) POSTed by wrk at 16 connections; adds a row with req/s, p50
# and p99 (wrk's percentiles, corrected for coordinated omission: one stall of 300 ms
# counts as every request a connection would have sent meanwhile).
graphql_home() {
    local label=$1; shift
    empty_site
    "$roost" serve --env e2e --graphql-rate-limit 0 "$@" --db "$db" --site "$work/empty-site" \
        --listen 127.0.0.1:18087 > "$work/roost-home.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_port 18087
    python3 - "$work/home.lua" <<'PY'
import json, sys
query = open("tests/graphql/pages/home.graphql").read()
body = json.dumps({"query": query, "variables": {"distinct": True}})
with open(sys.argv[1], "w") as lua:
    lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    lua.write("wrk.body = " + json.dumps(body) + "\n")
PY
    wrk -t2 -c16 -d"${duration}s" --latency -s "$work/home.lua" http://127.0.0.1:18087/graphql/ \
        > "$work/wrk.txt" 2>&1
    kill "$pid"; wait "$pid" 2>/dev/null || true
    local ms='{v = $2; if (v ~ /us$/) {sub(/us/, "", v); v /= 1000} else if (v ~ /ms$/) {sub(/ms/, "", v)} else if (v ~ /s$/) {sub(/s/, "", v); v *= 1000}; printf "%.2f", v}'
    rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt")
    local p50 errors
    p50=$(awk '$1 == "50%" '"$ms" "$work/wrk.txt")
    p99=$(awk '$1 == "99%" '"$ms" "$work/wrk.txt")
    errors=$(grep -E 'Non-2xx|Socket errors' "$work/wrk.txt" | tr '\n' ' ' || true)
    echo "   GraphQL home page, 16 connections, $label: $rps req/s, p50 $p50 ms, p99 $p99 ms $errors"
    row "GraphQL home page ($live_scale), 16 connections, $label" "$rps req/s, p50 $p50 ms, p99 $p99 ms $errors" "" \
        "p99 / p50: $(awk -v a="$p99" -v b="$p50" 'BEGIN {printf "%.1f", a / b}')"
}
graphql_home "answers kept (default)"
graphql_home "executed (\`--live-cache-mb 0\`)" --live-cache-mb 0

if [ "$with_10x" = 1 ]; then
    echo "== 10x"
    rm -rf "$site" "$work"/."$scale"-site.* "$db"
    timed "synth 10x" "$roost" db synth --scale 10x --db "$work/10x.db"
    row "\`db synth --scale 10x\`" "${secs} s, ${rss_mb} MB peak" "" ""
    # The 10x tree: ten times nest's code-hosting records (about 12 million paths);
    # identical pages are hard links, so it needs some ten times nest's tree on disk.
    read -r nest_full nest_mb <<< "${tree_full[nest]:-0 0}"
    need_mb=$(( nest_mb > 0 ? nest_mb * 11 : 45000 ))
    free_mb=$(df -Pm "$work" | awk 'NR == 2 {print $4}')
    if [ "$free_mb" -lt "$need_mb" ]; then
        echo "   10x tree skipped: $free_mb MB free, about $need_mb MB needed"
        gen_full=
        scale_live 10x "$work/10x.db" "not generated ($free_mb MB free of $need_mb MB needed)"
    else
        site10=$work/10x-site
        timed "generate 10x, full" "$roost" generate --db "$work/10x.db" --out "$site10"
        full10=$secs
        summary=$(grep -o 'generated [0-9]* tree files.*MB in' "$work/out.txt" | sed 's/ in$//')
        mb10=$(du -sm "$(readlink -f "$site10")" | cut -f1)
        gen_full="$full10 s, ${rss_mb} MB peak"
        row "\`generate\` 10x, full ($summary; $mb10 MB on disk)" "${secs} s, ${rss_mb} MB peak" \
            "nest: ${nest_full} s, ${nest_mb} MB on disk" \
            "time $(awk -v a="$full10" -v b="$nest_full" 'BEGIN {printf "%.2f", b > 0 ? a / b : 0}'), disk $(awk -v a="$mb10" -v b="$nest_mb" 'BEGIN {printf "%.2f", b > 0 ? a / b : 0}')"
        timed "generate 10x, nothing changed" "$roost" generate --db "$work/10x.db" --out "$site10"
        row "\`generate\` 10x, nothing changed" "${secs} s, ${rss_mb} MB peak" "" ""
        db=$work/10x.db
        for run in 0 1 2; do
            edit "UPDATE issues SET title = title || ' (again)' WHERE id = (SELECT id FROM issues ORDER BY id LIMIT 1 OFFSET $run)"
            timed "generate 10x, one record changed ($run)" "$roost" generate --db "$db" --out "$site10"
            counts=$(grep -o '[0-9]* written.*[0-9]* rendered\( ([0-9]* of [0-9]* units skipped)\)\?' "$work/out.txt")
            row "\`generate\` 10x, one issue retitled (run $((run + 1)) of 3) ($counts)" "${secs} s, ${rss_mb} MB peak" "" ""
        done
        scale_live 10x "$work/10x.db" "${summary#generated }, $mb10 MB on disk"
        rm -rf "$site10" "$work"/.10x-site.*
    fi
fi

echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at the end)"
echo
echo "| figure | roost | reference | ratio |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "Growth with the data (live: \`$live_path\`, one connection, p99):"
echo
echo "| scale | dataset file | \`generate\`, full | tree | live p99 | live p99, \`--live-cache-mb 0\` |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${growth[@]}"
echo
printf '%s\n' "${graphql_tables[@]}"
