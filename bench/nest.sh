#!/usr/bin/env bash
# Reproduces bench/history/2026-11.md, "Benchmark: nest scale, synth → generate":
# synthesise the nest-scale dataset, generate the tree (a full run, then an
# incremental run with nothing changed), and report the machine, wall times, peak RSS
# and the generator's summary lines.
#
#   bench/nest.sh [--scale small|nest|10x] [--seed N] [--keep]
#
# Works in ${BENCH_DIR:-/tmp/roost-bench}; removes the dataset and the tree afterwards
# unless --keep is given (at nest scale the tree is ~1M files, ~2.6 GB of content and
# ~5.5 GB on disk with 4 KiB blocks).
set -euo pipefail

scale=nest
seed=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "usage: $0 [--scale small|nest|10x] [--seed N] [--keep]" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/roost-bench}
db=$work/$scale.db
site=$work/$scale-site
mkdir -p "$work"
rm -rf "$db" "$site" "$work"/."$scale"-site.*

cleanup() {
    if [ "$keep" = 0 ]; then
        rm -rf "$db" "$site" "$work"/."$scale"-site.* "$work/roost" "$work/time.txt"
        rmdir "$work" 2>/dev/null || true
    fi
}
trap cleanup EXIT

cargo build --release --quiet
# A private copy, so a concurrent rebuild cannot swap the binary mid-run.
cp target/release/roost "$work/roost"
roost=$work/roost

echo "== machine"
echo "cores: $(nproc)"
echo "cpu:   $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "ram:   $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, before the runs)"
echo "git:   $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (dirty)')"

# run LABEL CMD...: wall time and peak RSS via /usr/bin/time -v when available.
run() {
    local label=$1; shift
    echo "== $label"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v -o "$work/time.txt" "$@"
        grep -E 'Elapsed \(wall clock\)|Maximum resident set size' "$work/time.txt" \
            | sed 's/^\s*/   /'
    else
        local start=$(date +%s.%N)
        "$@"
        echo "   wall: $(echo "$(date +%s.%N) - $start" | bc) s"
    fi
}

run "synth --scale $scale --seed $seed" "$roost" db synth --scale "$scale" --seed "$seed" --db "$db"
echo "   dataset: $(du -h "$db" | cut -f1)"
run "generate (full)" "$roost" generate --db "$db" --out "$site"
run "generate (incremental, nothing changed)" "$roost" generate --db "$db" --out "$site"
echo "   tree on disk: $(du -sh "$site"/ | cut -f1)"
