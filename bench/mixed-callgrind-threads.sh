#!/usr/bin/env bash
# Issue 28, goal 3: are two workers' tiles more instructions than one worker's? Callgrind
# (--separate-threads=yes) of `throughput --workload mixed` at 1 and 2 workers, N1 and N2 tiles per
# worker; each worker thread's instructions per tile in the timed part. Valgrind runs one thread at a time, so this shows only work
# that repeats (a per-thread cache refilled, a shared structure walked longer), never the cost of
# cache lines moving between cores: equal counts mean the slowdown on two is in the hardware.
#
#   bench/mixed-callgrind-threads.sh [N1] [N2]      (defaults 100 and 600)
#
# LAYERBENCH=path measures another build; OUT=dir keeps the callgrind files there.
set -euo pipefail
cd "$(dirname "$0")/.."
LB=${LAYERBENCH:-$PWD/.build/release/layerbench}
N1=${1:-100}
N2=${2:-600}
W=${OUT:-$(mktemp -d)}
mkdir -p "$W"
echo "bench/mixed-callgrind-threads.sh $N1 $N2: $(date -u '+%Y-%m-%d %H:%M UTC'), $LB (worktree at $(git rev-parse --short HEAD)), load $(cut -d' ' -f1-3 /proc/loadavg)"
# Runs one configuration under callgrind; lists each thread's total Ir, largest first, as "Ir file".
run() {
  local workers=$1 tiles=$2 dir="$W/w$1.n$2"
  mkdir -p "$dir"
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.out" \
    "$LB" throughput --workload mixed --workers "$workers" --tiles "$tiles" > "$dir/stdout" 2>&1
  for f in "$dir"/cg.out-*; do echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$f") $f"; done | sort -rn > "$dir/threads"
}
for workers in 1 2; do for n in $N1 $N2; do run "$workers" "$n"; done; done
# Per worker thread: the inclusive instructions of throughput's timed loop (the closure each worker
# runs after the warm-up, which renders exactly TILES tiles) divided by the tiles. The warm-up's
# instructions vary from run to run (fontconfig's and the allocator's state), so this is steadier
# than a difference of thread totals.
timed() {  # workers, tiles
  for f in "$W/w$1.n$2"/cg.out-*; do
    callgrind_annotate --inclusive=yes --threshold=100 "$f" 2> /dev/null |
      awk -v n="$2" '/timedRun.*FySiYbcfU_ \[/ { gsub(",", "", $1); printf "%.0f ", $1 / n; exit }'
  done
}
for workers in 1 2; do for n in $N1 $N2; do
  echo "$workers worker(s), $n tiles each: Ir per timed tile, per worker: $(timed "$workers" "$n")"
done; done
