#!/usr/bin/env bash
# `make test-slurm`: a single-node Slurm on loopback (Debian's slurm-wlm and munge, generated config in a
# temporary directory), a 4-task array of `layerbench batch` over TILES tiles, `batch merge`, and a check
# that the result equals a single-process run (same lines, ids, sizes, PNG checksums). Daemons are stopped
# by PID at the end and the temporary directory is removed (KEEP=1 keeps it). The whole test is bounded:
# TIMEOUT seconds (300) for the node to come up and the array to finish, else it fails saying which step.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
layerbench=${LAYERBENCH:-$root/.build/release/layerbench}
tiles=${TILES:-4000}
tasks=${TASKS:-4}
timeout_seconds=${TIMEOUT:-300}
for tool in munged slurmctld slurmd sbatch sinfo squeue scancel python3 bc; do
  command -v $tool >/dev/null || {
    echo "test-slurm: $tool missing (make test-slurm installs slurm-wlm, munge, bc and python3)" >&2
    exit 2
  }
done
[ -x "$layerbench" ] || { echo "test-slurm: build $layerbench first (swift build -c release)" >&2; exit 2; }

work=$(mktemp -d /tmp/layerbench-slurm.XXXXXX)
job=""
cleanup() {
  # A job still running (a timeout, an error) is cancelled before its daemons go.
  [ -n "$job" ] && scancel "$job" 2>/dev/null || true
  local daemons=() alive=()
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munged.pid"; do
    [ -f "$pidfile" ] && daemons+=("$(cat "$pidfile")")
  done
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
  # slurmctld takes a few seconds to save its state and leave; SIGKILL after 30 s.
  for _ in $(seq 300); do
    alive=()
    for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    [ ${#alive[@]} = 0 ] && break
    sleep 0.1
  done
  for pid in "${alive[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
start=$(date +%s.%N)
deadline=$(($(date +%s) + timeout_seconds))
logs() { tail -n 20 "$work"/*.log "$work"/task-*.out 2>/dev/null || true; }

# munge, private to this test: own key, socket, pid file.
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.socket" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"

host=$(hostname -s)
cpus=$(nproc)
# Two free TCP ports on loopback (another test-slurm may run on this machine), unless given.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=layerbench
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=${SLURMCTLD_PORT:-$ctld_port}
SlurmdPort=${SLURMD_PORT:-$slurmd_port}
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
# Pending array tasks start within a second of a free CPU (the default main-loop interval is 60 s).
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -c
slurmd -N "$host"
while true; do
  state=$(sinfo -h -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "test-slurm: FAILED: the Slurm node did not come up within ${timeout_seconds} s (state '$state'); logs:" >&2
    logs >&2
    exit 1
  fi
  sleep 0.1
done
up=$(date +%s.%N)

python3 - "$work/tiles.jsonl" "$tiles" <<'PY'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
fonts = ["Sans 14", "Serif 12", "Monospace 11"]
with open(path, "w") as f:
    for i in range(count):
        f.write(json.dumps({"id": f"t{i:06d}", "text": f"Tile {i}: the quick brown fox jumps over the lazy dog",
                            "font": fonts[i % 3], "width": 200 + i % 5 * 50}) + "\n")
PY

array_start=$(date +%s.%N)
job=$(LAYERBENCH=$layerbench sbatch --parsable --array=0-$((tasks - 1)) --chdir="$work" \
  --output="$work/task-%a.out" "$root/scripts/slurm/batch-array.sbatch" "$work/tiles.jsonl" "$work/sharded")
job=${job%%;*}
# Wait for the array (sbatch --wait cannot be bounded; polling squeue can). A finished array leaves the
# queue; a failed squeue call (slurmctld busy) is retried.
while true; do
  if queued=$(squeue -h -j "$job" -o %i 2>/dev/null); then [ -z "$queued" ] && break; fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "test-slurm: FAILED: the $tasks-task array (job $job) did not finish within ${timeout_seconds} s; queue and logs:" >&2
    squeue -j "$job" >&2 || true
    logs >&2
    exit 1
  fi
  sleep 0.2
done
array_end=$(date +%s.%N)
for ((task = 0; task < tasks; task++)); do
  [ -f "$work/sharded/manifest.$task-of-$tasks.done.json" ] || {
    echo "test-slurm: FAILED: array task $task did not finish its shard; its output:" >&2
    cat "$work/task-$task.out" >&2 || true
    exit 1
  }
done
job=""
"$layerbench" batch merge "$work/sharded"

single_start=$(date +%s.%N)
"$layerbench" batch --input "$work/tiles.jsonl" --out-dir "$work/single" --workers "$cpus" --progress-interval 0
single_end=$(date +%s.%N)

python3 - "$work/sharded/manifest.jsonl" "$work/single/manifest.jsonl" "$tiles" <<'PY'
import json, sys
keys = ("line", "id", "file", "width", "height", "lines", "bytes", "sha256", "error")
a, b = ([tuple(json.loads(l).get(k) for k in keys) for l in open(p)] for p in sys.argv[1:3])
assert len(a) == int(sys.argv[3]), f"{len(a)} merged records, expected {sys.argv[3]}"
assert a == b, "the merged manifest differs from the single-process run"
print(f"test-slurm: {len(a)} tiles, merged Slurm array == single process")
PY
printf 'test-slurm: Slurm up in %.1f s; %d-task array %.1f s; one process, %d workers %.1f s; total %.1f s\n' \
  "$(echo "$up - $start" | bc)" "$tasks" "$(echo "$array_end - $array_start" | bc)" "$cpus" \
  "$(echo "$single_end - $single_start" | bc)" "$(echo "$(date +%s.%N) - $start" | bc)"
