#!/usr/bin/env bash
# The files rows of bench/compare.sh on their own, for work on how the shim answers a
# pre-rendered file: `roost serve --env production --rate-limit 0` with an API key and
# its access log on, against nginx serving the same tree with compare.sh's
# configuration (2 workers, `gzip_static`, access log on), both on
# `/api/v0/issues/`, identity and `Accept-Encoding: gzip`.
#
#   bench/files.sh [--roost BIN] [--baseline BIN] [--turns N] [--duration S]
#                  [--connections C] [--callgrind N] [--keep]
#
# Makes the `small` dataset and tree in a work folder (`/tmp/roost-files`, deleted
# afterwards unless --keep), then for each coding takes N alternated turns (default
# 5) of wrk (2 threads, C connections, S seconds each, after a one-second warm-up):
# roost, the --baseline roost when given, nginx. Each turn prints requests per
# second, p99 and the server's CPU time per request (user and system, from
# /proc/PID/stat: all of nginx's workers), with the load average; the last lines
# give each server's median turn by requests per second.
#
# --callgrind N (needs valgrind) counts instead the instructions a request costs
# each roost, as bench/history/2026-11.md does: 50 warm-up requests over one keep-alive
# connection (`curl -K`), counters zeroed, N requests, the total divided by N.
#
# Needs: wrk, nginx, curl (`apt-get install -y wrk nginx curl`); valgrind for
# --callgrind. BIN defaults to target/release/roost (built with
# `cargo build --release` when missing).
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/static_nginx.sh
roost=$PWD/target/release/roost
baseline=
turns=5
duration=5
connections=64
callgrind=0
keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --roost) roost=$(readlink -f "$2"); shift 2 ;;
        --baseline) baseline=$(readlink -f "$2"); shift 2 ;;
        --turns) turns=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --callgrind) callgrind=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "unknown option $1 (see the head of $0)" >&2; exit 2 ;;
    esac
done
for tool in wrk nginx curl; do
    command -v "$tool" > /dev/null || { echo "needs $tool" >&2; exit 1; }
done
if [ "$callgrind" -gt 0 ]; then
    command -v valgrind > /dev/null || { echo "--callgrind needs valgrind" >&2; exit 1; }
fi
[ -x "$roost" ] || cargo build --release --bin roost

work=/tmp/roost-files
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2> /dev/null || true
    [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work"

echo "cpu:    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, at the start)"
echo "commit: $(git rev-parse --short HEAD 2> /dev/null || echo '?')$(git diff --quiet 2> /dev/null || echo ' (dirty)')"

if [ ! -e "$work/site" ]; then
    "$roost" db synth --scale small --db "$work/small.db" > /dev/null
    "$roost" generate --db "$work/small.db" --out "$work/site" > /dev/null
fi
[ -f "$work/key" ] || "$roost" keys create --name bench --auth-db "$work/auth.db" \
    | grep -o 'rk_[A-Za-z0-9_-]*' | head -1 > "$work/key"
key=$(cat "$work/key")
path=/api/v0/issues/

wait_port() {
    for _ in $(seq 1 300); do
        curl -s -o /dev/null "http://127.0.0.1:$1/healthz" && return 0
        curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
        sleep 0.2
    done
    echo "nothing listens on $1" >&2
    exit 1
}

# serve BIN PORT [prefix...]: starts roost; sets $served (its pid).
serve() {
    local bin=$1 port=$2; shift 2
    "$@" "$bin" serve --env production --rate-limit 0 --db "$work/small.db" \
        --site "$work/site" --auth-db "$work/auth.db" --listen "127.0.0.1:$port" \
        2> "$work/roost-$port.log" &
    served=$!
    pids+=("$served")
    wait_port "$port"
}

# cpu PID...: user and system clock ticks of the processes, summed.
cpu() {
    local user=0 system=0 pid
    for pid in "$@"; do
        read -r u s < <(awk '{print $14, $15}' "/proc/$pid/stat")
        user=$((user + u)); system=$((system + s))
    done
    echo "$user $system"
}

# turn NAME PORT "PIDS" [header]: one wrk run; prints and appends "rps p99 name" to $work/turns.
turn() {
    local name=$1 port=$2 watched=$3; shift 3
    local args=(-t2 -c"$connections" --latency)
    for h in "$@"; do args+=(-H "$h"); done
    wrk "${args[@]}" -d1s "http://127.0.0.1:$port$path" > /dev/null
    read -r u0 s0 < <(cpu $watched)
    wrk "${args[@]}" -d"${duration}s" "http://127.0.0.1:$port$path" > "$work/wrk.txt"
    read -r u1 s1 < <(cpu $watched)
    local n rps p99 tick
    tick=$(getconf CLK_TCK)
    n=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
    rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
    printf '   %-10s %6s req/s  p99 %-8s cpu/request user %5d ns, system %5d ns  load %s %s\n' \
        "$name" "$rps" "$p99" $(((u1 - u0) * 1000000000 / tick / n)) $(((s1 - s0) * 1000000000 / tick / n)) \
        "$(cut -d' ' -f1 /proc/loadavg)" "$(grep -E 'Non-2xx|Socket errors' "$work/wrk.txt" | tr '\n' ' ' || true)"
    echo "$rps $p99 $name" >> "$work/turns"
}

if [ "$callgrind" -gt 0 ]; then
    : > "$work/curl.cfg"
    for _ in $(seq 1 "$callgrind"); do
        printf 'url = "http://127.0.0.1:18095%s"\noutput = /dev/null\n' "$path" >> "$work/curl.cfg"
    done
    head -100 "$work/curl.cfg" > "$work/warm.cfg"
    for bin in "$roost" $baseline; do
        for coding in identity gzip; do
            hs=(-H "X-API-Key: $key")
            [ "$coding" = gzip ] && hs+=(-H "Accept-Encoding: gzip")
            rm -f "$work"/callgrind.out*
            serve "$bin" 18095 valgrind --tool=callgrind --dump-instr=no \
                --callgrind-out-file="$work/callgrind.out"
            curl -s "${hs[@]}" -K "$work/warm.cfg"
            callgrind_control -z "$served" > /dev/null
            curl -s "${hs[@]}" -K "$work/curl.cfg"
            callgrind_control -d "$served" > /dev/null
            kill "$served"; wait "$served" 2> /dev/null || true
            total=$(grep -h -E '^(summary|totals):' "$work"/callgrind.out.* | head -1 | awk '{print $2}')
            echo "   $bin $coding: $((total / callgrind)) instructions a request ($callgrind requests)"
        done
    done
    exit 0
fi

serve "$roost" 18090
roost_pid=$served
if [ -n "$baseline" ]; then
    serve "$baseline" 18091
    baseline_pid=$served
fi
static_nginx_conf "$work" "$work/site"
nginx -c "$work/nginx.conf"
wait_port 18081
nginx_pids=$(pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' ')

for coding in identity gzip; do
    hs=()
    [ "$coding" = gzip ] && hs=("Accept-Encoding: gzip")
    echo "== $path, $coding, $turns turns of ${duration} s, $connections connections"
    : > "$work/turns"
    for t in $(seq 1 "$turns"); do
        turn roost 18090 "$roost_pid" "X-API-Key: $key" "${hs[@]}"
        [ -n "$baseline" ] && turn baseline 18091 "$baseline_pid" "X-API-Key: $key" "${hs[@]}"
        turn nginx 18081 "$nginx_pids" "${hs[@]}"
        rm -f "$work/nginx-access.log"
        kill -USR1 "$(cat "$work/nginx.pid")"
    done
    for name in roost baseline nginx; do
        awk -v n="$name" '$3 == n' "$work/turns" | sort -n -k1,1 > "$work/sorted"
        count=$(wc -l < "$work/sorted")
        [ "$count" -gt 0 ] || continue
        echo "   median $name: $(sed -n "$(((count + 1) / 2))p" "$work/sorted" | cut -d' ' -f1,2 | sed 's/ / req\/s, p99 /')"
    done
done
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg) (at the end)"
