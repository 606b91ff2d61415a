#!/usr/bin/env bash
# Two layerbench builds side by side on bench/report-table.sh's full 2,000-row table (issue 29, goal 6):
# the tagged PDF (the default) and the same spec with "tagged": false, each build in turn, round by
# round, so that a slow spell of the machine hits both. Prints every run (wall and CPU of the whole
# process, /usr/bin/time) and the medians, the load average at the start and the end, and checks that
# the two builds' tagged PDFs read the same: `pdfinfo -struct-text`, `pdftotext` and the page count
# identical, `qpdf --check` clean. With CALLGRIND=1, also each build's instruction count (whole process,
# valgrind --tool=callgrind, tagged spec), which does not depend on the load.
#   bench/report-tagged-ab.sh BEFORE_LAYERBENCH AFTER_LAYERBENCH [ROUNDS (default 7)] [ROWS (default 2000)]
# Output directory: $BENCH_OUT (default bench/out/tagged-ab); raw lines are printed, keep them with tee.
set -euo pipefail
before=${1:?usage: bench/report-tagged-ab.sh BEFORE_LAYERBENCH AFTER_LAYERBENCH [ROUNDS] [ROWS]}
after=${2:?usage: bench/report-tagged-ab.sh BEFORE_LAYERBENCH AFTER_LAYERBENCH [ROUNDS] [ROWS]}
rounds=${3:-7}
rows=${4:-2000}
out=${BENCH_OUT:-bench/out/tagged-ab}
mkdir -p "$out"
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
echo "started   $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
echo "before    $before"
echo "after     $after"
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the start (1, 5, 15 min)"
echo "raw: round build spec: wall s, CPU s (user+sys), peak RSS KB"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$out/.times"
for round in $(seq "$rounds"); do
  for build in before after; do
    bin=$before
    [[ $build == after ]] && bin=$after
    for spec in tagged untagged; do
      file="$out/report-table.json"
      [[ $spec == untagged ]] && file="$out/untagged.json"
      /usr/bin/time -f "%e %U %S %M" -o "$out/.time" "$bin" report --spec "$file" -o "$out/$build-$spec.pdf" > /dev/null
      read -r wall user sys rss < "$out/.time"
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      printf '%d %-6s %-8s %s s  %s s CPU  %s KB\n' "$round" "$build" "$spec" "$wall" "$cpu" "$rss"
      echo "$build $spec $wall $cpu" >> "$out/.times"
    done
  done
done
echo "load      $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "medians of $rounds rounds (wall / CPU):"
for spec in tagged untagged; do
  line="  $spec:"
  for build in before after; do
    wall=$(awk -v b="$build" -v s="$spec" '$1 == b && $2 == s { print $3 }' "$out/.times" | median)
    cpu=$(awk -v b="$build" -v s="$spec" '$1 == b && $2 == s { print $4 }' "$out/.times" | median)
    line+=" $build ${wall} s / ${cpu} s;"
  done
  echo "$line"
done
rm -f "$out/.times" "$out/.time"
echo
echo "the tagged PDFs of both builds:"
for build in before after; do
  pdfinfo -struct-text "$out/$build-tagged.pdf" > "$out/$build-tagged.struct.txt"
  pdftotext -layout "$out/$build-tagged.pdf" "$out/$build-tagged.txt"
  pages=$(pdfinfo "$out/$build-tagged.pdf" | awk '/^Pages:/ { print $2 }')
  tagged=$(pdfinfo "$out/$build-tagged.pdf" | awk '/^Tagged:/ { print $2 }')
  # qpdf --check exits 0 when clean, 3 with warnings, 2 with errors.
  qpdf_status=0
  qpdf --check "$out/$build-tagged.pdf" > /dev/null 2>&1 || qpdf_status=$?
  echo "  $build: $pages pages, tagged $tagged, $(wc -l < "$out/$build-tagged.struct.txt") structure lines," \
    "qpdf --check exit $qpdf_status (0: clean)"
done
cmp -s "$out/before-tagged.struct.txt" "$out/after-tagged.struct.txt" && echo "  pdfinfo -struct-text: identical" \
  || echo "  pdfinfo -struct-text: DIFFERENT"
cmp -s "$out/before-tagged.txt" "$out/after-tagged.txt" && echo "  pdftotext -layout: identical" \
  || echo "  pdftotext -layout: DIFFERENT"
if [[ ${CALLGRIND:-0} == 1 ]]; then
  echo
  echo "instructions (callgrind, whole process, tagged spec):"
  for build in before after; do
    bin=$before
    [[ $build == after ]] && bin=$after
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$build" "$bin" report --spec "$out/report-table.json" \
      -o "$out/callgrind-$build.pdf" > /dev/null 2> "$out/callgrind-$build.log"
    echo "  $build: $(grep -o 'Collected : [0-9]*' "$out/callgrind-$build.log" | awk '{ print $3 }')"
  done
fi
