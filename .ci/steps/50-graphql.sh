#!/usr/bin/env bash
# GraphQL end to end with a real client (gql from PyPI) against `roost serve` on the
# sample, in two environments on free loopback ports (.ci/graphql/e2e.py):
#  - e2e: the client reads the schema by introspection, validates and runs the
#    frontend's queries; values are checked against the dataset; the explorer page
#    and its assets are served;
#  - production: no session 401, no CSRF header 403, session + CSRF served,
#    introspection refused, `roost sessions revoke` effective on the next request.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --quiet
bin="$(pwd)/${CARGO_TARGET_DIR:-target}/debug/roost"
work="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" db init --force --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null

# The client, in a virtual environment kept under target/ between runs.
venv="$(pwd)/${CARGO_TARGET_DIR:-target}/graphql-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'gql[requests]>=4,<5'

# start ENV: `roost serve --env ENV` on a free port; sets url.
start() {
  local env="$1" port i
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  url="http://127.0.0.1:$port"
  "$bin" serve --env "$env" --listen "127.0.0.1:$port" --db "$work/roost.db" \
    --site "$work/site" --auth-db "$work/auth-$env.db" >"$work/serve-$env.log" 2>&1 &
  pids+=("$!")
  for i in $(seq 1 120); do
    if curl -fs -o /dev/null "$url/csrf/"; then
      echo "roost serve ($env) is up at $url"
      return 0
    fi
    if ! kill -0 "${pids[-1]}" 2>/dev/null; then
      break
    fi
    sleep 0.5
  done
  echo "roost serve ($env) did not start; its log:" >&2
  cat "$work/serve-$env.log" >&2
  return 1
}

start e2e
"$venv/bin/python" .ci/graphql/e2e.py e2e "$url" "$work/roost.db"

start production
"$venv/bin/python" .ci/graphql/e2e.py production "$url" "$work/roost.db" "$bin" "$work/auth-production.db"
