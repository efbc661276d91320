#!/usr/bin/env bash
# The pages in a real browser: Debian's Chromium, driven by playwright-core (npm, no
# browser download), against `roost serve` (e2e) on the sample:
#  - /api/v0/docs: fills the API key and runs operations from the page
#    (.ci/browser/docs.mjs);
#  - /graphql/: the explorer lists the schema's queries, opens a type, and runs every
#    query from the page (.ci/browser/explorer.mjs).
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
rm -rf "$shots/profile" "$shots/explorer-profile"
CHROMIUM="$(command -v chromium)" node .ci/browser/docs.mjs "$ROOST_URL" "$ROOST_KEY" "$shots"
CHROMIUM="$(command -v chromium)" node .ci/browser/explorer.mjs "$ROOST_URL" data/sample "$shots"
