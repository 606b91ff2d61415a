#!/usr/bin/env bash
# Issue 27's shard goal asks `batch --output webdataset` at 2 workers for >= 100% of `throughput --png fast`.
# On 2 cores both commands keep every core busy at 2 workers, so the ratio can be no higher than the
# ratio of CPU time per tile the two spend. This measures that ceiling: CPU seconds (user + system,
# whole process, /usr/bin/time) per tile of each, at 1 worker with the writer thread off (every byte
# of batch's extra work on the one thread), rounds interleaved, medians; then the same at 2 workers
# (writer thread as `auto` chooses) for the wall-clock ratio beside it.
#
#   bench/shards-cpu.sh [ROUNDS] [TILES]      (defaults 7 rounds, 10000 tiles)
#
# LAYERBENCH=path measures another build. Output goes under OUT_ROOT (default $TMPDIR or /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-7}
TILES=${2:-10000}
LB=${LAYERBENCH:-.build/release/layerbench}
[[ -x $LB ]] || { echo "missing $LB (swift build -c release)" >&2; exit 1; }
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
WORK=$(mktemp -d "${OUT_ROOT:-${TMPDIR:-/tmp}}/shards-cpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)
# Prints "CPU_SECONDS WALL_SECONDS" of one command.
timed() { /usr/bin/time -f '%U %S %e' -o "$WORK/time" "$@" > /dev/null 2>&1; awk '{ printf "%.3f %.3f", $1 + $2, $3 }' "$WORK/time"; }
throughput() { timed "$LB" throughput --text "$TEXT" "${TILE[@]}" --tiles $((TILES / $1)) --workers "$1" --png fast; }
batch() {
  local out
  out=$(mktemp -d "$WORK/out.XXXXXX")
  timed "$LB" batch --input "$WORK/lines.jsonl" --out-dir "$out" --workers "$1" --progress-interval 0 --no-resume \
    "${TILE[@]}" --output webdataset "${@:2}"
}
echo "bench/shards-cpu.sh $ROUNDS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $LB"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-6s %22s %22s %22s %22s\n' round "throughput 1w cpu/wall" "webdataset 1w(off)" "throughput 2w" "webdataset 2w"
declare -a C1 B1 C2 B2
for ((r = 1; r <= ROUNDS; r++)); do
  t1=$(throughput 1); b1=$(batch 1 --write-thread off); t2=$(throughput 2); b2=$(batch 2)
  printf '%-6s %22s %22s %22s %22s\n' "$r" "$t1" "$b1" "$t2" "$b2"
  C1+=("$t1"); B1+=("$b1"); C2+=("$t2"); B2+=("$b2")
  rm -rf "$WORK"/out.*
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratios() { # $1 $2: names of arrays; $3: field (1 cpu, 2 wall); prints per-round A/B
  local -n a=$1 b=$2
  for ((i = 0; i < ${#a[@]}; i++)); do
    awk -v x="${a[$i]}" -v y="${b[$i]}" -v f="$3" 'BEGIN { split(x, p, " "); split(y, q, " "); printf "%.4f\n", p[f] / q[f] }'
  done
}
cpu1=$(ratios C1 B1 1 | median); wall2=$(ratios C2 B2 2 | median); cpu2=$(ratios C2 B2 1 | median)
echo "CPU per tile, 1 worker: throughput / webdataset (writer off) = $cpu1 (the ceiling for webdataset / throughput at 2 workers on 2 cores)"
echo "2 workers: webdataset / throughput by wall time = $wall2; by CPU = $cpu2"
