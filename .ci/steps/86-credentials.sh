#!/usr/bin/env bash
# A credential store on a read-only mount (docs/architecture.md, "The credential
# store"): `roost keys list` lists it; `keys create` and `keys revoke` exit 2 saying
# "read-only" with the file's path; a production `roost serve` starts, logs that the
# store is read-only, answers its key (200) and /readyz (200).
# Needs root (mount); skips with a message otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" != 0 ]; then
  echo "skipped: mounting a tmpfs needs root"
  exit 0
fi

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"

work="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  umount "$work/ro" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" db init --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null 2>&1
mkdir "$work/ro"
mount -t tmpfs -o size=4m tmpfs "$work/ro"
key="$("$bin" keys create --name reader --auth-db "$work/ro/auth.db" | tail -1)"
mount -o remount,ro "$work/ro"

fail() { echo "FAIL: $*"; exit 1; }

"$bin" keys list --auth-db "$work/ro/auth.db" | grep -q reader || fail "keys list on a read-only store"
set +e
out="$("$bin" keys create --name more --auth-db "$work/ro/auth.db" 2>&1)"; rc=$?
set -e
[ "$rc" = 2 ] || fail "keys create: exit $rc: $out"
grep -q "$work/ro/auth.db is read-only" <<<"$out" || fail "keys create said: $out"
set +e
out="$("$bin" keys revoke 1 --auth-db "$work/ro/auth.db" 2>&1)"; rc=$?
set -e
[ "$rc" = 2 ] || fail "keys revoke: exit $rc: $out"
grep -q "$work/ro/auth.db is read-only" <<<"$out" || fail "keys revoke said: $out"
echo "keys: list works, create and revoke say read-only ($out)"

"$bin" serve --env production --db "$work/roost.db" --site "$work/site" \
  --auth-db "$work/ro/auth.db" --listen 127.0.0.1:0 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 300); do
  grep -q '"environment"' "$work/serve.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log"; fail "serve exited"; }
  sleep 0.1
done
api="$(sed -n 's/.*"url":"\(http:[^"]*\)".*"environment".*/\1/p' "$work/serve.log" | head -1)"
[ -n "$api" ] || { cat "$work/serve.log"; fail "serve did not listen"; }
grep -q 'is read-only' "$work/serve.log" || { cat "$work/serve.log"; fail "no read-only line"; }
status="$(curl -s -o /dev/null -w '%{http_code}' -H "X-API-Key: $key" "$api/api/v0/chapters/")"
[ "$status" = 200 ] || fail "the key on a read-only store: $status"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "X-API-Key: rk_wrong" "$api/api/v0/chapters/")"
[ "$status" = 401 ] || fail "a wrong key on a read-only store: $status"
# /readyz is 503 "warming up" until the warm-up's line, then 200.
for _ in $(seq 1 300); do
  status="$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")"
  [ "$status" = 200 ] && break
  sleep 0.1
done
[ "$status" = 200 ] || fail "/readyz on a read-only store: $status"
echo "serve: a read-only store answers its key (200), refuses others (401), /readyz 200"
