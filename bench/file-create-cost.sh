#!/usr/bin/env bash
# System time per file for each way batch can write a tile (bench/repro/file-create.c, modes 0-4), interleaved
# rounds, on the file system of ROOT (default ${TMPDIR:-/tmp}):
#
#   bench/file-create-cost.sh [ROUNDS] [FILES] [ROOT]      (defaults 3 rounds, 4,000 files)
#
# Waits for the file system to settle after a benchmark's mass deletion first, and keeps every round's
# files until the end (bench/fs-settle.sh). Needs `make bench-c`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
FILES=${2:-4000}
ROOT=${3:-${TMPDIR:-/tmp}}
BIN=bench/out/file-create
[[ -x $BIN ]] || { echo "missing $BIN (make bench-c)" >&2; exit 1; }
on_disk() { [[ $(stat -f -c %T "$ROOT") != tmpfs ]]; }
if on_disk; then bench/fs-settle.sh wait; fi
WORK=$(mktemp -d "$ROOT/file-create-cost.XXXXXX")
trap 'rm -rf "$WORK"; if on_disk; then bench/fs-settle.sh mark; fi' EXIT
echo "bench/file-create-cost.sh $ROUNDS $FILES: $(date -u '+%Y-%m-%d %H:%M UTC'), $ROOT ($(stat -f -c %T "$ROOT")), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= ROUNDS; r++)); do
  for mode in 1 3 0 2 4; do echo "round $r: $("$BIN" "$WORK/$mode-$r" "$mode" "$FILES")"; done
done
echo "modes: 1 O_TMPFILE + linkat /proc/self/fd; 3 O_TMPFILE + linkat AT_EMPTY_PATH; 0 temporary name + renameat; 2 in place (not kill-safe); 4 a tar member"
