#!/usr/bin/env bash
# The cost of marking the content ourselves (issue 29, goal 6, first step), against cairo's tags and
# no tags, on bench/report-table.sh's full-feature table: one release layerbench, three runs of the
# same spec —
#   tagged     the default: cairo 1.16's tags and our rewrite of its structure tree;
#   untagged   the spec with "tagged": false;
#   own-mark   the tagged spec with report --probe-own-marking (hidden): drawn untagged with the drawing
#              record on, every page's content stream inflated, marked by PDFContentMarker and
#              deflated again (libdeflate level 1); no structure tree yet, the output thrown away
#              (the untagged PDF is written).
# Instruction counts (valgrind --tool=callgrind, whole process) do not depend on the machine's load;
# the inclusive counts of the new steps come from callgrind_annotate. With ROUNDS > 0, also wall and
# CPU time, interleaved round by round, medians.
#   bench/own-tags-marker.sh [ROWS (default 2000)] [ROUNDS (default 0)]
# Needs a release layerbench ($LAYERBENCH, default .build/release/layerbench). Output: $BENCH_OUT
# (default bench/out/own-tags); keep the printed lines with tee.
set -euo pipefail
rows=${1:-2000}
rounds=${2:-0}
bin=${LAYERBENCH:-.build/release/layerbench}
out=${BENCH_OUT:-bench/out/own-tags}
mkdir -p "$out"
BENCH_OUT="$out" LAYERBENCH=/bin/true bash "$(dirname "$0")/report-table.sh" 0 "$rows" > /dev/null
python3 - "$out/report-table.json" "$out/untagged.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["tagged"] = False
json.dump(spec, open(sys.argv[2], "w"))
PY
echo "started   $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'); rows $rows"
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
run() { # name, then the command
  local name=$1
  shift
  case $name in
    tagged) "$@" report --spec "$out/report-table.json" -o "$out/$name.pdf" ;;
    untagged) "$@" report --spec "$out/untagged.json" -o "$out/$name.pdf" ;;
    own-mark) "$@" report --spec "$out/report-table.json" -o "$out/$name.pdf" --probe-own-marking ;;
  esac
}
for name in tagged untagged own-mark; do
  run "$name" valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$name" "$bin" > /dev/null 2> "$out/valgrind.$name"
  total=$(awk '/Collected :/ { print $NF }' "$out/valgrind.$name")
  printf '%-9s %s instructions\n' "$name" "$total"
done
echo
echo "own-mark, inclusive instructions of the new steps (callgrind_annotate --inclusive=yes):"
{ callgrind_annotate --inclusive=yes "$out/callgrind.own-mark" 2> /dev/null || true; } \
  | grep -E 'ownMarking|PDFContentMarker|PDFPageContents|ReportDrawingRecord|libdeflate_zlib_(de)?compress|PDFContentLexer' \
  | sed -n '1,20s/^/  /p' || true
cmp -s "$out/untagged.pdf" "$out/own-mark.pdf" && echo "own-mark wrote the same bytes as untagged" \
  || echo "own-mark and untagged PDFs differ (creation time?)"
if ((rounds > 0)); then
  echo
  echo "raw: round name: wall s, CPU s (user+sys)"
  : > "$out/.times"
  for round in $(seq "$rounds"); do
    for name in tagged untagged own-mark; do
      run "$name" /usr/bin/time -f "%e %U %S" -o "$out/.time" "$bin" > /dev/null
      read -r wall user sys < "$out/.time"
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      printf '%d %-9s %s s  %s s CPU\n' "$round" "$name" "$wall" "$cpu"
      echo "$name $wall $cpu" >> "$out/.times"
    done
  done
  median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  for name in tagged untagged own-mark; do
    printf 'median of %d %-9s %s s wall, %s s CPU\n' "$rounds" "$name" \
      "$(awk -v n="$name" '$1 == n { print $2 }' "$out/.times" | median)" \
      "$(awk -v n="$name" '$1 == n { print $3 }' "$out/.times" | median)"
  done
  rm -f "$out/.times" "$out/.time"
fi
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the end"
