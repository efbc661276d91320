#!/usr/bin/env bash
# The docs page in a real browser: Debian's Chromium, driven by playwright-core (npm,
# no browser download), loads /api/v0/docs from `roost serve` (e2e) on the sample,
# fills the API key and runs operations from the page (.ci/browser/docs.mjs).
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
shots="${ROOST_SCREENSHOTS:-/tmp/roost-docs-screenshots}"
mkdir -p "$shots"
rm -rf "$shots/profile"
CHROMIUM="$(command -v chromium)" node .ci/browser/docs.mjs "$ROOST_URL" "$ROOST_KEY" "$shots"
