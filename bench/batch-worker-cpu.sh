#!/usr/bin/env bash
# Issue 28 goal 4 by CPU time: the CPU a batch worker spends per tile against `throughput --png fast`'s
# worker, on the same tile, 1 worker each, interleaved rounds, medians.
#
#   bench/batch-worker-cpu.sh [ROUNDS] [TILES]     (defaults 5 rounds, 6000 tiles)
#
# Wall-clock rates on this 2-core VM move by ±30% from one run to the next, and batch's wall rate also
# depends on what else holds the second core (its writer thread runs there). The CPU time of the
# thread that draws does not wait on either, so this is the steadier form of goal 4: `perf record -e
# cpu-clock` samples every thread of each command at 4 kHz, and the thread with the most samples is
# the one that draws (throughput's worker; batch's worker, whose writer thread prepares lines and
# writes files beside it). Ratio = throughput's samples per tile / batch worker's samples per tile
# (1.0: a batch worker costs what a throughput worker does; warm-up tiles are in both). Batch writes
# one file per tile to OUT_ROOT (default /dev/shm: the root file system's cost after recent deletions
# is not the batch's; BATCH_ARGS adds options). Also prints each command's own wall-clock rate
# (after the warm-up tile) and the writer thread's samples per tile. LAYERBENCH=path measures another
# build. Needs perf.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
TILES=${2:-6000}
LB=${LAYERBENCH:-.build/release/layerbench}
OUT_ROOT=${OUT_ROOT:-/dev/shm}
[[ -x $LB ]] || { echo "missing $LB (swift build -c release)" >&2; exit 1; }
command -v perf > /dev/null || { echo "needs perf" >&2; exit 1; }
# Files deleted from a disk file system slow the next files created there for minutes (bench/fs-settle.sh).
on_disk() { [[ $(stat -f -c %T "$OUT_ROOT") != tmpfs ]]; }
if on_disk; then bench/fs-settle.sh wait; fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/batch-worker-cpu.XXXXXX")
OUTS=$(mktemp -d "$OUT_ROOT/batch-worker-cpu.XXXXXX")  # each batch run writes into a directory of its own here
trap 'rm -rf "$WORK" "$OUTS"; if on_disk; then bench/fs-settle.sh mark; fi' EXIT
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)

# Samples of the busiest thread and of the second busiest, from a perf.data file.
threads() {
  perf report -i "$1" --sort pid --stdio -n -g none 2> /dev/null | awk '/^ +[0-9.]+%/ { print $2 }' | head -2 | tr '\n' ' '
}
throughput() {
  perf record -q -e cpu-clock -F 4000 -o "$WORK/t.data" "$LB" throughput --text "$TEXT" "${TILE[@]}" --tiles "$TILES" \
    --workers 1 --png fast > "$WORK/t.out" 2>&1
  echo "$(grep -oE '[0-9.]+ tiles/s' "$WORK/t.out" | head -1 | cut -d' ' -f1) $(threads "$WORK/t.data")"
}
batch() {
  local out
  out=$(mktemp -d "$OUTS/out.XXXXXX")
  perf record -q -e cpu-clock -F 4000 -o "$WORK/b.data" "$LB" batch --input "$WORK/lines.jsonl" --out-dir "$out" \
    --workers 1 --progress-interval 0 --no-resume "${TILE[@]}" ${BATCH_ARGS:-} > "$WORK/b.out" 2>&1
  # On disk, every round's files stay until the end: deleting them would slow the next round's.
  if ! on_disk; then rm -rf "$out"; fi
  echo "$(grep -oE '[0-9]+ tiles/s after' "$WORK/b.out" | cut -d' ' -f1) $(threads "$WORK/b.data")"
}

echo "bench/batch-worker-cpu.sh $ROUNDS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $LB${BATCH_ARGS:+, batch $BATCH_ARGS}, out $OUT_ROOT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-5s %12s %12s %12s %12s %12s %8s\n' round fast-tiles/s batch-tiles/s fast-us/tile worker-us/tile writer-us/tile ratio
declare -a RATIO FASTW BATCHW
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then read -r fw fs _ <<< "$(throughput)"; read -r bw bs ws <<< "$(batch)"
  else read -r bw bs ws <<< "$(batch)"; read -r fw fs _ <<< "$(throughput)"; fi
  # 4 kHz: a sample is 250 µs of CPU.
  us() { awk -v s="$1" -v n="$TILES" 'BEGIN { printf "%.1f", s * 250 / n }'; }
  ratio=$(awk -v a="$fs" -v b="$bs" 'BEGIN { printf "%.3f", a / b }')
  RATIO+=("$ratio"); FASTW+=("$fw"); BATCHW+=("$bw")
  printf '%-5s %12s %12s %12s %12s %12s %8s\n' "$r" "$fw" "$bw" "$(us "$fs")" "$(us "$bs")" "$(us "${ws:-0}")" "$ratio"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median: throughput CPU per tile / batch worker CPU per tile $(median "${RATIO[@]}") (1.0: the same), wall tiles/s throughput $(median "${FASTW[@]}"), batch $(median "${BATCHW[@]}")"
