#!/usr/bin/env bash
# The pages in a real browser: Debian's Chromium, driven by playwright-core (npm, no
# browser download), against `roost serve` (e2e) on the sample:
#  - /api/v0/docs: search, examples per status, deep links, the API key, operations
#    run from the page and their curl run here; then the tree's copy of the page from
#    a plain static file server (.ci/browser/docs.mjs);
#  - /graphql/: GraphiQL completes root fields and arguments, shows the docs, runs a
#    page query with the CSRF header (.ci/browser/explorer.mjs).
# Both pages must load with no request to another host. Screenshots go to
# $ROOST_SCREENSHOTS (the README's are docs/screenshots/, taken here).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi
chromium --version

npm ci --prefix .ci/browser --no-audit --no-fund --loglevel=error

roost_start
# The generated tree, as a static host (a CDN) serves it.
static_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
python3 -m http.server "$static_port" --bind 127.0.0.1 --directory "$ROOST_SITE_DIR" >/dev/null 2>&1 &
static_pid=$!
trap 'kill "$static_pid" 2>/dev/null || true; roost_cleanup' EXIT
for _ in $(seq 1 40); do
  curl -fs -o /dev/null "http://127.0.0.1:$static_port/api/v0/docs/index.html" && break
  sleep 0.25
done
shots="${ROOST_SCREENSHOTS:-/tmp/roost-docs-screenshots}"
mkdir -p "$shots"
rm -rf "$shots/profile" "$shots/static-profile" "$shots/explorer-profile"
CHROMIUM="$(command -v chromium)" node .ci/browser/docs.mjs "$ROOST_URL" "$ROOST_KEY" "$shots" "http://127.0.0.1:$static_port"
CHROMIUM="$(command -v chromium)" node .ci/browser/explorer.mjs "$ROOST_URL" data/sample "$shots"
