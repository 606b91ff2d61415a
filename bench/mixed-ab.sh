#!/usr/bin/env bash
# Issue 28, goal 3, two builds side by side: `throughput --workload mixed` at 1 and 2 workers for a
# base build and a new one, interleaved round by round (the order of builds and of worker counts
# alternates), so that drift in the machine's speed hits both alike. Per run: tiles/s over the timed
# part, as layerbench prints it. Per build and round: marginal CPU ms per tile at 1 and 2 workers
# (perf stat task-clock of a TILES run minus a 100-tile run, over the extra tiles; equal when no work
# is slower on two) and the 2 ÷ 1 ratio of tiles/s. Medians over rounds at the end.
#
#   bench/mixed-ab.sh BASE_LAYERBENCH [NEW_LAYERBENCH] [ROUNDS] [TILES]   (defaults: .build/release/layerbench, 7, 1500)
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: bench/mixed-ab.sh BASE_LAYERBENCH [NEW_LAYERBENCH] [ROUNDS] [TILES]}
NEW=${2:-.build/release/layerbench}
ROUNDS=${3:-7}
TILES=${4:-1500}
SHORT=100
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mixed-ab.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Prints "rate cpu_seconds" of one run.
run() {
  perf stat -x, -e task-clock -o "$WORK/stat" "$1" throughput --workload mixed --workers "$2" --tiles "$3" > "$WORK/out" 2>&1
  echo "$(grep -oE '[0-9.]+ tiles/s' "$WORK/out" | head -1 | awk '{ print $1 }') $(awk -F, '$3 == "task-clock" { print $1 / 1000 }' "$WORK/stat")"
}
# Prints "rate cpu_ms_per_tile" for build $1 at $2 workers.
measure() {
  local short long
  short=$(run "$1" "$2" "$SHORT")
  long=$(run "$1" "$2" "$TILES")
  awk -v s="$short" -v l="$long" -v w="$2" -v n=$((TILES - SHORT)) 'BEGIN {
    split(s, a, " "); split(l, b, " "); printf "%s %.4f\n", b[1], (b[2] - a[2]) * 1000 / (n * w) }'
}
echo "bench/mixed-ab.sh $ROUNDS rounds, $TILES tiles: $(date -u '+%Y-%m-%d %H:%M UTC'), base $BASE, new $NEW (worktree at $(git rev-parse --short HEAD))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-5s | %-34s | %-34s\n' round "base: 1w t/s cpu-ms, 2w t/s cpu-ms, 2/1" "new: 1w t/s cpu-ms, 2w t/s cpu-ms, 2/1"
: > "$WORK/rows"
for ((r = 1; r <= ROUNDS; r++)); do
  declare -A row=()
  if ((r % 2)); then order=(base new); else order=(new base); fi
  for build in "${order[@]}"; do
    binary=$BASE
    [[ $build == new ]] && binary=$NEW
    if ((r % 2)); then one=$(measure "$binary" 1); two=$(measure "$binary" 2); else two=$(measure "$binary" 2); one=$(measure "$binary" 1); fi
    row[$build]=$(awk -v a="$one" -v b="$two" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%s %s %s %s %.3f", x[1], x[2], y[1], y[2], y[1] / x[1] }')
  done
  echo "${row[base]} ${row[new]}" >> "$WORK/rows"
  printf '%-5s | %-34s | %-34s\n' "$r" "${row[base]}" "${row[new]}"
done
median() { awk -v f="$1" '{ print $f }' "$WORK/rows" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf '%-5s | %-34s | %-34s\n' median "$(median 1) $(median 2) $(median 3) $(median 4) $(median 5)" \
  "$(median 6) $(median 7) $(median 8) $(median 9) $(median 10)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ print $6 / $1, $7 / $2, $9 / $4, $10 / $5 }' "$WORK/rows" > "$WORK/ratios"
median_of() { awk -v f="$1" '{ print $f }' "$WORK/ratios" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "new / base, medians of the rounds' ratios: 1-worker tiles/s $(median_of 1), 1-worker CPU per tile $(median_of 2), 2-worker CPU per tile $(median_of 3), goal-3 ratio $(median_of 4)"
echo "CPU per tile, 2 workers / 1 worker (medians of rounds): base $(awk '{ printf "%.3f\n", $4 / $2 }' "$WORK/rows" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'), new $(awk '{ printf "%.3f\n", $9 / $7 }' "$WORK/rows" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')"
echo "goal 3 (2 workers / 1 worker, tiles/s, >= 1.85), medians: base $(median 5), new $(median 10)"
