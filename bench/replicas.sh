#!/usr/bin/env bash
# The cost and the effect of shared limits (--redis), on loopback, release build:
#  A. successes per second for one key hammered across two replicas for 5 s, with
#     the limits in Redis and without (each replica its own);
#  B. requests/s and p99 of one shim answering a pre-rendered list (wrk, 10 s,
#     2 threads, 32 connections, a key whose limit is never reached), without and
#     with --redis (one script call per request).
#
#   bench/replicas.sh        # needs redis-server and wrk (Debian packages)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin roost
bin="$(pwd)/target/release/roost"
work="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
up() {
  for _ in $(seq 1 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "$1 did not answer" >&2; return 1
}

"$bin" db init --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null
key="$("$bin" keys create --name bench --auth-db "$work/auth.db" | tail -n 1)"
redis_port="$(free_port)"
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$work" >/dev/null 2>&1 &
pids+=($!)
sleep 0.5

serve() { # port rate-limit [extra flags...]
  local port="$1" rate="$2"; shift 2
  "$bin" serve --env production --listen "127.0.0.1:$port" --db "$work/roost.db" \
    --site "$work/site" --auth-db "$work/auth.db" --rate-limit "$rate" "$@" \
    >"$work/serve-$port.log" 2>&1 &
  pids+=($!)
  up "http://127.0.0.1:$port/healthz"
}

hammer() { # port1 port2 -> successes/s over 5 s
  python3 - "$1" "$2" "$key" <<'PY'
import http.client, sys, threading, time
ports, key = sys.argv[1:3], sys.argv[3]
ok = [0]; lock = threading.Lock(); end = time.monotonic() + 5
def work(i):
    c = http.client.HTTPConnection("127.0.0.1", int(ports[i % 2]), timeout=10)
    while time.monotonic() < end:
        c.request("GET", "/api/v0/chapters/", headers={"X-API-Key": key})
        r = c.getresponse(); r.read()
        if r.status == 200:
            with lock: ok[0] += 1
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
print(f"{ok[0] / 5:.1f}")
PY
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); commit $(git rev-parse --short HEAD)"
echo "-- A. one key, two replicas, 8 clients for 5 s (limit 10/s)"
p1="$(free_port)"; p2="$(free_port)"
serve "$p1" 10; serve "$p2" 10
echo "without Redis: $(hammer "$p1" "$p2") successes/s"
p3="$(free_port)"; p4="$(free_port)"
serve "$p3" 10 --redis "redis://127.0.0.1:$redis_port/0"
serve "$p4" 10 --redis "redis://127.0.0.1:$redis_port/0"
echo "with Redis:    $(hammer "$p3" "$p4") successes/s"

echo "-- B. one shim, pre-rendered /api/v0/chapters/, wrk -t2 -c32 -d10s"
p5="$(free_port)"; p6="$(free_port)"
serve "$p5" 100000000
serve "$p6" 100000000 --redis "redis://127.0.0.1:$redis_port/0"
for label in "without --redis:$p5" "with --redis:$p6"; do
  port="${label##*:}"
  out="$(wrk -t2 -c32 -d10s --latency -H "X-API-Key: $key" "http://127.0.0.1:$port/api/v0/chapters/")"
  rps="$(echo "$out" | awk '/Requests\/sec/ {print $2}')"
  p99="$(echo "$out" | awk '$1 == "99%" {print $2}')"
  non2xx="$(echo "$out" | awk '/Non-2xx/ {print $4}')"
  echo "${label%:*} ${rps} req/s, p99 ${p99}${non2xx:+, non-2xx $non2xx}"
done
