#!/usr/bin/env bash
# Marginal instructions per tile by thread (callgrind --separate-threads=yes, 1 worker, between N1
# and N2 tiles): throughput --png fast's worker against batch's worker and writer thread (files:
# --write-thread auto, i.e. on at 1 worker of 2 cores; tar files: the worker does all), and the
# largest per-function differences between batch's worker and throughput's.
#
#   bench/batch-callgrind-threads.sh [N1] [N2]      (defaults 50 and 550)
#
# User-space instructions only: system calls (file writes, futex wakes) are not counted, and
# valgrind hides the CPU's SHA instructions, so SHA-256 runs its portable rounds here. LAYERBENCH=path
# measures another build.
set -euo pipefail
cd "$(dirname "$0")/.."
LB=${LAYERBENCH:-$PWD/.build/release/layerbench}
N1=${1:-50}
N2=${2:-550}
HEAD_COMMIT=$(git rev-parse --short HEAD)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)
for n in $N1 $N2; do for ((i = 0; i < n; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > l$n.jsonl; done
echo "bench/batch-callgrind-threads.sh $N1 $N2: $(date -u '+%Y-%m-%d %H:%M UTC'), $LB (worktree at $HEAD_COMMIT)"
# Runs one command under callgrind into directory $1; prints each thread's total Ir, largest first.
run() {
  local dir=$1
  shift
  mkdir -p "$dir"
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/cg.out" "$@" > /dev/null 2>&1
  for f in "$dir"/cg.out-*; do echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$f") $f"; done | sort -rn
}
for kind in throughput files webdataset; do
  for n in $N1 $N2; do
    rm -rf o
    case $kind in
      throughput) run $kind.$n "$LB" throughput --text "$TEXT" "${TILE[@]}" --tiles $n --workers 1 --png fast > $kind.$n.threads ;;
      files) run $kind.$n "$LB" batch --input l$n.jsonl --out-dir o --workers 1 --progress-interval 0 --no-resume "${TILE[@]}" > $kind.$n.threads ;;
      webdataset) run $kind.$n "$LB" batch --input l$n.jsonl --out-dir o --workers 1 --progress-interval 0 --no-resume "${TILE[@]}" --output webdataset > $kind.$n.threads ;;
    esac
  done
  # The worker is the thread with the most instructions; the writer, if any, the second.
  worker=$(awk -v n=$((N2 - N1)) 'NR == FNR { if (FNR == 1) a = $1; next } FNR == 1 { printf "%.3f", ($1 - a) / n / 1e6 }' $kind.$N1.threads $kind.$N2.threads)
  second=$(awk -v n=$((N2 - N1)) 'NR == FNR { if (FNR == 2) a = $1; next } FNR == 2 { printf "%.3f", ($1 - a) / n / 1e6 }' $kind.$N1.threads $kind.$N2.threads)
  echo "$kind: worker $worker M instructions per tile; next thread $second M"
done
# Per function, worker thread, N2 run minus N1 run, per tile: batch (files) minus throughput.
fn() {
  callgrind_annotate --auto=no --inclusive=no --threshold=100 "$(awk 'NR == 1 { print $2 }' "$1")" 2>/dev/null |
    sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +(.*)$/\1\t\2/p' | awk -F'\t' '{ gsub(",", "", $1); print $1 "\t" $2 }'
}
per_tile() { join -t $'\t' -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 <(fn "$1" | sort -t $'\t' -k2) <(fn "$2" | sort -t $'\t' -k2) | awk -F'\t' -v n=$((N2 - N1)) '{ printf "%.0f\t%s\n", ($3 - $2) / n, $1 }'; }
per_tile throughput.$N1.threads throughput.$N2.threads | sort -t $'\t' -k2 > t.fn
per_tile files.$N1.threads files.$N2.threads | sort -t $'\t' -k2 > f.fn
echo "batch (files) worker minus throughput's worker, largest differences (instructions per tile):"
join -t $'\t' -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 t.fn f.fn | awk -F'\t' '{ d = $3 - $2; if (d > 300 || d < -300) printf "%8d  %s\n", d, substr($1, 1, 140) }' | sort -rn > diff.fn
head -20 diff.fn
echo "  ..."
tail -10 diff.fn
