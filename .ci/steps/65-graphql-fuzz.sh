#!/usr/bin/env bash
# GraphQL fuzzing: schemathesis (PyPI) reads the schema of `/graphql/` by
# introspection (e2e mode, where introspection is on) and sends generated queries,
# valid and invalid, for every root field.
#
# Client errors are expected (documents refused as too complex or too wide, bad
# argument values: each with its `extensions.code`, docs/api.md §6); what fails the
# step is a server error: a 5xx, an uncoded error or `INTERNAL_SERVER_ERROR` in a
# GraphQL answer, a null in a non-null field, or a body that is not a GraphQL
# response. The checks are those that judge the server's answers; the per-address rate
# limit is lifted, since every request comes from one address. The seed is fixed, so a
# failure reproduces. The login-only mentorship queries (`management*`, `myPrograms`)
# are left out: they answer `UNAUTHENTICATED` to every caller by design, a code the
# fuzzer does not count among client errors (tests/graphql/queries/mentorship.rs holds
# their answers).
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

roost_start e2e --graphql-rate-limit 0
roost_venv 'schemathesis>=4,<5'
"$ROOST_VENV/bin/schemathesis" run "$ROOST_URL/graphql/" \
  --checks not_a_server_error,response_schema_conformance \
  --phases examples,fuzzing \
  --exclude-name-regex '^Query\.(management|my)' \
  --max-examples 50 --workers 2 --seed 1 --no-color

errors=$(grep -c '"status":5[0-9][0-9]' "$ROOST_WORK/serve.log" || true)
requests=$(grep -c '"message":"request"' "$ROOST_WORK/serve.log" || true)
echo "graphql fuzzing: $requests requests, $errors answered with a 5xx"
[ "$errors" = 0 ]
