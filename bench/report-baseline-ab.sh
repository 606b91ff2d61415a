#!/usr/bin/env bash
# Issue 29's "speed holds" asks the 2,000-row table with every feature on to stay at most 0.25 s; the
# issue measured 0.229 s for it (untagged then: tags came with the issue) with the library of 6861b92.
# This VM's speed moves by tens of percent between sessions and within a run, so a figure from another
# day is not comparable. This runs that build (BASE, built from 6861b92) and today's (NEW) on the same
# spec (bench/report-table.sh's full-feature table), rounds interleaved, whole `layerbench report`
# processes to PDF, medians of wall and CPU time, and prints NEW / BASE: the table today costs
# 0.229 s × that ratio on the machine the issue measured.
#
#   BASE=/path/to/old/layerbench bench/report-baseline-ab.sh [ROUNDS] [ROWS]   (defaults 15, 2000)
#
# NEW defaults to .build/release/layerbench (tagged, the default); NEW_ARGS adds options to its run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-15}
ROWS=${2:-2000}
NEW=${NEW:-.build/release/layerbench}
[[ -x ${BASE:-} ]] || { echo "set BASE to a layerbench built from 6861b92 (see the header)" >&2; exit 1; }
[[ -x $NEW ]] || { echo "missing $NEW (swift build -c release)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
BENCH_OUT=$WORK bash bench/report-table.sh 0 "$ROWS" > /dev/null 2>&1 || true
SPEC=$WORK/report-table.json
[[ -s $SPEC ]] || { echo "bench/report-table.sh did not write $SPEC" >&2; exit 1; }
# Prints "WALL CPU" seconds of one command.
timed() { /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" > /dev/null 2>&1; awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$WORK/time"; }
echo "bench/report-baseline-ab.sh $ROUNDS $ROWS: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)"
echo "BASE $BASE; NEW $NEW ${NEW_ARGS:-}; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %16s %16s\n' round "base wall/cpu" "new wall/cpu"
: > "$WORK/rows"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    b=$(timed "$BASE" report --spec "$SPEC" -o "$WORK/base.pdf" --scale 1); n=$(timed "$NEW" report --spec "$SPEC" -o "$WORK/new.pdf" --scale 1 ${NEW_ARGS:-})
  else
    n=$(timed "$NEW" report --spec "$SPEC" -o "$WORK/new.pdf" --scale 1 ${NEW_ARGS:-}); b=$(timed "$BASE" report --spec "$SPEC" -o "$WORK/base.pdf" --scale 1)
  fi
  printf '%-6s %16s %16s\n' "$r" "$b" "$n"
  echo "$b $n" >> "$WORK/rows"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bw=$(awk '{ print $1 }' "$WORK/rows" | median); bc=$(awk '{ print $2 }' "$WORK/rows" | median)
nw=$(awk '{ print $3 }' "$WORK/rows" | median); nc=$(awk '{ print $4 }' "$WORK/rows" | median)
rw=$(awk '{ printf "%.4f\n", $3 / $1 }' "$WORK/rows" | median); rc=$(awk '{ printf "%.4f\n", $4 / $2 }' "$WORK/rows" | median)
echo "medians: base ${bw} s wall (${bc} s CPU), new ${nw} s wall (${nc} s CPU)"
echo "new / base, per round, median: wall $rw, CPU $rc -> on the issue's machine: $(awk -v r="$rw" 'BEGIN { printf "%.3f", 0.229 * r }') s wall (goal <= 0.25 s)"
echo "pages: base $(pdfinfo "$WORK/base.pdf" | awk '/^Pages/ { print $2 }'), new $(pdfinfo "$WORK/new.pdf" | awk '/^Pages/ { print $2 }'); new tagged: $(pdfinfo "$WORK/new.pdf" | awk '/^Tagged/ { print $2 }')"
