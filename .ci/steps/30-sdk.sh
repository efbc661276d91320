#!/usr/bin/env bash
# Client libraries from the OpenAPI document, against a running `roost serve` (e2e)
# on the sample:
#  - a Python client generated with openapi-python-client (PyPI) calls every list and
#    detail operation (.ci/sdk/exercise.py);
#  - TypeScript types generated with openapi-typescript (npm) type-check a usage file
#    with tsc (.ci/sdk/ts/usage.ts).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

roost_start
roost_venv openapi-python-client httpx attrs python-dateutil
# The clients are generated from the document as served: the generated one with the
# `servers` entry of the e2e environment.
doc="$ROOST_WORK/openapi.json"
curl -fsS "$ROOST_URL/api/v0/openapi.json" -o "$doc"
"$ROOST_VENV/bin/python" - "$doc" "$ROOST_SITE_DIR/api/v0/openapi.json" <<'PY'
import json, sys
served, generated = (json.load(open(p)) for p in sys.argv[1:3])
assert [s["description"] for s in served.pop("servers")] == ["E2E"]
generated.pop("servers")
assert served == generated, "the served document differs from the generated one"
PY

echo "== Python client (openapi-python-client)"
"$ROOST_VENV/bin/openapi-python-client" generate --path "$doc" --meta none \
  --config .ci/sdk/client-config.yaml --output-path "$ROOST_WORK/python/roost_client"
PYTHONPATH="$ROOST_WORK/python" "$ROOST_VENV/bin/python" .ci/sdk/exercise.py "$ROOST_URL" "$ROOST_KEY"

echo "== TypeScript types (openapi-typescript, tsc)"
ts=.ci/sdk/ts
npm ci --prefix "$ts" --no-audit --no-fund --loglevel=error
mkdir -p "$ROOST_WORK/ts"
"$ts/node_modules/.bin/openapi-typescript" "$doc" --output "$ROOST_WORK/ts/roost.ts"
cp "$ts/usage.ts" "$ts/tsconfig.json" "$ROOST_WORK/ts/"
"$ts/node_modules/.bin/tsc" --project "$ROOST_WORK/ts/tsconfig.json"
echo "TypeScript: the generated types and usage.ts type-check"
