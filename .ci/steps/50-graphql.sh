#!/usr/bin/env bash
# GraphQL end to end with a real client (gql from PyPI) against `roost serve` on the
# sample, in two environments on free loopback ports (.ci/graphql/e2e.py):
#  - e2e: the client reads the schema by introspection, validates and runs the
#    frontend's queries; values are checked against the dataset; the explorer page
#    and its assets are served;
#  - production: anonymous with the CSRF pair served (403 without), a bad session 401,
#    session + CSRF served,
#    introspection refused, `roost sessions revoke` effective on the next request.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

roost_venv 'gql[requests]>=4,<5'

roost_start e2e
"$ROOST_VENV/bin/python" .ci/graphql/e2e.py e2e "$ROOST_URL" "$ROOST_WORK/roost.db"
roost_cleanup

roost_start production
"$ROOST_VENV/bin/python" .ci/graphql/e2e.py production "$ROOST_URL" "$ROOST_WORK/roost.db" \
  "$ROOST_BIN" "$ROOST_AUTH_DB"
