"""What each of `--labels` and `--boxes` costs `layerbench batch`, apart (issue 27, item 6).

Usage (from the repository root, after labels_cost.py made /dev/shm/dataset-peers/latin-many.txt):
    bench/.venv-dataset/bin/python bench/dataset/boxes_split.py ROUNDS [LAYERBENCH ...]

labels_cost.py's batch command (1 worker, --output webdataset) in four variants: plain, --labels only,
--boxes only, both; interleaved, the order reversed every other round. Prints the CPU time (user +
system) of each finished process per tile: CPU time moves less with other work on the cores than
wall-clock rates do. With several LAYERBENCH binaries (default .build/release/layerbench), every
round runs the four variants of each, interleaved the same way, and prints each binary's medians.
"""
import os, sys, subprocess, statistics, resource
sys.path.insert(0, "bench/dataset")
import peers, labels_cost as lc
d="/dev/shm/dataset-peers"; many=os.path.join(d,"latin-many.txt")
binaries=[os.path.abspath(b) for b in sys.argv[2:]] or [os.path.abspath(".build/release/layerbench")]
variants={}
for b in binaries:
    full=lc.batch_command(b, many, "/dev/shm/split-out", 1, True, ["--output","webdataset"])
    i=full.index("--labels")
    tag="" if len(binaries)==1 else b+" "
    variants.update({tag+"plain": full[:i]+full[i+3:], tag+"labels": full[:i]+full[i:i+2]+full[i+3:],
                     tag+"boxes": full[:i]+[full[i+2]]+full[i+3:], tag+"both": full})
print(" ".join(full))
print("load average", " ".join("%.2f" % x for x in os.getloadavg()))
res={k:[] for k in variants}
for r in range(int(sys.argv[1])):
    for k,cmd in (list(variants.items()) if r%2==0 else list(reversed(list(variants.items())))):
        subprocess.run(["rm","-rf","/dev/shm/split-out"])
        before=resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after=resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu=(after.ru_utime-before.ru_utime+after.ru_stime-before.ru_stime)/10000*1e6
        res[k].append(cpu)
# The minimum too: other work on the cores only ever adds CPU time (caches, frequency), so the least
# of several runs is the steadiest figure on a busy machine.
for k in variants: print(k, "CPU us/tile median %.1f min %.1f" % (statistics.median(res[k]), min(res[k])), ["%.0f"%x for x in res[k]])
print("load average", " ".join("%.2f" % x for x in os.getloadavg()))
