#!/usr/bin/env bash
# One layerbench build on two cairo libraries (issue 29, goal 6: would a newer cairo make the tagged PDF
# fast enough?): the system's libcairo.so.2 and another one in CAIRO_LIB (a folder holding libcairo.so.2,
# e.g. a cairo 1.18 built from source into /tmp; nothing of it is part of the project), selected with
# LD_LIBRARY_PATH. bench/report-table.sh's full 2,000-row table, tagged (the default) and with
# "tagged": false, each cairo in turn, round by round, so that a slow spell of the machine hits both.
# Prints which libcairo each side loaded (LD_DEBUG=libs), every run (wall and CPU of the whole process,
# /usr/bin/time) and the medians, the load average at the start and the end, and compares the two
# sides' PDFs: `pdfinfo -struct-text`, `pdftotext -layout`, page count, `qpdf --check`. With CALLGRIND=1,
# also each side's instruction count (whole process, valgrind --tool=callgrind), tagged and untagged,
# which does not depend on the load; the callgrind files stay in the output folder for callgrind_annotate.
#   CAIRO_LIB=/tmp/cairo/lib bench/report-cairo-ab.sh LAYERBENCH [ROUNDS (default 7)] [ROWS (default 2000)]
# Output directory: $BENCH_OUT (default bench/out/cairo-ab); raw lines are printed, keep them with tee.
set -euo pipefail
bin=${1:?usage: CAIRO_LIB=DIR bench/report-cairo-ab.sh LAYERBENCH [ROUNDS] [ROWS]}
lib=${CAIRO_LIB:?set CAIRO_LIB to the folder holding the other libcairo.so.2}
rounds=${2:-7}
rows=${3:-2000}
out=${BENCH_OUT:-bench/out/cairo-ab}
mkdir -p "$out"
rm -f "$out"/system-*.pdf "$out"/other-*.pdf  # a PDF left by an earlier run must not pass for this one's
[[ -e $lib/libcairo.so.2 ]] || { echo "error: $lib/libcairo.so.2 does not exist" >&2; exit 1; }
for tool in pdfinfo pdftotext qpdf /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "error: $tool is missing (make deps)" >&2; exit 1; }
done
# The specs: report-table.sh writes the full one; the untagged one differs by "tagged": false alone.
BENCH_OUT="$out" LAYERBENCH=/bin/true bash "$(dirname "$0")/report-table.sh" 0 "$rows" > /dev/null
python3 - "$out/report-table.json" "$out/untagged.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["tagged"] = False
json.dump(spec, open(sys.argv[2], "w"))
PY
# Runs layerbench on one side: "system" (LD_LIBRARY_PATH unset) or "other" (CAIRO_LIB first).
run_side() {
  local side=$1
  shift
  if [[ $side == other ]]; then
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
  else
    env -u LD_LIBRARY_PATH "$@"
  fi
}
echo "started   $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
echo "layerbench $bin"
echo "other     $lib"
for side in system other; do
  # The dynamic loader names every library it initializes; pangocairo and librsvg link libcairo.so.2 by
  # its soname, so the one loaded is the one they use (a process has one libcairo.so.2).
  loaded=$(run_side "$side" env LD_DEBUG=libs "$bin" report --spec "$out/untagged.json" -o "$out/ldcheck.pdf" 2>&1 \
    > /dev/null | grep -o 'calling init: [^ ]*libcairo[^ ]*' | sort -u | sed 's/calling init: //' | tr '\n' ' ')
  echo "loaded    $side: $loaded"
done
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
echo "raw: round side spec: wall s, CPU s (user+sys), peak RSS KB"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$out/.times"
for round in $(seq "$rounds"); do
  for side in system other; do
    for spec in tagged untagged; do
      file="$out/report-table.json"
      [[ $spec == untagged ]] && file="$out/untagged.json"
      # A failed run is timed and reported too (cairo 1.18 writes files our PDF rewrite refuses, after
      # cairo has done all of its work): its line says so and names the error.
      status=0
      run_side "$side" /usr/bin/time -f "%e %U %S %M" -o "$out/.time" "$bin" report --spec "$file" \
        -o "$out/$side-$spec.pdf" > /dev/null 2> "$out/.stderr" || status=$?
      read -r wall user sys rss < <(tail -n 1 "$out/.time")
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      failed=""
      [[ $status != 0 ]] && failed="  FAILED (exit $status): $(grep -v '^Command exited' "$out/.stderr" | head -n 1)"
      printf '%d %-6s %-8s %s s  %s s CPU  %s KB%s\n' "$round" "$side" "$spec" "$wall" "$cpu" "$rss" "$failed"
      echo "$side $spec $wall $cpu" >> "$out/.times"
    done
  done
done
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "medians of $rounds rounds (wall / CPU):"
for spec in tagged untagged; do
  line="  $spec:"
  for side in system other; do
    wall=$(awk -v b="$side" -v s="$spec" '$1 == b && $2 == s { print $3 }' "$out/.times" | median)
    cpu=$(awk -v b="$side" -v s="$spec" '$1 == b && $2 == s { print $4 }' "$out/.times" | median)
    line+=" $side ${wall} s / ${cpu} s;"
  done
  echo "$line"
done
rm -f "$out/.times" "$out/.time" "$out/.stderr" "$out/ldcheck.pdf"
echo
echo "the PDFs of both sides:"
for spec in tagged untagged; do
  for side in system other; do
    pdf="$out/$side-$spec.pdf"
    if [[ ! -s $pdf ]]; then
      echo "  $side $spec: no PDF written" > "$out/$side-$spec.struct.txt"
      : > "$out/$side-$spec.txt"
      echo "  $side $spec: no PDF written"
      continue
    fi
    pdfinfo -struct-text "$pdf" > "$out/$side-$spec.struct.txt" 2> /dev/null || true
    pdftotext -layout "$pdf" "$out/$side-$spec.txt"
    pages=$(pdfinfo "$pdf" | awk '/^Pages:/ { print $2 }')
    tagged=$(pdfinfo "$pdf" | awk '/^Tagged:/ { print $2 }')
    version=$(pdfinfo "$pdf" | awk '/^PDF version:/ { print $3 }')
    # qpdf --check exits 0 when clean, 3 with warnings, 2 with errors.
    qpdf_status=0
    qpdf --check "$pdf" > "$out/$side-$spec.qpdf.txt" 2>&1 || qpdf_status=$?
    echo "  $side $spec: $pages pages, PDF $version, tagged $tagged, $(wc -c < "$pdf") bytes," \
      "$(wc -l < "$out/$side-$spec.struct.txt") structure lines, qpdf --check exit $qpdf_status (0: clean)"
  done
  cmp -s "$out/system-$spec.struct.txt" "$out/other-$spec.struct.txt" \
    && echo "  $spec pdfinfo -struct-text: identical" || echo "  $spec pdfinfo -struct-text: DIFFERENT"
  cmp -s "$out/system-$spec.txt" "$out/other-$spec.txt" \
    && echo "  $spec pdftotext -layout: identical" || echo "  $spec pdftotext -layout: DIFFERENT"
done
if [[ ${CALLGRIND:-0} == 1 ]]; then
  echo
  echo "instructions (callgrind, whole process):"
  for spec in tagged untagged; do
    file="$out/report-table.json"
    [[ $spec == untagged ]] && file="$out/untagged.json"
    for side in system other; do
      status=0
      run_side "$side" valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$side-$spec" "$bin" report \
        --spec "$file" -o "$out/callgrind-$side-$spec.pdf" > /dev/null 2> "$out/callgrind-$side-$spec.log" || status=$?
      echo "  $spec $side: $(grep -o 'Collected : [0-9]*' "$out/callgrind-$side-$spec.log" | awk '{ print $3 }')" \
        "(exit $status)"
    done
  done
fi
