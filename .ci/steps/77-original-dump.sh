#!/usr/bin/env bash
# The recipe from the original service's public dump to the CDN
# (deploy/original-to-cdn.sh, docs/hosting.md), end to end with Debian's PostgreSQL:
#  - a throwaway server gets the sample (data/sample) in the original's tables
#    (tests/original/schema.sql) through the fixture writer
#    (examples/original_fixture.rs); its `owasp_*`, `github_*`, `slack_*`, `nest_*`
#    and `django_content_type` tables are dumped as the public dump is made
#    (pg_dump -Fc --data-only), their schema apart (pg_dump --schema-only), and the
#    server is stopped;
#  - the script, with that dump and schema, into an empty dataset and site: the tree
#    has the chapter list and the sample's London chapter, the dataset as many
#    records of each main kind as the sample (the fields the original cannot hold are
#    tests/cli/original_import.rs's), the upload list every file of the tree with the
#    root manifest last, and the script's server is gone with its folder;
#  - a second run on the same dump: nothing to upload or delete;
#  - a run with a dump that is not one fails (non-zero) and leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
pg="$(dirname "$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")"
"$pg/postgres" --version

cargo build --quiet --bin roost --example original_fixture
target="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug"
bin="$target/roost"
fixture="$target/examples/original_fixture"

work="$(mktemp -d)"
run=()
cleanup() {
  if [ -f "$work/pg/data/postmaster.pid" ]; then
    (cd "$work/pg" && "${run[@]}" "$pg/pg_ctl" stop -m immediate -w -D "$work/pg/data") >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
while read -r name; do unset "$name"; done < <(compgen -e | grep '^PG' || true)

echo "-- the original's database: the sample in its tables"
mkdir -p "$work/pg/socket"
if [ "$(id -u)" = 0 ]; then
  chown -R nobody "$work/pg"
  run=(runuser -u nobody --)
fi
server() { (cd "$work/pg" && "${run[@]}" "$@"); }
server "$pg/initdb" -D "$work/pg/data" -U roost --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat >>"$work/pg/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$work/pg/socket'
fsync = off
EOF
server "$pg/pg_ctl" start -w -t 60 -D "$work/pg/data" -l "$work/pg/server.log" >/dev/null ||
  { cat "$work/pg/server.log"; fail "PostgreSQL did not start"; }
url="postgresql://roost@127.0.0.1:$port/original"
"$pg/createdb" -h 127.0.0.1 -p "$port" -U roost original
"$fixture" --from data/sample --to "$url"
chapters="$("$pg/psql" -X -A -t -d "$url" -c "SELECT count(*) FROM owasp_chapters")"
[ "$chapters" -gt 0 ] || fail "the fixture writer loaded no chapter"
tables=(-t 'owasp_*' -t 'github_*' -t 'slack_*' -t 'nest_*' -t django_content_type)
"$pg/pg_dump" -Fc --data-only "${tables[@]}" -f "$work/original.dump" "$url"
"$pg/pg_dump" --schema-only --no-owner --no-privileges "${tables[@]}" -f "$work/schema.sql" "$url"
server "$pg/pg_ctl" stop -m fast -w -D "$work/pg/data" >/dev/null
echo "dump: $(du -k "$work/original.dump" | cut -f1) KiB," \
  "$("$pg/pg_restore" -l "$work/original.dump" | grep -c ' TABLE DATA ') tables ($chapters chapters)"

# The script's own server: gone with its folder after each run.
tmp="${TMPDIR:-/tmp}"
state() {
  local cmdline line
  ls -d "$tmp"/roost-original-to-cdn.* 2>/dev/null || true
  for cmdline in /proc/[0-9]*/cmdline; do
    line="$(tr '\0' ' ' <"$cmdline" 2>/dev/null)" || continue
    case "$line" in *"-D $tmp/roost-original-to-cdn."*) echo "${cmdline%/cmdline}: $line" ;; esac
  done
}
state >"$work/before"
leftovers() { state | grep -vxF -f "$work/before" || true; }

echo "-- deploy/original-to-cdn.sh into an empty dataset and site"
deploy() {
  deploy/original-to-cdn.sh "$work/original.dump" --schema "$work/schema.sql" \
    --db "$work/out/roost.db" --site "$work/out/site" --roost "$bin" --changed "$work/$1"
}
deploy changed-1
site="$work/out/site"
[ -f "$site/api/v0/chapters/index.json" ] || fail "no api/v0/chapters/index.json"
grep -q '"www-chapter-london"' "$site/api/v0/chapters/index.json" ||
  fail "the chapter list lacks www-chapter-london"
grep -q '"key":"www-chapter-london"' "$site/api/v0/chapters/london.json" ||
  fail "api/v0/chapters/london.json is not the London chapter"
"$bin" site check --site "$site" >/dev/null
"$bin" db check --db "$work/out/roost.db" >/dev/null
"$bin" db export "$work/export" --db "$work/out/roost.db" >/dev/null
for kind in organizations members repositories issues releases chapters committees projects events sponsors snapshots; do
  [ "$(wc -l <"$work/export/$kind.jsonl")" = "$(wc -l <"data/sample/$kind.jsonl")" ] ||
    fail "the dataset has $(wc -l <"$work/export/$kind.jsonl") $kind, the sample $(wc -l <"data/sample/$kind.jsonl")"
done
[ -s "$work/changed-1" ] || fail "the first run listed nothing to upload"
files="$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["files"]))' "$site/manifest.json")"
[ "$(grep -vc '^manifest' "$work/changed-1")" = "$files" ] ||
  fail "the first run's upload list does not hold the $files files of the manifest"
[ "$(tail -2 "$work/changed-1" | paste -sd ' ')" = "manifest.json manifest/root.json" ] ||
  fail "the root manifest is not last in the upload list"
while read -r path; do
  [ -f "$site/$path" ] || fail "listed for upload but not in the tree: $path"
done <"$work/changed-1"
[ -z "$(leftovers)" ] || fail "the script left $(leftovers)"
echo "first run: $(wc -l <"$work/changed-1") files to upload"

echo "-- the same dump again: nothing to upload"
deploy changed-2
[ -f "$work/changed-2" ] || fail "the second run wrote no upload list"
if [ -s "$work/changed-2" ] || [ -s "$site/changes/removed.txt" ]; then
  head "$work/changed-2" "$site/changes/removed.txt" >&2
  fail "the second run changed files"
fi
[ -z "$(leftovers)" ] || fail "the script left $(leftovers)"
echo "second run: nothing to upload or delete"

echo "-- a file that is not a dump: the run fails, nothing is left"
echo "not a dump" >"$work/bad.dump"
if deploy/original-to-cdn.sh "$work/bad.dump" --schema "$work/schema.sql" \
  --db "$work/out/roost.db" --site "$work/out/site" --roost "$bin" 2>"$work/bad.log"; then
  fail "a run with a file that is not a dump succeeded"
fi
tail -1 "$work/bad.log"
[ -z "$(leftovers)" ] || fail "the failed run left $(leftovers)"
"$bin" site check --site "$site" >/dev/null
echo "original dump to CDN: all checks passed"
