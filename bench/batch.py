#!/usr/bin/env python3
"""`make bench-batch`: the figures of docs/batch.md (`layerbench batch`), from one run.

1. Batch against `layerbench throughput --png fast` for the same tile (ThroughputCommand's text, the
   default style), 1 and 2 workers, in --repeat ABBA rounds (throughput, batch, batch, throughput): the
   median of the rounds' ratios is what the issue asks to stay within 10% of.
2. Tiles/s and peak RSS of `layerbench batch` for each --sizes line count with 1 and 2 workers, and of
   `layerbench render --file` (same engine, no manifest) with 2 workers.
3. The Slurm job array (scripts/slurm/test-local.sh: a 4-task array on a single-node Slurm) against one
   process, unless --no-slurm (needs slurm-wlm and munge: `make test-slurm` installs them).

Output goes to a temporary directory under --dir (tmpfs, /dev/shm, by default: the figures are about
the engine, not the disk), removed at the end. Run it on a quiet machine: other processes' load shows
directly in tiles/s (peak RSS does not depend on it).

    bench/batch.py                                  # 10k, 100k and 1M lines (about an hour on 2 cores)
    bench/batch.py --sizes 2000 --compare-tiles 2000 --repeat 1 --slurm-tiles 1000   # a quick check
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = ("The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main "
        "thread, fast.")


def run(command, directory, env=None):
    """Runs `command`; returns (wall seconds, peak RSS in MB, stdout, stderr, CPU seconds). Fails loudly on a
    non-zero exit."""
    out_path, err_path = os.path.join(directory, ".stdout"), os.path.join(directory, ".stderr")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.monotonic() - start
    stdout, stderr = open(out_path).read(), open(err_path).read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench-batch: {' '.join(command)} exited {code}:\n{stderr[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, stdout, stderr, usage.ru_utime + usage.ru_stime


def write_input(path, count, jsonl=True):
    escaped = TEXT.replace("\\", "\\\\").replace('"', '\\"')
    with open(path, "w") as f:
        for i in range(count):
            f.write(f'{{"id": "t{i:07d}", "text": "{escaped}"}}\n' if jsonl else TEXT + "\n")


def batch_rate(stderr):
    match = re.search(r"failed, (\d+) tiles/s", stderr)
    if not match:
        sys.exit(f"bench-batch: no rate in batch's summary:\n{stderr[-2000:]}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layerbench", default=os.path.join(ROOT, ".build/release/layerbench"))
    parser.add_argument("--dir", default="/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir())
    parser.add_argument("--sizes", default="10000,100000,1000000", help="input lines for the table, comma-separated")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--compare-tiles", type=int, default=10000, help="tiles per run of the side-by-side")
    parser.add_argument("--repeat", type=int, default=7, help="ABBA rounds per side-by-side configuration (median)")
    parser.add_argument("--slurm-tiles", type=int, default=20000, help="tiles of the Slurm array run")
    parser.add_argument("--no-slurm", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    workers = [int(w) for w in args.workers.split(",") if w]
    layerbench = args.layerbench
    if not os.access(layerbench, os.X_OK):
        sys.exit(f"bench-batch: build {layerbench} first (swift build -c release)")

    work = tempfile.mkdtemp(prefix="layerbench-bench-", dir=args.dir)
    try:
        load = os.getloadavg()
        print(f"bench-batch: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
              f"output on {args.dir}")

        # 1. Side by side with throughput --png fast.
        compare = os.path.join(work, "compare.jsonl")
        write_input(compare, args.compare_tiles)
        # CPU ms per tile (user + system, whole process) is the load-independent view; tiles/s is the figure.
        # The marginal CPU ms per tile — (CPU of the full run - CPU of a run of a fifth of the tiles) / the
        # tiles between — leaves out what both pay once (start-up, font maps, each worker's first tiles,
        # which batch's rate includes and throughput's timer does not): the steady cost of one more tile.
        small_tiles = max(1, args.compare_tiles // 5)
        small = os.path.join(work, "compare-small.jsonl")
        write_input(small, small_tiles)

        def throughput_run(count, tiles):
            per_worker = max(1, tiles // count)
            _, _, stdout, _, cpu = run([layerbench, "throughput", "--png", "fast", "--workers", str(count),
                                        "--tiles", str(per_worker)], work)
            return float(re.search(r"([\d.]+) tiles/s", stdout).group(1)), cpu, per_worker * count

        def batch_run(count, path):
            out = os.path.join(work, "compare-out")
            shutil.rmtree(out, ignore_errors=True)
            _, _, _, stderr, cpu = run([layerbench, "batch", "--input", path, "--out-dir", out, "--workers",
                                        str(count), "--progress-interval", "0", "--no-resume"], work)
            return batch_rate(stderr), cpu

        print(f"\nbatch vs throughput --png fast, same tile, {args.compare_tiles} tiles per run, {args.repeat} rounds; a "
              f"round runs throughput, batch, batch, throughput (ABBA: other processes' load, which comes and goes "
              f"over seconds, weighs on both sides alike) and its ratio is batch's tiles/s over throughput's; "
              f"median and range over the rounds")
        print(f"{'workers':>7}  {'throughput tiles/s':>18}  {'batch tiles/s':>13}  {'batch/throughput':>16}  "
              f"{'range':>9}  {'CPU ms/tile: throughput':>23}  {'batch':>5}  "
              f"{'marginal CPU ms/tile: throughput':>32}  {'batch':>5}")
        for count in workers:
            throughput, batch, ratios = [], [], []
            throughput_cpu, batch_cpu, throughput_marginal, batch_marginal = [], [], [], []
            for _ in range(args.repeat):
                t1, cpu1, tiles = throughput_run(count, args.compare_tiles)
                b1, bcpu1 = batch_run(count, compare)
                b2, bcpu2 = batch_run(count, compare)
                t2, cpu2, _ = throughput_run(count, args.compare_tiles)
                throughput += [t1, t2]
                batch += [b1, b2]
                ratios.append((b1 + b2) / (t1 + t2))
                throughput_cpu += [cpu1 * 1000 / tiles, cpu2 * 1000 / tiles]
                batch_cpu += [bcpu1 * 1000 / args.compare_tiles, bcpu2 * 1000 / args.compare_tiles]
                _, small_cpu, few = throughput_run(count, small_tiles)
                throughput_marginal.append(((cpu1 + cpu2) / 2 - small_cpu) * 1000 / max(1, tiles - few))
                _, small_cpu = batch_run(count, small)
                batch_marginal.append(((bcpu1 + bcpu2) / 2 - small_cpu) * 1000 / max(1, args.compare_tiles - small_tiles))
            t, b = statistics.median(throughput), statistics.median(batch)
            spread = f"{min(ratios):.0%}-{max(ratios):.0%}"
            print(f"{count:>7}  {t:>18,.0f}  {b:>13,.0f}  {statistics.median(ratios):>15.0%}  {spread:>9}  "
                  f"{statistics.median(throughput_cpu):>23.3f}  {statistics.median(batch_cpu):>5.3f}  "
                  f"{statistics.median(throughput_marginal):>32.3f}  {statistics.median(batch_marginal):>5.3f}",
                  flush=True)

        # 2. Sizes: tiles/s and peak RSS.
        print(f"\n{'command':<14} {'lines':>9} {'workers':>7} {'tiles/s':>9} {'wall s':>8} {'peak RSS MB':>11}")
        for size in sizes:
            jsonl, plain = os.path.join(work, f"in-{size}.jsonl"), os.path.join(work, f"in-{size}.txt")
            write_input(jsonl, size)
            write_input(plain, size, jsonl=False)
            out = os.path.join(work, "out")
            for count in workers:
                shutil.rmtree(out, ignore_errors=True)
                seconds, rss, _, stderr, _ = run([layerbench, "batch", "--input", jsonl, "--out-dir", out, "--workers",
                                               str(count), "--progress-interval", "0"], work)
                print(f"{'batch':<14} {size:>9,} {count:>7} {batch_rate(stderr):>9,.0f} {seconds:>8.1f} {rss:>11.1f}",
                      flush=True)
            shutil.rmtree(out, ignore_errors=True)
            count = max(workers)
            seconds, rss, _, _, _ = run([layerbench, "render", "--file", plain, "--out-dir", out], work)
            print(f"{'render --file':<14} {size:>9,} {os.cpu_count():>7} {size / seconds:>9,.0f} {seconds:>8.1f} "
                  f"{rss:>11.1f}", flush=True)
            shutil.rmtree(out, ignore_errors=True)
            os.remove(jsonl)
            os.remove(plain)

        # 3. Slurm array against one process.
        if not args.no_slurm:
            env = dict(os.environ, LAYERBENCH=layerbench, TILES=str(args.slurm_tiles))
            _, _, stdout, _, _ = run([os.path.join(ROOT, "scripts/slurm/test-local.sh")], work, env=env)
            print("\n" + stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
