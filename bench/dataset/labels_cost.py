#!/usr/bin/env python3
"""What `--labels gt.txt --boxes` cost `layerbench batch` (issue 27: they must keep >= 90% of its throughput).

Run through bench/dataset-peers.sh. The same Latin lines as peers.py (its style: DejaVu Sans 18 px,
32 px tall, --fit-width), repeated to --tiles lines, in ABBA rounds per worker count (plain, labelled,
labelled, plain): tiles/s from batch's own summary, the median of the rounds' ratios labelled / plain
and their range. Then instructions (callgrind, 1 worker): the marginal Ir per tile between --ir-tiles
N1 and N2 lines, so start-up cancels out; instruction counts do not move with the machine's load.
--parts perf: where the native time goes (callgrind cannot see SHA-NI, the kernel or cache misses):
`perf record -e cpu-clock` over --perf-pairs interleaved plain/labelled runs of --tiles tiles at
--workers' first count, each function's CPU time per tile summed over the pairs, labelled minus plain.
Each timed run also reports its CPU time (user + system, from the kernel's accounting of the finished
process): tiles per CPU-second, labelled / plain, moves much less than wall-clock rates when other work
shares the cores (it still moves with shared caches and frequency), so both are given.
"""
import argparse
import datetime
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import peers  # noqa: E402  (its line maker, style and process-tree runner)


def batch_command(layerbench, lines, out, workers, labelled, extra=()):
    command = peers.commands("layerbench", "latin", lines, 0, workers, out, layerbench, "")
    if not labelled:
        i = command.index("--labels")
        del command[i:i + 3]  # --labels gt.txt --boxes
    return command + list(extra)


def rate_of(log_path):
    match = re.search(r"failed, (\d+) tiles/s", open(log_path).read())
    if not match:
        sys.exit(f"labels-cost: no rate in {log_path}")
    return float(match.group(1))


def total_ir(command, out_file):
    result = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"] + command,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"labels-cost: callgrind failed:\n{result.stderr[-2000:]}")
    match = re.search(r"Collected : (\d+)", result.stderr)
    return int(match.group(1))


def exclusive_ir(profile):
    """Exclusive Ir by function of a callgrind profile (callgrind_annotate's listing)."""
    listing = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", profile],
                             capture_output=True, text=True).stdout
    counts = {}
    for line in listing.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)", line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        name = match.group(2)
        name = name[4:] if name.startswith("???:") else re.sub(r"^[^:]*:", "", name, count=1)
        name = re.sub(r" \(\S+x\)$", "", re.sub(r" \[.*\]", "", name))
        counts[name] = counts.get(name, 0) + int(match.group(1).replace(",", ""))
    return counts


def perf_times(command, data):
    """CPU nanoseconds by function (cpu-clock samples carry their period in ns) of one perf-recorded run."""
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", data, "--"] + command,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listing = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "sym",
                              "-F", "period,sym", "-q"], capture_output=True, text=True, check=True).stdout
    times = {}
    for line in listing.splitlines():
        match = re.match(r"\s*(\d+)\s+\[(.)\]\s+(.*)", line)
        if match:
            name = ("[kernel] " if match.group(2) == "k" else "") + match.group(3).strip()
            times[name] = times.get(name, 0) + int(match.group(1))
    return times


def perf_breakdown(args, many, say):
    workers = int(args.workers.split(",")[0])
    sums = {False: {}, True: {}}
    for pair in range(args.perf_pairs):
        for labelled in (False, True) if pair % 2 == 0 else (True, False):
            name = "labelled" if labelled else "plain"
            out = os.path.join(args.dir, f"perf-{name}")
            shutil.rmtree(out, ignore_errors=True)
            command = batch_command(args.layerbench, many, out, workers, labelled, shlex.split(args.batch_args))
            for key, value in perf_times(command, os.path.join(args.dir, f"{name}.{pair}.perf")).items():
                sums[labelled][key] = sums[labelled].get(key, 0) + value
    scale = 1e3 * args.perf_pairs * args.tiles  # ns summed over the pairs -> us per tile
    total = {labelled: sum(times.values()) / scale for labelled, times in sums.items()}
    say(f"perf (cpu-clock, {args.perf_pairs} interleaved pairs of {args.tiles} tiles, {workers} worker(s), "
        f"load {os.getloadavg()[0]:.2f}): plain {total[False]:.1f} us CPU per tile, labelled {total[True]:.1f}: "
        f"{100 * total[False] / total[True]:.1f}% per CPU-second, +{total[True] - total[False]:.1f} us")
    extra = {key: (sums[True].get(key, 0) - sums[False].get(key, 0)) / scale for key in set(sums[True]) | set(sums[False])}
    largest = sorted(extra.items(), key=lambda item: -abs(item[1]))[:args.breakdown]
    names = [key for key, _ in largest]
    try:
        names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pass
    say(f"perf breakdown, us per tile, labelled minus plain (the {args.breakdown} largest by size):")
    for (_, value), name in zip(largest, names):
        say(f"  {value:+7.2f}  {name[:150]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layerbench", default=os.path.join(peers.ROOT, ".build/release/layerbench"))
    parser.add_argument("--lines", type=int, default=2000, help="distinct lines (peers.py's Latin lines)")
    parser.add_argument("--tiles", type=int, default=20000, help="tiles per timed run (the lines repeated)")
    parser.add_argument("--rounds", type=int, default=5, help="ABBA rounds per worker count")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--ir-tiles", default="200,1000", help="N1,N2 lines for the callgrind marginal")
    parser.add_argument("--dir", default="/dev/shm/dataset-peers")
    parser.add_argument("--parts", default="timed,callgrind", help="timed, callgrind, perf, comma-separated")
    parser.add_argument("--result")
    parser.add_argument("--breakdown", type=int, default=25,
                        help="functions listed in the callgrind breakdown (labelled minus plain, per tile)")
    parser.add_argument("--perf-pairs", type=int, default=2, help="plain/labelled pairs under perf record")
    parser.add_argument("--batch-args", default="",
                        help="more batch options for both sides, e.g. '--output webdataset'")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    base = os.path.join(args.dir, "latin.txt")
    peers.make_lines("latin", args.lines, base)
    distinct = open(base, encoding="utf-8").read().splitlines()
    many = os.path.join(args.dir, "latin-many.txt")
    with open(many, "w", encoding="utf-8") as f:
        for i in range(args.tiles):
            f.write(distinct[i % len(distinct)] + "\n")
    report = []

    def say(text=""):
        print(text, flush=True)
        report.append(text)

    say(f"# bench/dataset/labels_cost.py {' '.join(sys.argv[1:])}")
    say(f"# started {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    say(f"# {args.tiles} tiles per run ({args.lines} distinct Latin lines), {args.rounds} ABBA rounds; "
        "plain = no --labels/--boxes, labelled = --labels gt.txt --boxes"
        + (f"; both with {args.batch_args}" if args.batch_args else ""))
    parts = args.parts.split(",")
    for workers in [int(w) for w in args.workers.split(",")] if "timed" in parts else []:
        ratios, plain_rates, labelled_rates, cpu_ratios = [], [], [], []
        for round_index in range(args.rounds):
            rates, cpu = {}, {}
            for labelled in (False, True, True, False):
                out = os.path.join(args.dir, f"cost-{'labelled' if labelled else 'plain'}-{workers}")
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                peers.run(batch_command(args.layerbench, many, out, workers, labelled, shlex.split(args.batch_args)), out)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.setdefault(labelled, []).append(
                    after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                rates.setdefault(labelled, []).append(rate_of(out + ".log"))
            plain, labelled_rate = statistics.mean(rates[False]), statistics.mean(rates[True])
            plain_rates.append(plain)
            labelled_rates.append(labelled_rate)
            ratios.append(labelled_rate / plain)
            # Tiles per CPU-second, labelled over plain: the plain runs' CPU time over the labelled's.
            cpu_ratio = statistics.mean(cpu[False]) / statistics.mean(cpu[True])
            cpu_ratios.append(cpu_ratio)
            say(f"  workers {workers} round {round_index + 1}: plain {plain:7.0f} tiles/s, labelled "
                f"{labelled_rate:7.0f} tiles/s, {100 * labelled_rate / plain:5.1f}%; CPU "
                f"{1e6 * statistics.mean(cpu[False]) / args.tiles:.0f} / {1e6 * statistics.mean(cpu[True]) / args.tiles:.0f}"
                f" us per tile, {100 * cpu_ratio:5.1f}%  load {os.getloadavg()[0]:.2f}")
        say(f"workers {workers}: plain {statistics.median(plain_rates):.0f} tiles/s, labelled "
            f"{statistics.median(labelled_rates):.0f} tiles/s; labelled/plain median "
            f"{100 * statistics.median(ratios):.1f}% (range {100 * min(ratios):.1f}-{100 * max(ratios):.1f}%); "
            f"per CPU-second {100 * statistics.median(cpu_ratios):.1f}% "
            f"(range {100 * min(cpu_ratios):.1f}-{100 * max(cpu_ratios):.1f}%)")
    if "perf" in parts:
        perf_breakdown(args, many, say)
    if "callgrind" not in parts:
        if args.result:
            with open(args.result, "a") as f:
                f.write("\n".join(report) + "\n\n")
        return
    n1, n2 = (int(n) for n in args.ir_tiles.split(","))
    files = {}
    for n in (n1, n2):
        files[n] = os.path.join(args.dir, f"latin-{n}.txt")
        with open(files[n], "w", encoding="utf-8") as f:
            f.write("\n".join(distinct[i % len(distinct)] for i in range(n)) + "\n")
    per_tile = {}
    for labelled in (False, True):
        name = "labelled" if labelled else "plain"
        irs = {}
        for n in (n1, n2):
            out = os.path.join(args.dir, f"ir-{name}-{n}")
            subprocess.run(["rm", "-rf", out], check=True)
            irs[n] = total_ir(batch_command(args.layerbench, files[n], out, 1, labelled) + ["--write-thread", "off"],
                              os.path.join(args.dir, f"{name}.{n}.callgrind"))
        per_tile[name] = (irs[n2] - irs[n1]) / (n2 - n1)
        say(f"callgrind {name:8}: {irs[n1]:,} Ir at {n1} tiles, {irs[n2]:,} at {n2}: "
            f"{per_tile[name] / 1e6:.3f} M Ir per tile")
    say(f"callgrind: labelled / plain = {per_tile['labelled'] / per_tile['plain']:.3f} "
        f"(+{(per_tile['labelled'] - per_tile['plain']) / 1e6:.3f} M Ir per tile); profiles in {args.dir}/*.callgrind")
    # Where the extra goes: each function's exclusive Ir per tile (marginal between the two runs),
    # labelled minus plain. Swift names are mangled (swift demangle reads them).
    marginal = {}
    for name in ("plain", "labelled"):
        first, second = (exclusive_ir(os.path.join(args.dir, f"{name}.{n}.callgrind")) for n in (n1, n2))
        marginal[name] = {key: (second.get(key, 0) - first.get(key, 0)) / (n2 - n1) for key in set(first) | set(second)}
    extra = {key: marginal["labelled"].get(key, 0) - marginal["plain"].get(key, 0)
             for key in set(marginal["plain"]) | set(marginal["labelled"])}
    say(f"callgrind breakdown, exclusive Ir per tile, labelled minus plain (the {args.breakdown} largest; "
        f"sum of all {sum(extra.values()):,.0f}):")
    largest = sorted(extra.items(), key=lambda item: -item[1])[:args.breakdown]
    names = [key for key, _ in largest]
    try:  # readable Swift names where the toolchain is there
        names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pass
    for (_, value), name in zip(largest, names):
        say(f"  {value:9,.0f}  {name[:150]}")
    if args.result:
        with open(args.result, "a") as f:
            f.write("\n".join(report) + "\n\n")


if __name__ == "__main__":
    main()
