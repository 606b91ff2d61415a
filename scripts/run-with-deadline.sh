#!/usr/bin/env bash
# Usage: scripts/run-with-deadline.sh SECONDS COMMAND [ARGUMENT ...]
#
# Runs a test command (`swift test …`) under a time limit, its output passed through. Past the limit it
# stops the command and its children, names the Swift Testing tests that started and never ended — the
# ones to look at — and exits 124. Without it a test that hangs holds CI until its own 90-minute limit,
# with nothing in the log to say which test it was (as on 2026-11-26).
set -uo pipefail
seconds=$1
shift
log=$(mktemp "${TMPDIR:-/tmp}/run-with-deadline.XXXXXX")
trap 'rm -f "$log"' EXIT
# timeout runs the command in a process group of its own and signals the whole group.
timeout --kill-after=20 "$seconds" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "run-with-deadline: '$*' still ran after $seconds s and was stopped."
  # Swift Testing prints "◇ Test name() started." and then "✔ Test name() passed after …", "✘ … failed after …" or "➜ … skipped.".
  started=$(sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | grep -v -e '^case ' -e '^run$' | sort -u)
  ended=$(sed -n 's/^.* Test \(.*\) \(passed\|failed\|skipped\)\( after .*\|\.\)$/\1/p' "$log" | sort -u)
  unfinished=$(comm -23 <(echo "$started") <(echo "$ended"))
  if [ -n "$unfinished" ]; then
    echo "Tests that started and did not end:"
    echo "$unfinished" | sed 's/^/  /'
  fi
  exit 124
fi
exit "$status"
