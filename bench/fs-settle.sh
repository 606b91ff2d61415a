#!/usr/bin/env bash
# Benchmarks that write thousands of files call this before they start and after they delete them:
#
#   bench/fs-settle.sh wait     waits until 6 min 10 s have passed since the last recorded mass deletion
#   bench/fs-settle.sh mark     records one (now)
#
# Why: ext4 without a journal (this VM's root file system) does not reuse an inode deleted in the last
# minute, or the last 6 minutes while its inode-table block is dirty (fs/ext4/ialloc.c, recently_deleted()),
# and checks every candidate on the way, so each new file scans past the recently deleted ones. Creating a
# file cost 40-56 µs of kernel time on a settled file system and 160-570 µs within minutes after 56,000
# files were deleted (4,000 files each way, 2026-11-27 04:34 and 04:37 UTC): one run's clean-up made the next
# run's writer thread 3-10 times slower. That is a cost of the benchmark, not of writing tiles. Only
# deletions made through `mark` are known here; anything else deleting many files (a test suite) is not.
set -euo pipefail
STAMP="${TMPDIR:-/tmp}/.layerbench-bench-deleted"
SETTLE=${SETTLE_SECONDS:-370}
case "${1:-}" in
  mark) date +%s > "$STAMP" ;;
  wait)
    [[ -f $STAMP ]] || exit 0
    left=$(( $(cat "$STAMP") + SETTLE - $(date +%s) ))
    if (( left > 0 )); then
      echo "waiting ${left} s: a benchmark deleted many files at $(date -u -d "@$(cat "$STAMP")" +%H:%M:%S) UTC, and ext4 without a journal creates files slowly for minutes after (bench/fs-settle.sh)" >&2
      sleep "$left"
    fi ;;
  *) echo "usage: bench/fs-settle.sh wait|mark" >&2; exit 2 ;;
esac
