#!/usr/bin/env bash
# The tree at the edge, with the API's own URLs:
#  - edge/canonical.js's generated block (catalog, lower-case tables) is what the Rust
#    code prints (`cargo run --example edge_corpus -- tables`);
#  - differential test: a seeded corpus of more than 100,000 request URLs over the
#    sample tree, each with the file `tree::file_for_request` (the shim's own mapping)
#    gives it, and edge/canonical.js under Node and under njs must agree on every one;
#  - nginx (deploy/nginx, Debian's nginx + njs, brotli_static when installable) in
#    front of the precompressed sample tree and `roost serve`: every tree file through
#    several spellings of its URL, its gzip/br siblings, and requests the tree does not
#    answer, byte for byte against the shim (edge/test/through_nginx.py);
#  - the fetch-style edge function (edge/worker.js) under Node with a static origin
#    (python3 -m http.server over the site folder) and the shim
#    (edge/test/worker_harness.js).
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/lib/nginx.sh

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -e /usr/lib/nginx/modules/ngx_http_js_module.so ] || missing+=(libnginx-mod-http-js)
command -v njs >/dev/null 2>&1 || missing+=(njs)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
if [ "${#missing[@]}" -gt 0 ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
brotli_module=/usr/lib/nginx/modules/ngx_http_brotli_static_module.so
if [ ! -e "$brotli_module" ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    libnginx-mod-http-brotli-static >/dev/null 2>&1 || true
fi
echo "node $(node --version), njs $(njs -v), $(nginx -v 2>&1)"

cargo build --quiet --bin roost --example edge_corpus
target="${CARGO_TARGET_DIR:-target}/debug"
bin="$target/roost"
corpus_bin="$target/examples/edge_corpus"

echo "-- edge/canonical.js: generated block"
if ! diff <(sed -n '/^\/\/ BEGIN GENERATED/,/^\/\/ END GENERATED/p' edge/canonical.js) \
  <("$corpus_bin" tables) >/dev/null; then
  echo "edge/canonical.js is out of date with the Rust catalog: replace its generated" >&2
  echo "block with the output of 'cargo run --example edge_corpus -- tables'" >&2
  exit 1
fi
echo "the generated block matches the Rust catalog and lower-casing"

work="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  nginx_stop "$work/nginx"
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

"$bin" db init --force --db "$work/roost.db" >/dev/null
"$bin" generate --db "$work/roost.db" --out "$work/site" --precompress >/dev/null

echo "-- differential test: Rust and JavaScript over one corpus"
"$corpus_bin" corpus "$work/corpus.jsonl" --site "$work/site"
node edge/test/differential.js "$work/corpus.jsonl"
njs edge/test/differential.js "$work/corpus.jsonl"

shim_port="$(free_port)"
shim="http://127.0.0.1:$shim_port"
"$bin" serve --env e2e --listen "127.0.0.1:$shim_port" --db "$work/roost.db" \
  --site "$work/site" --auth-db "$work/auth.db" >"$work/serve.log" 2>&1 &
pids+=($!)
wait_for "$shim/api/v0/openapi.json" "roost serve" "$work/serve.log"

echo "-- nginx in front of the tree and the shim"
prefix="$work/nginx"
nginx_prefix "$prefix"
mkdir -p "$prefix/js"
cp edge/canonical.js deploy/nginx/roost.js "$prefix/js/"
nginx_port="$(free_port)"
brotli="#"
if [ -e "$brotli_module" ]; then
  brotli=""
fi
sed -e "s|@PREFIX@|$prefix|g" -e "s|@LISTEN@|127.0.0.1:$nginx_port|g" \
  -e "s|@SITE@|$work/site|g" -e "s|@JS@|$prefix/js|g" \
  -e "s|@SHIM@|127.0.0.1:$shim_port|g" -e "s|@BROTLI@|$brotli|g" \
  deploy/nginx/nginx.conf.template >"$prefix/nginx.conf"
nginx_start "$prefix" "http://127.0.0.1:$nginx_port/api/v0/openapi.json"
brotli_flag=()
if [ -z "$brotli" ]; then
  brotli_flag=(--brotli)
fi
python3 edge/test/through_nginx.py --nginx "http://127.0.0.1:$nginx_port" --shim "$shim" \
  --site "$work/site" --corpus "$work/corpus.jsonl" --access-log "$prefix/access.log" \
  "${brotli_flag[@]}"
nginx_errors "$prefix"

echo "-- edge/worker.js under Node, a static origin and the shim"
origin_port="$(free_port)"
python3 -m http.server --bind 127.0.0.1 --directory "$work/site" "$origin_port" \
  >"$work/origin.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$origin_port/manifest.json" "the static origin" "$work/origin.log"
node edge/test/worker_harness.js "$work/corpus.jsonl" "$work/site" \
  "http://127.0.0.1:$origin_port" "$shim"
