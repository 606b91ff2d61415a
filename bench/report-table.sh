#!/usr/bin/env bash
# The 2,000-row, 5-column table report (issue 16's target: at most 0.5 s), with the table features
# on: formats, a decimal column, stripes, horizontal rules, a header and footer template and a table
# of contents (which paginates twice) — and the same rows as a plain table (no formats, alignments,
# stripes, rules, templates or contents) beside it. Writes both specs to bench/out/report-table*.json
# and runs `layerbench report` RUNS times (default 5) each, alternating plain and full so that a
# slow spell of the machine hits both, for PDF and then PNG pages; prints each run and the medians.
#   bench/report-table.sh [RUNS] [ROWS]        (make bench-report builds layerbench -c release first)
set -euo pipefail
runs=${1:-5}
rows=${2:-2000}
out=${BENCH_OUT:-bench/out}
bin=${LAYERBENCH:-.build/release/layerbench}
mkdir -p "$out"
python3 - "$rows" "$out/report-table.json" "$out/report-table-plain.json" <<'PY'
import json, sys
rows, full_path, plain_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
regions = ["North", "South", "East", "West", "Islands"]
cells = [["#%05d" % i, regions[i % 5], "2024-%02d-%02d" % (i % 12 + 1, i % 28 + 1), "%.4f" % ((i * 37 % 1000) / 1000),
          "%.2f" % (i * 123.457 % 100000)] for i in range(rows)]
table = {
    "columns": ["Order", "Region", "Date", "Share", "Amount"],
    "widths": [1, 1.4, 1.4, 1, 1.4],
    "align": ["natural", "natural", "natural", "right", "decimal"],
    "formats": ["text", "text", {"format": "date", "pattern": "d MMM yyyy"}, {"format": "percent", "decimals": 1},
                {"format": "currency", "symbol": "€", "decimals": 2}],
    "rows": cells,
}
spec = {
    "title": "Orders", "header": "{title} — {date}", "footer": "Page {page} of {pages}", "date": "2024-03-05",
    "author": "layerbench", "stripes": "#f2f4f7", "rules": "horizontal",
    "content": [{"contents": True}, {"heading": "All orders"}, {"table": table}],
}
plain = {
    "title": "Orders", "date": "2024-03-05",
    "content": [{"heading": "All orders"},
                {"table": {"columns": table["columns"], "widths": table["widths"], "rows": cells}}],
}
json.dump(spec, open(full_path, "w"))
json.dump(plain, open(plain_path, "w"))
PY
echo "load: $(uptime | sed 's/.*load average: //')"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for format in pdf png; do
  : > "$out/.times-full" && : > "$out/.times-plain"
  for run in $(seq "$runs"); do
    for variant in plain full; do
      spec="$out/report-table.json"
      [[ $variant == plain ]] && spec="$out/report-table-plain.json"
      ms=$("$bin" report --spec "$spec" -o "$out/report-table-$variant.$format" --scale 1 | sed 's/.* in //; s/ ms//')
      echo "$ms" >> "$out/.times-$variant"
      printf '%s %-5s run %d: %s ms\n' "$format" "$variant" "$run" "$ms"
    done
  done
  printf '%s median of %d: plain %s ms, full-feature %s ms\n' "$format" "$runs" \
    "$(median < "$out/.times-plain")" "$(median < "$out/.times-full")"
done
rm -f "$out/.times-full" "$out/.times-plain"
