#!/usr/bin/env bash
# The metrics of `roost serve --metrics-listen` pass `promtool check metrics` (Debian's
# `prometheus` package): a production shim over the sample, scraped after tree files,
# live answers, GraphQL, refused keys, health checks and a 404 were answered, so that
# every family roost records is in the scrape; promtool's lint (HELP text, TYPE, names,
# units, counters ending in _total) must print nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v promtool >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version 2>&1 | head -1

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" db init --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null 2>&1
key="$("$bin" keys create --name metrics --auth-db "$work/auth.db" | tail -1)"
"$bin" serve --env production --db "$work/roost.db" --site "$work/site" \
  --auth-db "$work/auth.db" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 300); do
  grep -q '"metrics on ' "$work/serve.log" 2>/dev/null && break
  sleep 0.1
done
api="$(sed -n 's/.*"url":"\(http:[^"]*\)".*"environment".*/\1/p' "$work/serve.log" | head -1)"
metrics="$(sed -n 's/.*"url":"\(http:[^"]*\/metrics\)".*/\1/p' "$work/serve.log" | head -1)"
[ -n "$api" ] && [ -n "$metrics" ] || { cat "$work/serve.log"; exit 1; }

for path in /api/v0/chapters/ /api/v0/chapters/london '/api/v0/projects/?page_size=3' \
  '/api/v0/projects/?q=juice' /api/v0/nothing; do
  curl -s -o /dev/null -H "X-API-Key: $key" "$api$path"
done
curl -s -o /dev/null -H 'X-API-Key: rk_wrong' "$api/api/v0/chapters/"
curl -s -o /dev/null "$api/healthz"
curl -s -o /dev/null "$api/readyz"
curl -s -o /dev/null -H 'Content-Type: application/json' \
  --data '{"query":"{ statsOverview { activeChaptersStats } }"}' "$api/graphql/"
sleep 6 # the recorder's upkeep (every 5 s) drains the histograms
curl -sf "$metrics" >"$work/scrape.txt"

families="$(grep -c '^# TYPE ' "$work/scrape.txt")"
lint="$(promtool check metrics <"$work/scrape.txt" 2>&1)" || true
if [ -n "$lint" ]; then
  echo "$lint"
  echo "promtool check metrics: problems in a scrape of $families families"
  exit 1
fi
for family in roost_build_info roost_http_requests_total roost_http_requests_in_flight \
  roost_open_connections roost_credential_store_available process_cpu_seconds_total \
  process_resident_memory_bytes process_open_fds process_start_time_seconds; do
  grep -q "^# HELP $family " "$work/scrape.txt" || { echo "no $family"; exit 1; }
done
echo "promtool check metrics: $families families, clean"
