"""What `--boxes` costs `layerbench batch --output webdataset`, in instructions per tile, by function.

Usage (from the repository root):
    bench/.venv-dataset/bin/python bench/dataset/boxes_callgrind.py [--layerbench PATH ...] [--tiles 200,2000]

For each binary (default .build/release/layerbench): labels_cost.py's batch command (1 worker, the
Latin lines of peers.py, `--output webdataset --write-thread off`) with and without `--boxes` (no
`--labels`: they cost nothing), under `valgrind --tool=callgrind --separate-threads=yes`, at two
tile counts (the first lines of the same 2,000 distinct lines, repeated): the difference over the
difference in tiles is the marginal cost of a tile, without the start-up. Prints the total Ir per
tile, and per function (boxes minus plain, per tile) the exclusive and inclusive counts. Inclusive
counts of recursive or mutually calling functions can overlap; they answer "what does this call
cost", not a partition.
"""
import argparse
import datetime
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labels_cost  # noqa: E402
import peers  # noqa: E402


def profile(command, out_base):
    for old in glob.glob(out_base + "*"):
        os.remove(old)
    result = subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes",
                             f"--callgrind-out-file={out_base}"] + command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"boxes-callgrind: callgrind failed:\n{result.stderr[-2000:]}")
    return sorted(glob.glob(out_base + "*"))


def listing(files, inclusive):
    """Ir by function over every thread's profile (callgrind_annotate's listing)."""
    counts = {}
    rows = {}
    total = 0
    for path in files:
        text = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                               "--threshold=100", "--auto=no", path], capture_output=True, text=True).stdout
        for line in text.splitlines():
            match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)", line)
            if not match:
                continue
            value = int(match.group(1).replace(",", ""))
            if "PROGRAM TOTALS" in line:
                total += value
                continue
            name = match.group(2)
            name = name[4:] if name.startswith("???:") else re.sub(r"^[^:]*:", "", name, count=1)
            name = re.sub(r" \(\S+x\)$", "", re.sub(r" \[.*\]", "", name))
            if inclusive:
                # A function shows once per source file its code comes from (inlined code, the
                # compiler's): each row counts what that file's lines cost with their callees, the
                # function's own file's row all of it. The largest row, summed over the threads.
                rows[name] = max(rows.get(name, 0), value)
            else:
                counts[name] = counts.get(name, 0) + value
        for name, value in rows.items():
            counts[name] = counts.get(name, 0) + value
        rows.clear()
    return total, counts


def demangled(names):
    try:
        return subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                              capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layerbench", action="append",
                        help="binaries to compare (repeatable); default .build/release/layerbench")
    parser.add_argument("--tiles", default="200,2000", help="N1,N2 tiles for the marginal")
    parser.add_argument("--dir", default="/dev/shm/boxes-callgrind")
    parser.add_argument("--top", type=int, default=30, help="functions listed")
    parser.add_argument("--result", help="append the report to this file")
    args = parser.parse_args()
    binaries = args.layerbench or [os.path.join(peers.ROOT, ".build/release/layerbench")]
    os.makedirs(args.dir, exist_ok=True)
    lines_file = os.path.join(args.dir, "latin.txt")
    peers.make_lines("latin", 2000, lines_file)
    distinct = open(lines_file, encoding="utf-8").read().splitlines()
    n1, n2 = (int(n) for n in args.tiles.split(","))
    files = {}
    for n in (n1, n2):
        files[n] = os.path.join(args.dir, f"latin-{n}.txt")
        with open(files[n], "w", encoding="utf-8") as f:
            f.write("\n".join(distinct[i % len(distinct)] for i in range(n)) + "\n")
    report = []

    def say(text=""):
        print(text, flush=True)
        report.append(text)

    say(f"# bench/dataset/boxes_callgrind.py {' '.join(sys.argv[1:])}")
    say(f"# started {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for number, binary in enumerate(binaries):
        say(f"## {binary}")
        per_tile = {}
        marginal = {}
        for boxes in (False, True):
            name = "boxes" if boxes else "plain"
            totals, exclusive, inclusive = {}, {}, {}
            for n in (n1, n2):
                out = os.path.join(args.dir, f"out-{name}-{n}")
                subprocess.run(["rm", "-rf", out], check=True)
                command = labels_cost.batch_command(binary, files[n], out, 1, True,
                                                    ["--output", "webdataset", "--write-thread", "off"])
                i = command.index("--labels")
                del command[i:i + 2]  # --labels gt.txt: keep --boxes
                if not boxes:
                    command.remove("--boxes")
                profiles = profile(command, os.path.join(args.dir, f"{number}.{name}.{n}.callgrind"))
                totals[n], exclusive[n] = listing(profiles, False)
                _, inclusive[n] = listing(profiles, True)
            per_tile[name] = (totals[n2] - totals[n1]) / (n2 - n1)
            marginal[name] = {
                kind: {key: (table[n2].get(key, 0) - table[n1].get(key, 0)) / (n2 - n1)
                       for key in set(table[n1]) | set(table[n2])}
                for kind, table in (("exclusive", exclusive), ("inclusive", inclusive))}
            say(f"{name:5}: {totals[n1]:,} Ir at {n1} tiles, {totals[n2]:,} at {n2}: {per_tile[name]:,.0f} Ir per tile")
        say(f"boxes - plain: {per_tile['boxes'] - per_tile['plain']:+,.0f} Ir per tile "
            f"(plain / boxes = {100 * per_tile['plain'] / per_tile['boxes']:.1f}%)")
        for kind in ("exclusive", "inclusive"):
            plain, boxes = marginal["plain"][kind], marginal["boxes"][kind]
            extra = {key: boxes.get(key, 0) - plain.get(key, 0) for key in set(plain) | set(boxes)}
            largest = sorted(extra.items(), key=lambda item: -abs(item[1]))[:args.top]
            say(f"{kind} Ir per tile, boxes minus plain (the {args.top} largest by size"
                + (f"; sum of all {sum(extra.values()):,.0f}" if kind == "exclusive" else "") + "):")
            for (_, value), name in zip(largest, demangled([key for key, _ in largest])):
                say(f"  {value:+10,.0f}  {name[:150]}")
    if args.result:
        with open(args.result, "a") as f:
            f.write("\n".join(report) + "\n\n")


if __name__ == "__main__":
    main()
