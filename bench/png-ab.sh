#!/usr/bin/env bash
# Interleaved wall-clock A/B of the PNG path: two layerbench builds, `throughput --png none` and
# `--png fast` on the benchmark tile (1 worker), round by round in alternating order; prints every
# round and the medians of tiles/s, goal 1's ratio (fast / none) for each build, and B / A for
# `--png fast`. Wall clock on a shared machine moves ±30% between runs: read the load averages.
#
#   bench/png-ab.sh A_LAYERBENCH B_LAYERBENCH [ROUNDS] [TILES]     (defaults 7 rounds, 3000 tiles)
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:?usage: bench/png-ab.sh A_LAYERBENCH B_LAYERBENCH [ROUNDS] [TILES]}
B=${2:?usage: bench/png-ab.sh A_LAYERBENCH B_LAYERBENCH [ROUNDS] [TILES]}
ROUNDS=${3:-7}
TILES=${4:-3000}
TEXT=${TEXT:-"The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."}
TILE=(--text "$TEXT" --font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white --workers 1 --tiles "$TILES")
rate() { "$1" throughput "${TILE[@]}" --png "$2" 2>&1 | grep -oE '[0-9.]+ tiles/s' | head -1 | awk '{ print $1 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "bench/png-ab.sh $ROUNDS rounds x $TILES tiles: $(date -u '+%Y-%m-%d %H:%M UTC'); A $A; B $B"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-6s %10s %10s %10s %10s\n' round A-none A-fast B-none B-fast
declare -a AN AF BN BF
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    an=$(rate "$A" none); af=$(rate "$A" fast); bn=$(rate "$B" none); bf=$(rate "$B" fast)
  else
    bf=$(rate "$B" fast); bn=$(rate "$B" none); af=$(rate "$A" fast); an=$(rate "$A" none)
  fi
  AN+=("$an"); AF+=("$af"); BN+=("$bn"); BF+=("$bf")
  printf '%-6s %10s %10s %10s %10s\n' "$r" "$an" "$af" "$bn" "$bf"
done
an=$(printf '%s\n' "${AN[@]}" | median); af=$(printf '%s\n' "${AF[@]}" | median)
bn=$(printf '%s\n' "${BN[@]}" | median); bf=$(printf '%s\n' "${BF[@]}" | median)
printf '%-6s %10s %10s %10s %10s\n' median "$an" "$af" "$bn" "$bf"
# Per-round ratios too: each round's pair ran side by side.
fa=$(for ((r = 0; r < ROUNDS; r++)); do awk -v x="${AF[r]}" -v y="${AN[r]}" 'BEGIN { printf "%.4f\n", x / y }'; done | median)
fb=$(for ((r = 0; r < ROUNDS; r++)); do awk -v x="${BF[r]}" -v y="${BN[r]}" 'BEGIN { printf "%.4f\n", x / y }'; done | median)
ba=$(for ((r = 0; r < ROUNDS; r++)); do awk -v x="${BF[r]}" -v y="${AF[r]}" 'BEGIN { printf "%.4f\n", x / y }'; done | median)
echo "goal 1 (fast / none), median of the rounds' ratios: A $fa, B $fb; --png fast B / A: $ba"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
