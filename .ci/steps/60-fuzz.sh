#!/usr/bin/env bash
# The shim against its own OpenAPI document: schemathesis (PyPI) generates requests
# from every operation's parameters, valid and invalid, and checks each answer's
# status, content type and body against the document, in every phase: the examples,
# `coverage` (each parameter's boundaries and the values just outside them),
# `fuzzing`, and `stateful`, which walks the document's links (a list to the detail of
# its first item, a snapshot to its sub-lists, an organization or a repository to its
# filtered lists). The shim runs in production with an API key, and its log must show
# no 5xx at the end.
#
# Every default check runs, `ignored_auth` and `missing_required_header` included:
# requests without a key or with a wrong one are 401, and a valid key is never refused
# for them (docs/api.md section 5). Two budgets are lifted out of the way, nothing
# else: the per-key limit (--rate-limit), and the failed-authentication budget per
# client address (--failed-auth-rate 0). The coverage phase sends its keyless
# variants of the operations in bursts (9 in one second measured here, against the
# default budget of 10 per second, burst 10), so a faster run would meet 429s, which
# `ignored_auth` reports as failures; the budget itself is tested in
# tests/api/failed_auth.rs.
# Values of the search parameter `q` come from its `pattern` in the document (the
# search language), so nothing in .ci/schemathesis.toml stands in for them. The seed
# is fixed, so a failure reproduces.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

roost_start production --rate-limit 1000000 --failed-auth-rate 0
roost_venv 'schemathesis>=4,<5'
"$ROOST_VENV/bin/schemathesis" --config-file .ci/schemathesis.toml \
  run "$ROOST_URL/api/v0/openapi.json" \
  --url "$ROOST_URL" -H "X-API-Key: $ROOST_KEY" \
  --phases examples,coverage,fuzzing,stateful \
  --max-examples 50 --workers 2 --seed 1 --no-color

errors=$(grep -c '"status":5[0-9][0-9]' "$ROOST_WORK/serve.log" || true)
requests=$(grep -c '"message":"request"' "$ROOST_WORK/serve.log" || true)
echo "fuzzing: $requests requests, $errors answered with a 5xx"
[ "$errors" = 0 ]
