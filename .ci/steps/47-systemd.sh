#!/usr/bin/env bash
# The systemd units in deploy/systemd/ (docs/operations.md, "systemd"):
# `systemd-analyze verify` on roost.service, roost-mirror.service and
# roost-mirror.timer, in a root holding the built roost at /usr/local/bin/roost
# (the path the units name), its manual pages (their Documentation= lines) and
# Debian's system units; any message fails the step. Then the exposure score of
# `systemd-analyze security --offline`, printed, and required to stay "OK" (below 4).
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v man >/dev/null 2>&1 || need+=(man-db)
if [ "${#need[@]}" -gt 0 ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
systemd-analyze --version | head -1

# With the tests: the build `cargo test` made (its dependencies built with the
# features the tests turn on), not a second one.
cargo build --quiet --bin roost --tests
bin="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/roost"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd" "$root/man/man1"
ln "$bin" "$root/usr/local/bin/roost" 2>/dev/null || cp "$bin" "$root/usr/local/bin/roost"
cp -r /lib/systemd/system "$root/usr/lib/systemd/"
cp deploy/systemd/roost.service deploy/systemd/roost-mirror.service \
  deploy/systemd/roost-mirror.timer "$root/etc/systemd/system/"
"$bin" man --out "$root/man/man1" >/dev/null

units=(/etc/systemd/system/roost.service /etc/systemd/system/roost-mirror.service
  /etc/systemd/system/roost-mirror.timer)
out="$(MANPATH="$root/man" systemd-analyze verify --root="$root" "${units[@]}" 2>&1)" || {
  echo "$out"
  echo "systemd-analyze verify failed"
  exit 1
}
if [ -n "$out" ]; then
  echo "$out"
  echo "systemd-analyze verify printed messages"
  exit 1
fi
echo "verify: ${#units[@]} units clean"

for unit in roost.service roost-mirror.service; do
  score="$(systemd-analyze security --offline=yes --root="$root" "$unit" 2>/dev/null |
    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
  echo "security: $unit exposure $score"
  awk -v s="$score" 'BEGIN { exit !(s != "" && s < 4.0) }' || {
    echo "$unit: exposure $score, expected below 4.0 (OK)"
    exit 1
  }
done
