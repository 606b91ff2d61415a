#!/usr/bin/env bash
# The cost of our own structure tree (issue 29, goal 6), against cairo's tags and no tags, on
# bench/report-table.sh's full-feature table: one release layerbench, three runs of the same spec —
#   cairo      report --tags cairo (hidden): cairo 1.16's tags and our rewrite of its tree (the
#              default until 2026-11-26);
#   own        the default: drawn untagged with the drawing record, every page marked by
#              PDFContentMarker, our structure tree and parent tree written by the rewrite;
#   untagged   the spec with "tagged": false.
# Instruction counts (valgrind --tool=callgrind, whole process) do not depend on the machine's load;
# the inclusive counts of the new steps come from callgrind_annotate. With ROUNDS > 0, also wall and
# CPU time, interleaved round by round, medians. Checks the own-tagged PDF with qpdf --check, and
# with pypdf (strict) when $PYPDF_PYTHON (a python with pypdf) is set.
#   bench/own-tags-tree.sh [ROWS (default 2000)] [ROUNDS (default 0)]
# Needs a release layerbench ($LAYERBENCH, default .build/release/layerbench). Output: $BENCH_OUT
# (default bench/out/own-tree); keep the printed lines with tee.
set -euo pipefail
rows=${1:-2000}
rounds=${2:-0}
bin=${LAYERBENCH:-.build/release/layerbench}
out=${BENCH_OUT:-bench/out/own-tree}
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
    cairo) "$@" report --spec "$out/report-table.json" -o "$out/$name.pdf" --tags cairo ;;
    own) "$@" report --spec "$out/report-table.json" -o "$out/$name.pdf" ;;
    untagged) "$@" report --spec "$out/untagged.json" -o "$out/$name.pdf" ;;
  esac
}
names="cairo own untagged"
for name in $names; do
  run "$name" valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$name" "$bin" > /dev/null 2> "$out/valgrind.$name"
  total=$(awk '/Collected :/ { print $NF }' "$out/valgrind.$name")
  printf '%-9s %s instructions, %s bytes\n' "$name" "$total" "$(stat -c %s "$out/$name.pdf")"
done
echo
echo "own, inclusive instructions of the new steps (callgrind_annotate --inclusive=yes):"
{ callgrind_annotate --inclusive=yes "$out/callgrind.own" 2> /dev/null || true; } \
  | grep -E 'ownTaggedPDFData|ownMarking|PDFContentMarker|PDFPageContents|ReportDrawingRecord|ReportStructureTree|replacingStructure|printElement|packing|libdeflate_zlib_(de)?compress|unmarkCairoRoot' \
  | sed -n '1,24s/^/  /p' || true
echo
grep -q 'ParentTreeNextKey' <(qpdf --qdf --object-streams=disable "$out/own.pdf" - 2> /dev/null) \
  && echo "own.pdf has our structure tree (/ParentTreeNextKey)" || echo "own.pdf has NOT our tree (fell back to cairo's tags?)"
qpdf --check "$out/own.pdf" > "$out/qpdf.own" 2>&1 && echo "qpdf --check own.pdf: rc 0, $(grep -ci warning "$out/qpdf.own") warnings" \
  || echo "qpdf --check own.pdf: rc $?"
if [[ -n ${PYPDF_PYTHON:-} ]]; then
  "$PYPDF_PYTHON" - "$out/own.pdf" <<'PY'
import sys, warnings, pypdf
warnings.simplefilter("error")
reader = pypdf.PdfReader(sys.argv[1], strict=True)
text = "".join(page.extract_text() for page in reader.pages)
print(f"pypdf {pypdf.__version__} (strict, warnings as errors): {len(reader.pages)} pages, {len(text)} characters")
PY
fi
if ((rounds > 0)); then
  echo
  echo "raw: round name: wall s, CPU s (user+sys)"
  : > "$out/.times"
  for round in $(seq "$rounds"); do
    for name in $names; do
      run "$name" /usr/bin/time -f "%e %U %S" -o "$out/.time" "$bin" > /dev/null
      read -r wall user sys < "$out/.time"
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      printf '%d %-9s %s s  %s s CPU\n' "$round" "$name" "$wall" "$cpu"
      echo "$name $wall $cpu" >> "$out/.times"
    done
  done
  median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  for name in $names; do
    printf 'median of %d %-9s %s s wall, %s s CPU\n' "$rounds" "$name" \
      "$(awk -v n="$name" '$1 == n { print $2 }' "$out/.times" | median)" \
      "$(awk -v n="$name" '$1 == n { print $3 }' "$out/.times" | median)"
  done
  rm -f "$out/.times" "$out/.time"
fi
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the end"
