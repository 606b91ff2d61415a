#!/usr/bin/env bash
# The 2,000-row, 5-column table report (issue 16's target: at most 0.5 s), with the table features
# on: formats, a decimal column, stripes, horizontal rules, a header and footer template and a table
# of contents (which paginates twice). Writes the spec to bench/out/report-table.json and runs
# `layerbench report` RUNS times (default 5) for PDF and then PNG pages, printing each run's time.
#   bench/report-table.sh [RUNS] [ROWS]        (make bench-report builds layerbench -c release first)
set -euo pipefail
runs=${1:-5}
rows=${2:-2000}
out=${BENCH_OUT:-bench/out}
bin=${LAYERBENCH:-.build/release/layerbench}
mkdir -p "$out"
python3 - "$rows" > "$out/report-table.json" <<'PY'
import json, sys
rows = int(sys.argv[1])
regions = ["North", "South", "East", "West", "Islands"]
table = {
    "columns": ["Order", "Region", "Date", "Share", "Amount"],
    "widths": [1, 1.4, 1.4, 1, 1.4],
    "align": ["natural", "natural", "natural", "right", "decimal"],
    "formats": ["text", "text", {"format": "date", "pattern": "d MMM yyyy"}, {"format": "percent", "decimals": 1},
                {"format": "currency", "symbol": "€", "decimals": 2}],
    "rows": [["#%05d" % i, regions[i % 5], "2024-%02d-%02d" % (i % 12 + 1, i % 28 + 1), "%.4f" % ((i * 37 % 1000) / 1000),
              "%.2f" % (i * 123.457 % 100000)] for i in range(rows)],
}
spec = {
    "title": "Orders", "header": "{title} — {date}", "footer": "Page {page} of {pages}", "date": "2024-03-05",
    "author": "layerbench", "stripes": "#f2f4f7", "rules": "horizontal",
    "content": [{"contents": True}, {"heading": "All orders"}, {"table": table}],
}
json.dump(spec, sys.stdout)
PY
echo "load: $(uptime | sed 's/.*load average: //')"
for format in pdf png; do
  for run in $(seq "$runs"); do
    printf '%s run %d: ' "$format" "$run"
    "$bin" report --spec "$out/report-table.json" -o "$out/report-table.$format" --scale 1 | sed 's/.* in //'
  done
done
