# Sourced by the .ci/steps scripts: builds roost, creates the sample dataset and its
# tree in a temporary folder, and starts `roost serve` on a free loopback port
# (`roost_start [ENV [SERVE FLAGS...]]`, environment e2e by default). Sets ROOST_BIN,
# ROOST_WORK, ROOST_SITE_DIR, ROOST_AUTH_DB, ROOST_URL, ROOST_PID and ROOST_KEY (a key
# made with `roost keys create`, sent by the clients even where the environment does
# not require it). `roost_cleanup` (also the EXIT trap) stops the server and removes
# the folder, so a script can start one environment after another.

roost_cleanup() {
  if [ -n "${ROOST_PID:-}" ] && kill -0 "$ROOST_PID" 2>/dev/null; then
    kill "$ROOST_PID" 2>/dev/null || true
    wait "$ROOST_PID" 2>/dev/null || true
  fi
  if [ -n "${ROOST_WORK:-}" ]; then
    rm -rf "$ROOST_WORK"
  fi
}

roost_start() {
  local env="${1:-e2e}"
  shift || true
  # With the tests: the build `cargo test` made (its dependencies built with the
  # features the tests turn on), not a second one.
  cargo build --quiet --bin roost --tests
  ROOST_BIN="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"
  ROOST_WORK="$(mktemp -d)"
  trap roost_cleanup EXIT
  ROOST_SITE_DIR="$ROOST_WORK/site"
  ROOST_AUTH_DB="$ROOST_WORK/auth.db"
  "$ROOST_BIN" db init --force --db "$ROOST_WORK/roost.db" >/dev/null
  "$ROOST_BIN" generate --db "$ROOST_WORK/roost.db" --out "$ROOST_SITE_DIR" >/dev/null
  ROOST_KEY="$("$ROOST_BIN" keys create --name ci --auth-db "$ROOST_AUTH_DB" | tail -n 1)"
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  ROOST_URL="http://127.0.0.1:$port"
  "$ROOST_BIN" serve --env "$env" --listen "127.0.0.1:$port" --db "$ROOST_WORK/roost.db" \
    --site "$ROOST_SITE_DIR" --auth-db "$ROOST_AUTH_DB" "$@" >"$ROOST_WORK/serve.log" 2>&1 &
  ROOST_PID=$!
  local i
  for i in $(seq 1 120); do
    # openapi.json is public in every environment.
    if curl -fs -o /dev/null "$ROOST_URL/api/v0/openapi.json"; then
      echo "roost serve ($env) is up at $ROOST_URL"
      return 0
    fi
    if ! kill -0 "$ROOST_PID" 2>/dev/null; then
      break
    fi
    sleep 0.5
  done
  echo "roost serve did not start; its log:" >&2
  cat "$ROOST_WORK/serve.log" >&2
  return 1
}

# A Python virtual environment kept under target/ between runs, with the given
# packages installed.
roost_venv() {
  ROOST_VENV="$(realpath -m "${CARGO_TARGET_DIR:-target}")/ci-venv"
  if [ ! -x "$ROOST_VENV/bin/python" ]; then
    python3 -m venv "$ROOST_VENV"
  fi
  "$ROOST_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}
