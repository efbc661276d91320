#!/usr/bin/env bash
# Two `roost serve --env production --redis ... --trusted-proxy 127.0.0.1/32` replicas
# behind Debian's nginx (deploy/nginx/replicas.conf.template) with Debian's
# redis-server on loopback; .ci/replicas/check.py checks through nginx that:
#  - 100 requests with one key across both replicas get one budget (10 + what refills
#    during the burst), the rest 429 with Retry-After;
#  - bad keys from one forwarded address are locked out while a valid key from another
#    forwarded address is served;
#  - with redis-server killed: no 5xx, each replica logs the degradation once, limits
#    continue per replica; restarted: each logs the recovery once, one budget again;
#  - /readyz is 503 while the dataset file is missing, 200 once it is back;
#  - the metrics listener shows the rejections and Redis errors.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/lib/nginx.sh

nginx_install
if ! command -v redis-server >/dev/null 2>&1; then
  nginx_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
echo "$(nginx -v 2>&1), $(redis-server --version | cut -d' ' -f1-3)"

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"

work="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  if [ -f "$work/redis.pid" ]; then
    kill "$(cat "$work/redis.pid")" 2>/dev/null || true
  fi
  nginx_stop "$work/nginx"
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

"$bin" db init --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null
for i in $(seq 1 12); do
  "$bin" keys create --name "replicas-$i" --auth-db "$work/auth.db" | tail -n 1 >>"$work/keys"
done

echo "-- redis-server on loopback"
redis_port="$(free_port)"
mkdir -p "$work/redis"
redis_cmd=(redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$work/redis")
"${redis_cmd[@]}" >"$work/redis.log" 2>&1 &
echo $! >"$work/redis.pid"
for _ in $(seq 1 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null && break
  sleep 0.1
done

echo "-- two replicas"
ports=()
metrics_port="$(free_port)"
for i in 1 2; do
  port="$(free_port)"
  ports+=("$port")
  extra=()
  if [ "$i" = 1 ]; then
    extra=(--metrics-listen "127.0.0.1:$metrics_port")
  fi
  RUST_LOG=info "$bin" serve --env production --listen "127.0.0.1:$port" \
    --db "$work/roost.db" --site "$work/site" --auth-db "$work/auth.db" \
    --redis "redis://127.0.0.1:$redis_port/0" --trusted-proxy 127.0.0.1/32 \
    "${extra[@]}" >"$work/replica$i.log" 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$port/healthz" "replica $i" "$work/replica$i.log"
done

echo "-- nginx in front of them"
prefix="$work/nginx"
nginx_prefix "$prefix"
nginx_port="$(free_port)"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@LISTEN@|127.0.0.1:$nginx_port|g" \
  -e "s|@SHIM1@|127.0.0.1:${ports[0]}|g" -e "s|@SHIM2@|127.0.0.1:${ports[1]}|g" \
  deploy/nginx/replicas.conf.template >"$prefix/nginx.conf"
nginx_start "$prefix" "http://127.0.0.1:$nginx_port/nginx-health"

redis_json="$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "${redis_cmd[@]}")"
python3 .ci/replicas/check.py --nginx "http://127.0.0.1:$nginx_port" \
  --replica "http://127.0.0.1:${ports[0]}" --replica "http://127.0.0.1:${ports[1]}" \
  --replica-log "$work/replica1.log" --replica-log "$work/replica2.log" \
  --metrics "http://127.0.0.1:$metrics_port" --keys "$work/keys" \
  --redis-server "$redis_json" --redis-pid "$work/redis.pid" --db "$work/roost.db"
# Outside the /readyz checks (503 by design), no answer of a replica was a 5xx.
if grep -h '"status":5[0-9][0-9]' "$work/replica1.log" "$work/replica2.log" | grep -v '"path":"/readyz"'; then
  echo "a replica answered 5xx" >&2
  exit 1
fi
nginx_errors "$prefix"
