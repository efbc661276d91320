#!/usr/bin/env bash
# The shim against its own OpenAPI document: schemathesis (PyPI) generates requests
# from every operation's parameters, valid and invalid, and checks each answer's
# status, content type and body against the document. The shim runs in production
# with an API key (the per-key limit raised out of the way), and its log must show no
# 5xx at the end.
#
# Every default check runs, `ignored_auth` and `missing_required_header` included:
# requests without a key or with a wrong one are 401, and a valid key is never refused
# for them (docs/api.md section 5). Their budget per client address stays at its
# default (10 per second): the run sends a few per second, all 401. Only the per-key
# limit is raised out of the way.
# Schema-valid values of the search parameter `q` come from a list of queries in its
# language (.ci/schemathesis.toml says why). The seed is fixed, so a failure
# reproduces.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

roost_start production --rate-limit 1000000
roost_venv 'schemathesis>=4,<5'
"$ROOST_VENV/bin/schemathesis" --config-file .ci/schemathesis.toml \
  run "$ROOST_URL/api/v0/openapi.json" \
  --url "$ROOST_URL" -H "X-API-Key: $ROOST_KEY" \
  --phases examples,fuzzing \
  --max-examples 50 --workers 2 --seed 1 --no-color

errors=$(grep -c '"status":5[0-9][0-9]' "$ROOST_WORK/serve.log" || true)
requests=$(grep -c '"message":"request"' "$ROOST_WORK/serve.log" || true)
echo "fuzzing: $requests requests, $errors answered with a 5xx"
[ "$errors" = 0 ]
