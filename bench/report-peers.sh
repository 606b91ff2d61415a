#!/usr/bin/env bash
# AsyncLayer's report PDFs against Typst, ReportLab, WeasyPrint and fpdf2 (issue 29): makes the venv
# bench/out/peers-venv from PyPI with the pins of bench/peers/requirements.txt (once), then runs
# bench/report_peers.py with the arguments given (--help lists them), which times every tool on the same
# three documents and checks their PDFs; results in bench/results/report-peers.txt.
#   bench/report-peers.sh [--rounds 5] [--rounds-slow 2] [--rounds-large 1] [--timeout-large 180] [--tools …] [--cases …]
# (make bench-report-peers builds layerbench -c release first; LAYERBENCH=path uses another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/out/peers-venv
req=bench/peers/requirements.txt
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$req" "$venv/.requirements"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.requirements"
fi
for tool in pdfinfo pdftotext pdfimages pdftoppm qpdf; do
  command -v "$tool" > /dev/null || { echo "error: $tool is missing (poppler-utils, qpdf: make deps)" >&2; exit 1; }
done
exec "$venv/bin/python" bench/report_peers.py --layerbench "${LAYERBENCH:-.build/release/layerbench}" "$@"
