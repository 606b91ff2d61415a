#!/usr/bin/env bash
# Goal 4 of issue 28 in adjacent pairs: each round runs `throughput --png fast` (1 worker), then each batch
# build given (1 worker, one file per tile), then `--png fast` again; a batch run's ratio is its rate over
# the mean of the two `--png fast` runs beside it (both rates after each worker's first tile). Medians and
# quartiles over the rounds.
#
#   ROUNDS=11 TILES=8000 OUTROOT=/tmp bench/batch-pair.sh "NAME|ENV|ARGS|BINARY" ...
#
# Each variant is NAME, extra environment (VAR=value ...), extra batch arguments, and the layerbench binary
# (default LB, .build/release/layerbench); e.g. "new||" "base|||/tmp/lb-236ded7". `--png fast` always runs
# LB. This VM's speed drifts by tens of per cent within seconds, so a batch run is compared with the runs
# right beside it. Outputs stay until the end (bench/fs-settle.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-11}; TILES=${TILES:-8000}; LB=${LB:-$PWD/.build/release/layerbench}; OUTROOT=${OUTROOT:-/tmp}
(($# > 0)) || { echo "usage: bench/batch-pair.sh \"NAME|ENV|ARGS|BINARY\" ..." >&2; exit 2; }
on_disk() { [[ $(stat -f -c %T "$OUTROOT") != tmpfs ]]; }
if on_disk; then bench/fs-settle.sh wait; fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/batch-pair.XXXXXX")
OUTS=$(mktemp -d "$OUTROOT/batch-pair-out.XXXXXX")
trap 'rm -rf "$WORK" "$OUTS"; if on_disk; then bench/fs-settle.sh mark; fi' EXIT
TEXT="The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$TEXT"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)
echo "bench/batch-pair.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), LB=$LB, out $OUTROOT, $ROUNDS rounds x $TILES tiles"
fast() { "$LB" throughput --text "$TEXT" "${TILE[@]}" --tiles "$TILES" --workers 1 --png fast 2>&1 | grep -oE '[0-9.]+ tiles/s' | head -1 | cut -d' ' -f1; }
declare -A R
for ((r = 1; r <= ROUNDS; r++)); do
  f1=$(fast)
  for v in "$@"; do
    IFS='|' read -r name envs args bin <<< "$v"
    out=$(mktemp -d "$OUTS/out.XXXXXX")
    # shellcheck disable=SC2086 # ENV and ARGS are word lists
    x=$(env $envs "${bin:-$LB}" batch --input "$WORK/lines.jsonl" --out-dir "$out" --workers 1 --progress-interval 0 \
      --no-resume "${TILE[@]}" $args 2>&1 | grep -oE '[0-9]+ tiles/s after' | cut -d' ' -f1)
    R[$name]+="$x "
  done
  f2=$(fast); R[fast]+="$f1 $f2 "
  line="round $r: fast $f1 $f2"
  for v in "$@"; do
    name=${v%%|*}; x=$(echo ${R[$name]} | awk '{ print $NF }')
    ratio=$(awk -v x="$x" -v a="$f1" -v b="$f2" 'BEGIN { printf "%.3f", 2 * x / (a + b) }')
    R[r$name]+="$ratio "; line+=", $name $x ($ratio)"
  done
  echo "$line"
done
q() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)
  printf "%.3f (q1-q3 %.3f-%.3f, n=%d)", m, v[int((NR + 3) / 4)], v[NR + 1 - int((NR + 3) / 4)], NR }'; }
echo "fast tiles/s: $(q "${R[fast]}")"
for v in "$@"; do name=${v%%|*}; echo "$name: tiles/s $(q "${R[$name]}"), ratio to the fast runs beside it $(q "${R[r$name]}")"; done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
