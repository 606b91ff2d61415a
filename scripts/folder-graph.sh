#!/usr/bin/env bash
# Prints which folder of the library's sources uses which: "A uses B (T1 T2 ...)" when code in A
# (comments left out) names a type, protocol, typealias or free function declared at the top level of a
# file in B. A name declared in both folders does not count, nor does a member that B adds to another
# folder's type in an extension (`image.pngData()` is not seen as a use of Codecs).
#   scripts/folder-graph.sh [--check] [Sources/AsyncLayer]
# --check also fails (exit 1) on a use that runs against the layers of docs/architecture.md:
#   core (Geometry, Support, Pool, Render, Codecs, Text) <- engine (Loop, Layers, Scheduling, Statistics) <- Images;
#   core <- Report.
set -euo pipefail
check=false
if [ "${1:-}" = "--check" ]; then
  check=true
  shift
fi
cd "${1:-Sources/AsyncLayer}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
folders=$(find . -mindepth 1 -maxdepth 1 -type d ! -name '*.docc' | sed 's|^\./||' | sort)

# The layer of each folder, and the layers each layer may use.
layer_of() {
  case "$1" in
    Geometry | Support | Pool | Render | Codecs | Text) echo core ;;
    Loop | Layers | Scheduling | Statistics) echo engine ;;
    Images) echo images ;;
    Report) echo report ;;
    *) echo unknown ;;
  esac
}
may_use() {
  case "$1" in
    core) echo "core" ;;
    engine) echo "core engine" ;;
    images) echo "core engine images" ;;
    report) echo "core report" ;;
    *) echo "" ;;
  esac
}

for f in $folders; do
  # Code without comments (`//` and `///`; block comments are not used for code in this package).
  cat "$f"/*.swift | sed -E 's|//.*$||' >"$tmp/$f.code"
  grep -oE '^(@[A-Za-z]+ +)*((public|package|internal|fileprivate|private|final|indirect|nonisolated) +)*(struct|class|enum|actor|protocol|typealias|func) +[A-Za-z_][A-Za-z0-9_]*' \
    "$tmp/$f.code" | awk '{print $NF}' | sort -u >"$tmp/$f.declared"
  grep -oE '[A-Za-z_][A-Za-z0-9_]*' "$tmp/$f.code" | sort -u >"$tmp/$f.words"
done

violations=0
for a in $folders; do
  for b in $folders; do
    [ "$a" = "$b" ] && continue
    used=$(comm -12 "$tmp/$a.words" "$tmp/$b.declared" | comm -23 - "$tmp/$a.declared" | tr '\n' ' ')
    [ -z "$used" ] && continue
    echo "$a uses $b (${used% })"
    if $check && ! [[ " $(may_use "$(layer_of "$a")") " == *" $(layer_of "$b") "* ]]; then
      echo "  ^ $a ($(layer_of "$a")) may not use $b ($(layer_of "$b"))" >&2
      violations=$((violations + 1))
    fi
  done
done
if $check && [ "$violations" -gt 0 ]; then
  echo "$violations folder uses against the layers" >&2
  exit 1
fi
