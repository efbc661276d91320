#!/usr/bin/env bash
# A full disk loses nothing (docs/architecture.md §2 and §5): on a small tmpfs,
#  - `roost generate` runs into a site with the disk filled to several levels: each
#    run either succeeds with a whole tree (`roost site check`) or fails leaving the
#    previous tree byte-identical, no generation folder but the live one and no
#    temporary file;
#  - `roost db import` and `roost db export` on the full disk fail naming the file and
#    saying the cause once, leaving nothing behind;
#  - `roost mirror` of a tree served by nginx, the disk filled likewise: a failed run
#    leaves the copy as it was and no more than the previous state, and once space is
#    back the next run succeeds (leftovers never block).
# Needs root (mount); skips with a message otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" != 0 ]; then
  echo "skipped: mounting a tmpfs needs root"
  exit 0
fi

. .ci/lib/nginx.sh
nginx_install

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/roost"

work="$(mktemp -d)"
cleanup() {
  nginx_stop "$work/nginx"
  umount "$work/fs" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
today=2026-11-22

echo "-- datasets A (the sample) and B (a sponsor less, a chapter renamed)"
"$bin" db init --db "$work/a.db" >/dev/null
"$bin" db export "$work/b-export" --db "$work/a.db" >/dev/null
sed -i '$d' "$work/b-export/sponsors.jsonl"
sed -i 's/"name":"London"/"name":"London Town"/' "$work/b-export/chapters.jsonl"
"$bin" db import "$work/b-export" --db "$work/b.db" >/dev/null

mkdir "$work/fs"
mount -t tmpfs -o size=48m tmpfs "$work/fs"

# Fills the tmpfs to leave $1 KiB free (as far as tmpfs pages allow).
fill() {
  rm -f "$work/fs/filler"
  local free_kb
  free_kb="$(df -k --output=avail "$work/fs" | tail -1 | tr -d ' ')"
  if [ "$free_kb" -gt "$1" ]; then
    fallocate -l "$(( (free_kb - $1) * 1024 ))" "$work/fs/filler" 2>/dev/null ||
      head -c "$(( (free_kb - $1) * 1024 ))" /dev/zero >"$work/fs/filler" 2>/dev/null || true
  fi
}

# Names beside a tree that only a running process may own.
check_beside() {
  local dir="$1" live
  live="$(readlink "$dir/site")"
  # The spare generation (the one the last run replaced) is named on the second line
  # of .site.spare-keys.
  local spare=""
  [ -f "$dir/.site.spare-keys" ] && spare="$(sed -n 2p "$dir/.site.spare-keys" | tr -d '\0')"
  local extra
  extra="$(cd "$dir" && ls -A | grep -E '^\.site\.g' | grep -vxF "$live" | grep -vxF "${spare:-$live}" || true)"
  if [ -n "$extra" ]; then
    echo "generation folders left beside $dir/site: $extra" >&2
    exit 1
  fi
  extra="$(cd "$dir" && ls -A | grep -E '\.tmp-[0-9]+$|\.link$' || true)"
  if [ -n "$extra" ]; then
    echo "temporary names left in $dir: $extra" >&2
    exit 1
  fi
}

echo "-- generate with the disk filled"
site="$work/fs/gen/site"
"$bin" generate --db "$work/a.db" --out "$site" --no-precompress --today "$today" >/dev/null
live_db=a
failures=0
successes=0
for free in 0 32 128 400 800 1100 1300 1600 30000; do
  next=b
  [ "$live_db" = b ] && next=a
  before="$(cd "$site" && find . -type f ! -path './changes/*' -print0 | sort -z | xargs -0 sha256sum)"
  link_before="$(readlink "$site")"
  fill "$free"
  if "$bin" generate --db "$work/$next.db" --out "$site" --no-precompress --today "$today" \
    >"$work/out" 2>"$work/err"; then
    successes=$((successes + 1))
    live_db="$next"
    echo "   ${free} KiB free: generated"
  else
    failures=$((failures + 1))
    grep -q "No space left on device" "$work/err" || { cat "$work/err" >&2; exit 1; }
    [ "$(readlink "$site")" = "$link_before" ] || { echo "the failed run swapped" >&2; exit 1; }
    after="$(cd "$site" && find . -type f ! -path './changes/*' -print0 | sort -z | xargs -0 sha256sum)"
    [ "$before" = "$after" ] || { echo "the failed run changed the live tree" >&2; exit 1; }
    echo "   ${free} KiB free: failed ($(tail -1 "$work/err" | cut -c1-120)), tree unchanged"
  fi
  rm -f "$work/fs/filler"
  "$bin" site check --site "$site" >/dev/null
  check_beside "$work/fs/gen"
done
[ "$failures" -gt 0 ] && [ "$successes" -gt 0 ] || {
  echo "expected both failed and successful runs ($failures failed, $successes succeeded)" >&2
  exit 1
}
# With space back, the same input is kept only when the tree is whole.
"$bin" generate --db "$work/$live_db.db" --out "$site" --no-precompress --today "$today" | grep -q ": 0 written"
rm -rf "$work/fs/gen"

echo "-- db import and db export on a full disk: the file named, the cause said once"
mkdir "$work/fs/data"
fill 0
if "$bin" db import "$work/b-export" --db "$work/fs/data/roost.db" 2>"$work/err"; then
  echo "an import into a full disk succeeded" >&2
  exit 1
fi
cat "$work/err"
grep -q "building $work/fs/data/roost.db" "$work/err"
[ "$(grep -o 'database or disk is full' "$work/err" | wc -l)" = 1 ] || { echo "the cause is not said once" >&2; exit 1; }
[ -z "$(ls -A "$work/fs/data" | grep -v '^roost\.db\.lock$' || true)" ] || { ls -A "$work/fs/data" >&2; exit 1; }
if "$bin" db export "$work/fs/data/export" --db "$work/a.db" 2>"$work/err"; then
  echo "an export into a full disk succeeded" >&2
  exit 1
fi
cat "$work/err"
[ "$(grep -o 'os error 28' "$work/err" | wc -l)" = 1 ] || { echo "the cause is not said once" >&2; exit 1; }
grep -q "writing $work/fs/data/export/organizations.jsonl" "$work/err"
rm -f "$work/fs/filler"
rm -rf "$work/fs/data"

echo "-- mirror with the disk filled"
"$bin" generate --db "$work/a.db" --out "$work/a/site" --no-precompress --today "$today" >/dev/null
"$bin" generate --db "$work/b.db" --out "$work/b/site" --no-precompress --today "$today" >/dev/null
prefix="$work/nginx"
nginx_prefix "$prefix"
port="$(free_port)"
ln -sfn a/site "$work/served"
cat >"$prefix/nginx.conf" <<EOF
worker_processes 1;
pid $prefix/nginx.pid;
error_log $prefix/error.log warn;
events { worker_connections 512; }
http {
    access_log off;
    $NGINX_TEMP_PATHS
    types { application/json json; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $work/served;
    }
}
EOF
nginx_start "$prefix" "http://127.0.0.1:$port/manifest.json"
url="http://127.0.0.1:$port/"
copy="$work/fs/mirror"
"$bin" mirror "$url" --out "$copy" --jobs 4 >/dev/null
served=a
failures=0
for free in 0 64 400 1600 30000; do
  next=b
  [ "$served" = b ] && next=a
  ln -sfn "$next/site" "$work/served"
  link_before="$(readlink "$copy/site")"
  fill "$free"
  if "$bin" mirror "$url" --out "$copy" --jobs 4 >"$work/out" 2>"$work/err"; then
    served="$next"
    echo "   ${free} KiB free: mirrored"
  else
    failures=$((failures + 1))
    grep -q "No space left on device" "$work/err" || { cat "$work/err" >&2; exit 1; }
    [ "$(readlink "$copy/site")" = "$link_before" ] || { echo "the failed mirror swapped" >&2; exit 1; }
    check_beside "$copy"
    ln -sfn "$served/site" "$work/served"
    echo "   ${free} KiB free: failed, copy unchanged, nothing left behind"
  fi
  rm -f "$work/fs/filler"
  "$bin" site check --site "$copy/site" >/dev/null
done
[ "$failures" -gt 0 ] || { echo "no mirror run ran out of space" >&2; exit 1; }
# Space back: the update succeeds.
ln -sfn b/site "$work/served"
"$bin" mirror "$url" --out "$copy" --jobs 4 >/dev/null
diff -r --exclude changes "$work/b/site/" "$copy/site/"
check_beside "$copy"
nginx_errors "$prefix"
echo "ok: full disks lose nothing"
