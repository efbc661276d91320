#!/usr/bin/env bash
# The OpenAPI document as `roost generate` writes it: valid for openapi-spec-validator
# (PyPI) and equal to the reviewed snapshot tests/snapshots/openapi.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
source .ci/sdk/serve.sh

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="${CARGO_TARGET_DIR:-target}/debug/roost"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin" db init --force --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" >/dev/null
doc="$work/site/api/v0/openapi.json"

roost_venv openapi-spec-validator
"$ROOST_VENV/bin/openapi-spec-validator" "$doc"
"$ROOST_VENV/bin/python" - "$doc" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["openapi"] == "3.1.0", doc["openapi"]
ops = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
assert len(ops) == 30 and len(set(ops)) == 30, ops
print(f"openapi.json: OpenAPI {doc['openapi']}, {len(ops)} operations, "
      f"{len(doc['components']['schemas'])} schemas")
PY
cmp "$doc" tests/snapshots/openapi.json
echo "openapi.json validates and matches tests/snapshots/openapi.json"
