#!/bin/bash
# test.sh NTKSVM: the job files of cmd/ntksvm/deploy/slurm on a real
# one-node Slurm cluster on localhost ("make test-slurm").
#
# Installs the Debian packages slurmd slurmctld slurm-client munge when
# missing, then, in a temporary directory, creates a munge key and a
# slurm.conf and starts munged, slurmctld and slurmd by hand (no systemd).
#  1. Submits the 8 tile tasks of the NTK Gram of MNIST 0/1 (first 4,000
#     points) as an array and the collect + fit job after it
#     (--dependency=afterok), and checks that the collected Gram and the
#     model are bit for bit those of "ntksvm kernel" and "ntksvm train" in
#     one process.
#  2. Submits the array again into a new tile directory, single-threaded,
#     kills tile 0 with SIGKILL in the middle of its block, checks that
#     collect refuses the directory naming tile 0, resubmits index 0 alone
#     with a new dependent collect + fit job, and checks both results again.
# Every daemon is stopped by its PID and the directory removed on exit,
# failure or interrupt included. Needs root (SlurmUser=root). MNIST comes
# from $NTKSVM_MNIST_DIR (default /work/shared/mnist); KEEP=1 keeps the
# directory for inspection.
set -euo pipefail

ntksvm=$(realpath "${1:?usage: test.sh path/to/ntksvm}")
here=$(cd "$(dirname "$0")" && pwd)
deploy=$(cd "$here/../../deploy/slurm" && pwd)
repo=$(cd "$here/../../../.." && pwd)
export NTKSVM_MNIST_DIR=${NTKSVM_MNIST_DIR:-/work/shared/mnist}
TIMEOUT=${TIMEOUT:-600} # seconds to wait for a job
t_start=$(date +%s)

say() { printf '[test-slurm %3ds] %s\n' $(($(date +%s) - t_start)) "$*"; }
fail() {
	say "FAIL: $*"
	exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root: the test cluster runs with SlurmUser=root"
[ -e "$NTKSVM_MNIST_DIR/train-images-idx3-ubyte.gz" ] || [ -e "$NTKSVM_MNIST_DIR/train-images-idx3-ubyte" ] ||
	fail "no MNIST in $NTKSVM_MNIST_DIR (set NTKSVM_MNIST_DIR)"

install_slurm() {
	local missing=""
	for c in munged slurmctld slurmd sbatch; do command -v $c >/dev/null || missing=1; done
	[ -z "$missing" ] && return
	say "installing slurmd slurmctld slurm-client munge (apt-get)"
	# Keep the packages' init scripts from starting daemons of their own.
	local policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=1
	fi
	local rc=0
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 \
		--no-install-recommends slurmd slurmctld slurm-client munge; } >/tmp/ntksvm-test-slurm-apt.log 2>&1 || rc=$?
	[ -n "$policy" ] && rm -f /usr/sbin/policy-rc.d
	[ $rc = 0 ] || { tail -20 /tmp/ntksvm-test-slurm-apt.log; fail "apt-get install failed (log above)"; }
	say "installed: $(slurmd -V)"
}
install_slurm

work=$(mktemp -d /tmp/ntksvm-slurm.XXXXXX)
chmod 755 "$work"
pids=() # munged, slurmctld, slurmd: stopped in reverse order

cleanup() {
	local rc=$?
	set +e
	if [ -n "${SLURM_CONF:-}" ] && [ ${#pids[@]} -ge 2 ]; then
		scancel --quiet --user=root 2>/dev/null
		for _ in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
	fi
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		kill -TERM "${pids[i]}" 2>/dev/null
		for _ in $(seq 50); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "${pids[i]}" 2>/dev/null
		wait "${pids[i]}" 2>/dev/null
	done
	# Anything still running from the directory (a job step's process that
	# outlived its slurmd) is ours: stop it by PID.
	for p in $(ls /proc | grep -E '^[0-9]+$'); do
		if [ "$p" != $$ ] && { tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF "$work" ||
			[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$work" ]; }; then
			say "stopping leftover process $p: $(tr '\0' ' ' <"/proc/$p/cmdline")"
			kill -KILL "$p" 2>/dev/null
		fi
	done
	if [ $rc != 0 ]; then
		for f in "$work"/log/*.log "$work"/out/*.out; do
			[ -s "$f" ] && { echo "---- $f (last lines)"; tail -15 "$f"; }
		done
	fi
	if [ -n "${KEEP:-}" ]; then say "kept $work"; else rm -rf "$work"; fi
	[ $rc = 0 ] && say "PASS" || say "FAILED (status $rc)"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work"/{log,state,spool,munge,out,bin}
cp "$ntksvm" "$work/bin/ntksvm"
export NTKSVM="$work/bin/ntksvm"

# munge: a fresh key and a daemon on a socket of our own.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
	--pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
	--log-file="$work/log/munged.log" >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.sock" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.sock" ] || fail "munged did not start"

# slurm.conf: this machine's CPUs and memory as one node, localhost.
cpus=$(nproc)
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
port=$((20000 + RANDOM % 20000))
host=$(hostname -s)
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=ntksvmtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=60
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
	sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
	sleep 0.2
done
sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' || fail "the node did not come up: $(sinfo 2>&1)"
say "cluster up: $(sinfo -h -o '%n %T %c CPUs %m MB') (munged ${pids[0]}, slurmctld ${pids[1]}, slurmd ${pids[2]})"

# wait_jobs ID...: wait until none of the jobs is pending or running.
wait_jobs() {
	local deadline=$(($(date +%s) + TIMEOUT))
	while squeue -h -j "$(
		IFS=,
		echo "$*"
	)" -t PENDING,RUNNING,COMPLETING,SUSPENDED 2>/dev/null | grep -q .; do
		[ "$(date +%s)" -lt $deadline ] || fail "jobs $* still queued after ${TIMEOUT}s: $(squeue)"
		sleep 0.5
	done
}

# job_ok ID: every task of the job completed with exit code 0.
job_ok() {
	local st
	st=$(scontrol -o show job "$1" | grep -oE 'JobState=[A-Z_]+ .*ExitCode=[0-9]+:[0-9]+' |
		sed -E 's/JobState=([A-Z_]+) .*ExitCode=([0-9:]+)/\1 \2/' | sort -u)
	[ "$st" = "COMPLETED 0:0" ] || fail "job $1: $st"
}

data=(--data mnist01 --first 4000)
export DATA=mnist01 FIRST=4000 NTILES=8

say "single-process reference: ntksvm kernel and ntksvm train"
(cd "$work" && "$NTKSVM" kernel "${data[@]}" --out "$work/ref-K.npy" >"$work/log/ref-kernel.log" 2>&1) ||
	fail "ntksvm kernel: $(tail -3 "$work/log/ref-kernel.log")"
(cd "$work" && "$NTKSVM" train "${data[@]}" --out "$work/ref-model.ntksvm" >"$work/log/ref-train.log" 2>&1) ||
	fail "ntksvm train: $(tail -3 "$work/log/ref-train.log")"
(cd "$repo" && go build -o "$work/bin/samemodel" ./cmd/ntksvm/testdata/slurm/samemodel)

# check_results DIR: DIR/K.npy and DIR/model.ntksvm equal the references.
check_results() {
	cmp "$1/K.npy" "$work/ref-K.npy" || fail "the collected Gram $1/K.npy differs from the single-process one"
	"$work/bin/samemodel" "$1/model.ntksvm" "$work/ref-model.ntksvm" || fail "the model differs from the single-process one"
	say "  $1/K.npy: bit for bit the single-process Gram ($(stat -c %s "$1/K.npy") bytes)"
}

say "1. array of $NTILES tile tasks, then collect + fit (afterok)"
mkdir -p "$work/run1"
cd "$work/out"
t0=$(date +%s.%N)
arr=$(sbatch --parsable --array=0-7 --export=ALL,TILES="$work/tiles1" "$deploy/tiles.sbatch")
fit=$(sbatch --parsable --dependency=afterok:"$arr" --export=ALL,TILES="$work/tiles1",OUT="$work/run1" "$deploy/collect-fit.sbatch")
wait_jobs "$arr" "$fit"
t1=$(date +%s.%N)
job_ok "$arr"
job_ok "$fit"
say "  array $arr and fit $fit done in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
check_results "$work/run1"

say "2. the array again; tile 0, slowed, killed in the middle of its block"
mkdir -p "$work/run2"
# kill_tile0 DIR: submit tiles 1-7, tile 0 slowed down (one thread, the
# portable kernels: about 10 times slower) and the fit after both into DIR;
# kill tile 0 by SIGKILL once its block is under way. Fails (status 1) if
# the block was finished before the kill.
kill_tile0() {
	arr=$(sbatch --parsable --array=1-7 --export=ALL,TILES="$1" "$deploy/tiles.sbatch")
	arr0=$(sbatch --parsable --array=0 --export=ALL,GOMAXPROCS=1,NTKSVM_SIMD=generic,TILES="$1" "$deploy/tiles.sbatch")
	fit=$(sbatch --parsable --dependency=afterok:"$arr":"$arr0" --export=ALL,TILES="$1",OUT="$work/run2" "$deploy/collect-fit.sbatch")
	local log0="$work/out/ntksvm-tiles-${arr0}_0.out" deadline=$(($(date +%s) + TIMEOUT)) p pids=""
	until grep -qE 'tile 0/8 rows: [0-9]+%' "$log0" 2>/dev/null; do
		[ "$(date +%s)" -lt $deadline ] || fail "tile 0 never started its block"
		sleep 0.02
	done
	# The job's processes on this node (the batch step is ntksvm itself).
	pids=$(scontrol listpids "$arr0" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }')
	[ -n "$pids" ] || fail "scontrol listpids $arr0 lists no process"
	for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
	progress=$(grep -oE 'tile 0/8 rows: [0-9]+% [0-9/]+' "$log0" | tail -1)
	wait_jobs "$arr" "$arr0"
	if [ -e "$1/block-0000.json" ]; then
		say "  tile 0 finished its block before it was killed; again"
		scancel "$fit"
		return 1
	fi
	where="computing it"
	compgen -G "$1/.block-0000.npy.tmp-*" >/dev/null && where="writing it"
	say "  killed tile 0 (SIGKILL to PIDs $(echo $pids)) while $where, after \"$progress\""
}
try=1
until kill_tile0 "$work/tiles2-$try"; do
	try=$((try + 1))
	[ $try -le 3 ] || fail "could not catch tile 0 in the middle of its block in 3 tries"
done
tiles2="$work/tiles2-$try"
say "  tile 0's job $arr0: $(scontrol -o show job "$arr0" | grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+' | tr '\n' ' ')"
say "  the dependent fit job: $(squeue -h -j "$fit" -o '%T (%r)')"
if "$NTKSVM" kernel --collect "$tiles2" "${data[@]}" --out "$work/run2/K.npy" >"$work/log/collect2.log" 2>&1; then
	fail "collect accepted a directory without tile 0"
fi
grep -qE 'tile 0: block-0000\.npy \(rows 0…1407\) (is missing; run tile 0/8|has no record)' "$work/log/collect2.log" ||
	fail "collect's refusal does not name tile 0: $(cat "$work/log/collect2.log")"
say "  collect refused: $(grep 'tile 0' "$work/log/collect2.log")"
scancel "$fit"
arr0=$(sbatch --parsable --array=0 --export=ALL,TILES="$tiles2" "$deploy/tiles.sbatch")
fit=$(sbatch --parsable --dependency=afterok:"$arr0" --export=ALL,TILES="$tiles2",OUT="$work/run2" "$deploy/collect-fit.sbatch")
wait_jobs "$arr0" "$fit"
job_ok "$arr0"
job_ok "$fit"
say "  resubmitted index 0 alone ($arr0) and the fit ($fit): done"
check_results "$work/run2"
leftover=$(ls -A "$tiles2" | grep -v -E '^(manifest\.json|block-[0-9]{4}\.(npy|json))$' || true)
[ -z "$leftover" ] || say "  (the killed task left $leftover; collect ignores it)"
