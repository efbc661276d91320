#!/usr/bin/env bash
# Regeneration under load: does `roost serve` answer every request, and never a
# mixture of two datasets or two trees, while the dataset is replaced and the tree
# regenerated underneath it?
#
# Two versions of the sample: A (as shipped) and B (the London chapter renamed).
# The shim serves A on 127.0.0.1 (environment local); wrk then sends, for
# DURATION seconds over CONNS connections in total, requests to three URLs at once:
#   list    /api/v0/chapters/               (a file of the tree)
#   detail  /api/v0/chapters/london         (a file of the tree)
#   live    /api/v0/chapters/?page_size=50  (answered from SQLite)
# Meanwhile the dataset is replaced (`roost db import`, an atomic rename) and the
# tree regenerated (`roost generate`, an atomic symlink swap) twice: A → B, then
# B → A. Every response must be a 200 whose body is exactly A's or B's answer for
# its URL (checked in wrk's Lua `response` hook, bodies compared in full).
#
# Usage: bench/swap_under_load.sh            (DURATION=10 CONNS=64 by default)
#        BENCH_ENV=production bench/swap_under_load.sh   (with an API key on every
#        request and the per-key limit raised out of the way: the cost of auth)
# Needs wrk (Debian package; installed when missing and running as root) and curl.
# Not part of `cargo test`. Exits non-zero on any failed or mixed response.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
CONNS=${CONNS:-64}
BENCH_ENV=${BENCH_ENV:-local}

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk is missing: apt-get install wrk" >&2
    exit 2
  fi
fi

if [ -z "${ROOST_BIN:-}" ]; then
  cargo build --release --quiet
  ROOST_BIN="${CARGO_TARGET_DIR:-target}/release/roost"
fi
ROOST_BIN=$(realpath "$ROOST_BIN")

mkdir -p bench/out
WORK=$(mktemp -d "$PWD/bench/out/swap.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

for v in a b; do mkdir -p "$WORK/sample-$v" && cp data/sample/*.jsonl "$WORK/sample-$v/"; done
sed -i '0,/"name": "London"/s//"name": "Londinium"/' "$WORK/sample-b/chapters.jsonl"

DB="$WORK/roost.db"
SITE="$WORK/site"
roost() { "$ROOST_BIN" "$@"; }
use_version() { # import the dataset of version $1, then regenerate; prints timings
  local t0 t1 t2
  t0=$(date +%s.%N)
  roost db import "$WORK/sample-$1" --db "$DB" >/dev/null
  t1=$(date +%s.%N)
  roost generate --db "$DB" --out "$SITE" >/dev/null
  t2=$(date +%s.%N)
  printf '  dataset %s imported in %.2f s, tree generated in %.2f s\n' "$1" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
}

use_version a
KEY_HEADER=()
if [ "$BENCH_ENV" != local ]; then
  KEY=$(roost keys create --name bench --auth-db "$WORK/auth.db" | tail -n 1)
  KEY_HEADER=(-H "X-API-Key: $KEY")
fi
# The binary itself (not the `roost` function, which would fork a subshell), so
# that $! is the server and the exit trap stops it.
"$ROOST_BIN" serve --env "$BENCH_ENV" --rate-limit 1000000 --listen 127.0.0.1:0 --db "$DB" --site "$SITE" \
  --auth-db "$WORK/auth.db" >"$WORK/serve.out" 2>"$WORK/serve.log" &
SERVER_PID=$!
# The start-up line `{"message":"listening on http://ADDR (environment ENV)",…}` (JSON on stderr).
for _ in $(seq 1 100); do
  grep -q '"message":"listening on http://' "$WORK/serve.log" 2>/dev/null && break
  sleep 0.1
done
ADDR=$(sed -n 's/.*"message":"listening on http:\/\/\([^ ]*\) .*/\1/p' "$WORK/serve.log" | head -n 1)
[ -n "$ADDR" ] || { echo "the server did not start" >&2; cat "$WORK/serve.log" >&2; exit 1; }
BASE="http://$ADDR"

declare -A URL=(
  [list]="/api/v0/chapters/"
  [detail]="/api/v0/chapters/london"
  [live]="/api/v0/chapters/?page_size=50"
)
fetch_all() { for k in "${!URL[@]}"; do curl -sf "${KEY_HEADER[@]}" "$BASE${URL[$k]}" -o "$WORK/expect-$k-$1"; done; }
fetch_all a
use_version b >/dev/null
fetch_all b
use_version a >/dev/null
for k in "${!URL[@]}"; do
  if cmp -s "$WORK/expect-$k-a" "$WORK/expect-$k-b"; then
    echo "the two versions answer $k identically: the check would prove nothing" >&2
    exit 1
  fi
done

cat >"$WORK/check.lua" <<'LUA'
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  local function slurp(p) local f = assert(io.open(p, "rb")); local s = f:read("*a"); f:close(); return s end
  expect_a, expect_b = slurp(args[1]), slurp(args[2])
  old, new, mixed, failed = 0, 0, 0, 0
end
function response(status, headers, body)
  if status ~= 200 then failed = failed + 1
  elseif body == expect_a then old = old + 1
  elseif body == expect_b then new = new + 1
  else mixed = mixed + 1 end
end
function done(summary, latency, requests)
  local o, n, m, f = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    o = o + t:get("old"); n = n + t:get("new"); m = m + t:get("mixed"); f = f + t:get("failed")
  end
  io.write(string.format("RESULT requests=%d old=%d new=%d mixed=%d non200=%d socket_errors=%d p99_ms=%.2f\n",
    summary.requests, o, n, m, f,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(99) / 1000))
end
LUA

echo "load ($BENCH_ENV): ${DURATION}s, ${CONNS} connections over list, detail and live URLs against $BASE"
per=$((CONNS / 3))
declare -A WRK_PID
for k in "${!URL[@]}"; do
  c=$per
  [ "$k" = list ] && c=$((CONNS - 2 * per))
  wrk -t1 -c"$c" -d"${DURATION}s" --latency "${KEY_HEADER[@]}" -s "$WORK/check.lua" "$BASE${URL[$k]}" \
    -- "$WORK/expect-$k-a" "$WORK/expect-$k-b" >"$WORK/wrk-$k.txt" 2>&1 &
  WRK_PID[$k]=$!
done
sleep 2
echo "regeneration 1 (A → B) under load:"
use_version b
sleep 2
echo "regeneration 2 (B → A) under load:"
use_version a
for k in "${!URL[@]}"; do wait "${WRK_PID[$k]}"; done

status=0
total=0
for k in list detail live; do
  line=$(grep '^RESULT' "$WORK/wrk-$k.txt" || true)
  if [ -z "$line" ]; then echo "$k: wrk failed"; cat "$WORK/wrk-$k.txt"; status=1; continue; fi
  rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk-$k.txt")
  non2xx=$(awk '/Non-2xx or 3xx responses/ {print $5}' "$WORK/wrk-$k.txt")
  printf '%-6s %s rps=%s wrk_non2xx=%s\n' "$k" "${line#RESULT }" "$rps" "${non2xx:-0}"
  eval "$(echo "${line#RESULT }" | tr ' ' '\n' | sed 's/^/r_/')"
  total=$((total + r_requests))
  if [ "$r_mixed" != 0 ] || [ "$r_non200" != 0 ] || [ "$r_socket_errors" != 0 ] || [ -n "$non2xx" ]; then status=1; fi
  if [ "$r_old" = 0 ] || [ "$r_new" = 0 ]; then
    echo "  ($k never saw both versions: the swap happened outside the load window?)"
  fi
done
errors=$(grep -c '"level":"ERROR"' "$WORK/serve.log" || true)
echo "total requests: $total; server error log lines: $errors"
[ "$errors" = 0 ] || status=1
if [ "$status" = 0 ]; then echo "OK: no failed and no mixed responses"; else echo "FAILED"; fi
exit "$status"
