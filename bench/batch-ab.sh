#!/usr/bin/env bash
# Two builds' `layerbench batch` side by side against `throughput --png fast`, in one command,
# interleaved round by round (the order of the three runs alternates), medians of per-round ratios:
#
#   bench/batch-ab.sh [ROUNDS] [TILES]      (defaults 9 rounds, 1500 tiles per run)
#
#   A=path (default /tmp/layerbench-main: copy main's release build there) and B=path (default
#   .build/release/layerbench) are the two builds; throughput runs from B (its code is the same on
#   both sides unless the A/B is about it). WORKERS=N (default 1) and BATCH_ARGS="--output webdataset"
#   choose the batch runs; A_ARGS and B_ARGS add options to one side only (an A/B of one build's
#   options: A=B=.build/release/layerbench B_ARGS="--write-thread on"). The tile and lines are
#   bench/issue28.sh's.
#
# Per run it prints the rate after each worker's first tile (batch's "tiles/s after each worker's
# first tile", throughput's own), the whole command's rate (TILES / wall time), and from
# /usr/bin/time the system seconds and voluntary context switches (a worker or writer that sleeps).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-9}
TILES=${2:-1500}
WORKERS=${WORKERS:-1}
A=${A:-/tmp/layerbench-main}
B=${B:-.build/release/layerbench}
for binary in "$A" "$B"; do [[ -x $binary ]] || { echo "missing $binary" >&2; exit 1; }; done
TEXT=${TEXT:-"The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast."}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/batch-ab.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
escaped=${TEXT//\\/\\\\}
escaped=${escaped//\"/\\\"}
for ((i = 0; i < TILES; i++)); do printf '{"id": "t%07d", "text": "%s"}\n' "$i" "$escaped"; done > "$WORK/lines.jsonl"
TILE=(--font "Sans 14" --width 375 --height 120 --scale 2 --padding 8 --bg white)

now() { date +%s.%N; }
whole() { awk -v n="$TILES" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", n / (b - a) }'; }
# Each prints "RATE WHOLE SYS VCS".
timed() {
  local start end rate
  start=$(now)
  /usr/bin/time -f 'TIME %S %w' -o "$WORK/time" "$@" > "$WORK/log" 2>&1
  end=$(now)
  if grep -q 'failed, ' "$WORK/log"; then
    rate=$(grep -oE '[0-9]+ tiles/s after' "$WORK/log" | awk '{ print $1 }')
  else
    rate=$(grep -oE '[0-9.]+ tiles/s' "$WORK/log" | head -1 | awk '{ print $1 }')
  fi
  echo "$rate $(whole "$start" "$end") $(awk '/^TIME/ { print $2, $3 }' "$WORK/time")"
}
throughput() { timed "$B" throughput --text "$TEXT" "${TILE[@]}" --tiles $((TILES / WORKERS)) --workers "$WORKERS" --png fast; }
# Each batch run writes into a directory of its own (see the note in bench/issue28.sh); all are
# removed at the end.
batch() {
  local binary=$1
  shift
  timed "$binary" batch --input "$WORK/lines.jsonl" --out-dir "$(mktemp -d "$WORK/out.XXXXXX")" --workers "$WORKERS" \
    --progress-interval 0 --no-resume "${TILE[@]}" ${BATCH_ARGS:-} "$@"
}

echo "bench/batch-ab.sh $ROUNDS $TILES: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), A $A, B $B, $WORKERS worker(s)${BATCH_ARGS:+, batch $BATCH_ARGS}${A_ARGS:+, A $A_ARGS}${B_ARGS:+, B $B_ARGS}"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-5s %26s %26s %26s\n' round "fast (rate whole sys vcs)" "batch A" "batch B"
declare -a T A_ B_ TW AW BW
for ((r = 1; r <= ROUNDS; r++)); do
  case $((r % 3)) in
    1) t=$(throughput); a=$(batch "$A" ${A_ARGS:-}); b=$(batch "$B" ${B_ARGS:-}) ;;
    2) b=$(batch "$B" ${B_ARGS:-}); t=$(throughput); a=$(batch "$A" ${A_ARGS:-}) ;;
    0) a=$(batch "$A" ${A_ARGS:-}); b=$(batch "$B" ${B_ARGS:-}); t=$(throughput) ;;
  esac
  printf '%-5s %26s %26s %26s\n' "$r" "$t" "$a" "$b"
  read -r t1 t2 _ <<< "$t"; read -r a1 a2 _ <<< "$a"; read -r b1 b2 _ <<< "$b"
  T+=("$t1"); A_+=("$a1"); B_+=("$b1"); TW+=("$t2"); AW+=("$a2"); BW+=("$b2")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratios() { local -n x=$1 y=$2; for ((k = 0; k < ${#x[@]}; k++)); do awk -v p="${x[k]}" -v q="${y[k]}" 'BEGIN { printf "%.3f\n", p / q }'; done; }
summary() { local values; mapfile -t values < <(ratios "$1" "$2"); printf '%s (range %s-%s)' "$(median "${values[@]}")" \
  "$(printf '%s\n' "${values[@]}" | sort -g | head -1)" "$(printf '%s\n' "${values[@]}" | sort -g | tail -1)"; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "batch A / fast: $(summary A_ T)   whole commands: $(summary AW TW)"
echo "batch B / fast: $(summary B_ T)   whole commands: $(summary BW TW)"
echo "batch B / A:    $(summary B_ A_)   whole commands: $(summary BW AW)"
