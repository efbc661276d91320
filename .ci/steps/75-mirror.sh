#!/usr/bin/env bash
# roost mirror against a real static server (Debian's nginx on loopback):
#  - tree A (the sample, with its dataset) is mirrored byte for byte, and its dataset
#    imported into the replica's roost.db;
#  - nginx is switched to tree B (a few records changed); the next mirror equals B
#    byte for byte and fetched exactly one of B's changed files per new content (the
#    others are hard links to a file with the same bytes), the root manifest and the
#    changed chunks (counted from nginx's access log); a run with nothing changed
#    makes one request;
#  - the replica (DIR/site + DIR/roost.db) answers searches, other page sizes and
#    GraphQL (the frontend's project page operation among them) with the same bytes
#    as B's own deployment;
#  - a mirror killed with SIGKILL part way through tree C leaves the copy of B as it
#    was; the next run completes, reuses what the killed one fetched and leaves
#    nothing behind but the copy, its dataset and their lock files.
set -euo pipefail
cd "$(dirname "$0")/../.."

. .ci/lib/nginx.sh
nginx_install
echo "$(nginx -v 2>&1)"

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"

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
today=2026-11-22

echo "-- trees A, B (a few records changed) without siblings and C (A with .gz and .br)"
"$bin" db init --db "$work/a.db" >/dev/null
"$bin" generate --db "$work/a.db" --out "$work/a/site" --with-dataset --no-precompress --today "$today"
"$bin" db export --db "$work/a.db" "$work/b-export" >/dev/null
python3 - "$work/b-export" <<'EOF'
import json, sys, os
folder = sys.argv[1]
def edit(name, change):
    path = os.path.join(folder, name)
    records = [json.loads(l) for l in open(path) if l.strip()]
    records = change(records)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
def issues(rs):
    for r in rs[10:13]:
        r["title"] += " (edited)"
    return rs
def chapters(rs):
    for r in rs:
        if r["name"] == "London":
            r["name"] = "London Town"
    return rs
edit("issues.jsonl", issues)
edit("chapters.jsonl", chapters)
edit("sponsors.jsonl", lambda rs: rs[:-1])
EOF
"$bin" db import "$work/b-export" --db "$work/b.db" >/dev/null
"$bin" generate --db "$work/b.db" --out "$work/b/site" --with-dataset --no-precompress --today "$today"
"$bin" generate --db "$work/a.db" --out "$work/c/site" --with-dataset --precompress --today "$today"

echo "-- nginx serving the site folder that $work/served points to"
prefix="$work/nginx"
nginx_prefix "$prefix"
port="$(free_port)"
slow_port="$(free_port)"
ln -sfn a/site "$work/served"
cat >"$prefix/nginx.conf" <<EOF
worker_processes 1;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 512; }
http {
    log_format files '\$request_uri \$status \$body_bytes_sent';
    access_log $prefix/access.log files;
    $NGINX_TEMP_PATHS
    types { application/json json; application/gzip gz; }
    default_type application/octet-stream;
    gzip on;
    gzip_types application/json;
    # The kill test's server: the same files, at most 300 requests a second.
    limit_req_zone \$server_port zone=slow:1m rate=300r/s;
    server {
        listen 127.0.0.1:$port;
        root $work/served;
    }
    server {
        listen 127.0.0.1:$slow_port;
        root $work/served;
        limit_req zone=slow burst=100000;
    }
}
EOF
nginx_start "$prefix" "http://127.0.0.1:$port/manifest.json"
url="http://127.0.0.1:$port/"
log="$prefix/access.log"

switch_to() {
  ln -sfn "$1/site" "$work/served.new"
  mv -T "$work/served.new" "$work/served"
}
same_tree() {
  if ! diff -r --exclude=changes "$1" "$2" >/dev/null; then
    echo "$2 differs from $1:" >&2
    diff -rq --exclude=changes "$1" "$2" | head -20 >&2
    exit 1
  fi
}

echo "-- mirror A with its dataset"
: >"$log"
"$bin" mirror "$url" --out "$work/m" --with-dataset
same_tree "$work/a/site" "$work/m/site"
test -f "$work/m/roost.db"
echo "tree A: $(wc -l <"$log") requests, $(awk '{s += $3} END {print s}' "$log") bytes sent"

echo "-- nothing changed: one request"
: >"$log"
"$bin" mirror "$url" --out "$work/m" --with-dataset
test "$(wc -l <"$log")" = 1 || { cat "$log" >&2; exit 1; }
grep -q '^/manifest/root.json 200 ' "$log"

echo "-- switch to B and mirror again: only B's changes are fetched"
switch_to b
: >"$log"
"$bin" mirror "$url" --out "$work/m" --with-dataset
same_tree "$work/b/site" "$work/m/site"
python3 - "$work/a/site" "$work/b/site" "$log" <<'EOF'
import json, sys, urllib.parse
a, b, log = sys.argv[1:]
def manifest(site):
    return {e["path"]: e["sha256"] for e in json.load(open(site + "/manifest.json"))["files"]}
def chunks(site):
    return {c["path"] for c in json.load(open(site + "/manifest/root.json"))["chunks"]}
old, new = manifest(a), manifest(b)
changed = {p for p, h in new.items() if old.get(p) != h}
documents = {"manifest/root.json"} | (chunks(b) - chunks(a))
# Each new content is fetched once: a changed file whose bytes an unchanged file (or
# another changed file) has is linked to it, not fetched.
kept = {h for p, h in new.items() if p not in changed}
contents = {new[p] for p in changed} - kept
fetched = []
for line in open(log):
    uri, status, size = line.split()
    assert status == "200", line
    fetched.append(urllib.parse.unquote(uri.lstrip("/")))
assert len(fetched) == len(set(fetched)), "a file was fetched twice"
files = [p for p in fetched if p not in documents]
if set(fetched) - set(files) != documents or not set(files) <= changed \
        or sorted({new[p] for p in files}) != sorted(contents) or len(files) != len(contents):
    print("fetched but not changed:", sorted(set(files) - changed)[:10], file=sys.stderr)
    print("documents not fetched:", sorted(documents - set(fetched))[:10], file=sys.stderr)
    print(f"{len(files)} files fetched for {len(contents)} new contents", file=sys.stderr)
    sys.exit(1)
sent = sum(int(l.split()[2]) for l in open(log))
print(f"B: {len(changed)} of {len(new)} files changed ({len(contents)} new contents); "
      f"{len(fetched)} requests ({len(fetched) - len(files)} manifest documents), {sent} bytes sent")
EOF

echo "-- the replica answers like B's own deployment"
serve() {
  local port="$1" db="$2" site="$3" name="$4"
  "$bin" serve --env e2e --listen "127.0.0.1:$port" --db "$db" --site "$site" \
    --auth-db "$work/$name-auth.db" >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$port/api/v0/openapi.json" "roost serve ($name)" "$work/$name.log"
}
orig_port="$(free_port)"
copy_port="$(free_port)"
serve "$orig_port" "$work/b.db" "$work/b/site" original
serve "$copy_port" "$work/m/roost.db" "$work/m/site" replica
for path in \
  '/api/v0/projects/?q=juice' \
  '/api/v0/issues/?q=state:open&page_size=7' \
  '/api/v0/issues/?page_size=7&page=3' \
  '/api/v0/members/?page_size=13&ordering=-login' \
  '/api/v0/chapters/?latitude_gte=0&page_size=5' \
  '/api/v0/chapters/london' \
  '/api/v0/sponsors/'; do
  curl -sf "http://127.0.0.1:$orig_port$path" >"$work/original.body"
  curl -sf "http://127.0.0.1:$copy_port$path" >"$work/replica.body"
  cmp -s "$work/original.body" "$work/replica.body" || { echo "$path differs" >&2; exit 1; }
done
# GraphQL: the frontend's project page operation and a query through dataloaders;
# the same bytes (every object lists its fields in the order the query selects them).
python3 - "$work/graphql-page.json" <<'EOF'
import json, sys
document = open("tests/graphql/pages/project.graphql").read()
json.dump({"query": document, "variables": {"key": "juice-shop"}}, open(sys.argv[1], "w"))
EOF
echo '{"query": "{ recentProjects(limit: 3) { name leaders } recentIssues(limit: 5) { title author { login } } snapshots(limit: 2) { key newIssuesCount } }"}' \
  >"$work/graphql-recent.json"
for name in page recent; do
  for port_ in "$orig_port" "$copy_port"; do
    curl -sf "http://127.0.0.1:$port_/graphql/" -H 'Content-Type: application/json' \
      --data-binary "@$work/graphql-$name.json" >"$work/graphql-$name-$port_.body"
  done
  python3 - "$work/graphql-$name-$orig_port.body" <<'EOF'
import json, sys
answer = json.load(open(sys.argv[1]))
assert "data" in answer and "errors" not in answer, answer
EOF
  cmp -s "$work/graphql-$name-$orig_port.body" "$work/graphql-$name-$copy_port.body" ||
    { echo "GraphQL ($name) differs" >&2; exit 1; }
done
echo "the replica's REST and GraphQL answers equal the original's byte for byte"

echo "-- kill the mirror part way through tree C"
switch_to c
: >"$log"
"$bin" mirror "http://127.0.0.1:$slow_port/" --out "$work/m" --with-dataset \
  >"$work/killed.log" 2>&1 &
mirror_pid=$!
for _ in $(seq 1 600); do
  if [ "$(wc -l <"$log")" -ge 400 ] || ! kill -0 "$mirror_pid" 2>/dev/null; then
    break
  fi
  sleep 0.05
done
if ! kill -9 "$mirror_pid" 2>/dev/null; then
  echo "the mirror finished before it could be killed" >&2
  exit 1
fi
wait "$mirror_pid" 2>/dev/null || true
echo "killed after $(wc -l <"$log") requests"
same_tree "$work/b/site" "$work/m/site"
if [ "$(ls -A "$work/m" | grep -c '^\.site\.g')" -lt 2 ]; then
  echo "the killed run left no folder to reuse" >&2
  exit 1
fi
"$bin" mirror "http://127.0.0.1:$port/" --out "$work/m" --with-dataset | tee "$work/rerun.log"
grep -Eq '\(([0-9]+) fetched, [0-9]+ identical, [1-9][0-9]* reused' "$work/rerun.log"
same_tree "$work/c/site" "$work/m/site"
left="$(ls -A "$work/m" | grep -v -E '^(site|roost\.db|roost\.db\.source|\.site\.g[0-9]+-[0-9]+|\.site\.lock|roost\.db\.lock)$' || true)"
if [ -n "$left" ] || [ "$(ls -A "$work/m" | grep -c '^\.site\.g')" != 1 ]; then
  echo "left behind in the mirror's folder:" >&2
  ls -A "$work/m" >&2
  exit 1
fi
nginx_errors "$prefix"
echo "mirror: all checks passed"
