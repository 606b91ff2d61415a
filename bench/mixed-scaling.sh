#!/usr/bin/env bash
# Why two workers are not twice one on the mixed workload (issue 28, goal 3): separates waiting
# (wall time with a core idle: locks, the kernel, the scheduler) from slower work (more CPU per
# tile: shared caches, memory bandwidth, another VM on the host's core), in one command.
#
#   bench/mixed-scaling.sh [ROUNDS] [TILES]      (defaults 5 rounds, 1500 tiles per worker)
#
# Each configuration runs twice per round, with 100 and TILES tiles per worker, under `perf stat`;
# the differences (wall, CPU time of all threads, context switches) divided by the difference in
# tiles are the marginal cost of a tile, warm-up and start-up cancelled out. Rounds interleave 1 and 2
# workers (order alternating), medians over rounds. For each: tiles/s over the timed part as
# layerbench prints it, marginal CPU ms per tile, CPU busy = CPU seconds ÷ wall seconds (2.00:
# both workers ran all the time) and context switches per tile (waits and preemptions). The C pangocairo loop (1 and 2 threads, the
# benchmark tile) is the machine's own ceiling for the same kind of work.
# The marginal figures need a quiet machine and many tiles: the 240-tile warm-up per worker varies
# in CPU time from run to run, and at a load average of 9-11 (2026-11-26 09:21 UTC, 400 tiles) one
# round gave 1.88 ms per tile on one worker and 0.37 ms on two, which is that variation, not the
# work. LAYERBENCH=path measures another build. Needs `make bench-c` and a release layerbench.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
TILES=${2:-1500}
SHORT=100
LB=${LAYERBENCH:-.build/release/layerbench}
C_BIN=bench/out/pango_reference
for binary in "$C_BIN" "$LB"; do
  [[ -x $binary ]] || { echo "missing $binary (run make bench-c and swift build -c release)" >&2; exit 1; }
done
((TILES > SHORT)) || { echo "TILES must be more than $SHORT" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mixed-scaling.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Runs "$@" under `perf stat` (software counters, which this VM has): prints "rate wall cpu cs",
# tiles/s as the program printed it, wall seconds, CPU seconds (task-clock, all threads) and
# context switches.
timed() {
  local start end
  start=$(date +%s.%N)
  perf stat -x, -e task-clock,context-switches -o "$WORK/stat" "$@" > "$WORK/out" 2>&1
  end=$(date +%s.%N)
  local rate
  rate=$(grep -oE '[0-9.]+ tiles/s' "$WORK/out" | head -1 | awk '{ print $1 }')
  awk -F, -v r="$rate" -v s="$start" -v e="$end" '
    $3 == "task-clock" { cpu = $1 / 1000 } $3 == "context-switches" { cs = $1 }
    END { printf "%s %.4f %.4f %d\n", r, e - s, cpu, cs }' "$WORK/stat"
}
mixed() { timed "$LB" throughput --workload mixed --workers "$1" --tiles "$2"; }
# The C loop's tiles are ~8x cheaper: 8x as many, for differences well above the noise.
c_loop() { timed "$C_BIN" --threads "$1" --tiles $(($2 * 8)); }

# One configuration's marginal figures: "rate cpu_ms_per_tile busy switches_per_tile".
marginal() {
  local kind=$1 workers=$2 short long scale=1
  [[ $kind == c_loop ]] && scale=8
  short=$("$kind" "$workers" "$SHORT")
  long=$("$kind" "$workers" "$TILES")
  awk -v s="$short" -v l="$long" -v w="$workers" -v n=$(((TILES - SHORT) * scale)) 'BEGIN {
    split(s, a, " "); split(l, b, " ")
    wall = b[2] - a[2]; cpu = b[3] - a[3]
    printf "%s %.3f %.2f %.2f\n", b[1], cpu * 1000 / (n * w), (wall > 0 ? cpu / wall : 0), (b[4] - a[4]) / (n * w)
  }'
}

echo "bench/mixed-scaling.sh $ROUNDS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $LB"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-5s | %-26s | %-26s | %-26s | %-26s\n' round "mixed 1 worker" "mixed 2 workers" "C 1 thread" "C 2 threads"
printf '%-5s | %-26s | %-26s | %-26s | %-26s\n' "" "tiles/s cpu-ms busy cs/tile" "tiles/s cpu-ms busy cs/tile" \
  "tiles/s cpu-ms busy cs/tile" "tiles/s cpu-ms busy cs/tile"
declare -a M1 M2 C1 C2
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    m1=$(marginal mixed 1); m2=$(marginal mixed 2); c1=$(marginal c_loop 1); c2=$(marginal c_loop 2)
  else
    c2=$(marginal c_loop 2); c1=$(marginal c_loop 1); m2=$(marginal mixed 2); m1=$(marginal mixed 1)
  fi
  M1+=("$m1"); M2+=("$m2"); C1+=("$c1"); C2+=("$c2")
  printf '%-5s | %-26s | %-26s | %-26s | %-26s\n' "$r" "$m1" "$m2" "$c1" "$c2"
done
# Median of field $2 of the rows in array $1.
column_median() {
  local -n rows=$1
  printf '%s\n' "${rows[@]}" | awk -v f="$2" '{ print $f }' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
# Median over rounds of the per-round ratio of field $3 of array $1 to field $3 of array $2.
ratio_median() {
  local -n a=$1 b=$2
  for ((k = 0; k < ${#a[@]}; k++)); do
    awk -v x="${a[k]}" -v y="${b[k]}" -v f="$3" 'BEGIN { split(x, p, " "); split(y, q, " "); printf "%.3f\n", p[f] / q[f] }'
  done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
printf '%-5s | %-26s | %-26s | %-26s | %-26s\n' median \
  "$(column_median M1 1) $(column_median M1 2) $(column_median M1 3) $(column_median M1 4)" \
  "$(column_median M2 1) $(column_median M2 2) $(column_median M2 3) $(column_median M2 4)" \
  "$(column_median C1 1) $(column_median C1 2) $(column_median C1 3) $(column_median C1 4)" \
  "$(column_median C2 1) $(column_median C2 2) $(column_median C2 3) $(column_median C2 4)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mixed, 2 workers / 1 worker, tiles/s:       $(ratio_median M2 M1 1)   (goal >= 1.85)"
echo "mixed, CPU per tile, 2 workers / 1 worker:  $(ratio_median M2 M1 2)   (1.00: no work is slower on two)"
echo "C loop, 2 threads / 1 thread, tiles/s:      $(ratio_median C2 C1 1)"
echo "C loop, CPU per tile, 2 threads / 1 thread: $(ratio_median C2 C1 2)"
