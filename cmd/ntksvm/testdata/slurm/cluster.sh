# cluster.sh NTKSVM, sourced by test.sh and bench.sh: installs Slurm and
# munge when missing, starts a one-node Slurm cluster on localhost in a
# temporary directory ($work, SLURM_CONF exported) and stops every daemon
# by its PID and removes the directory when the sourcing script exits (a
# trap: on failure and interrupt too). Defines say, fail, wait_jobs ID...
# and job_ok ID. Needs root (SlurmUser=root).
set -euo pipefail

ntksvm=$(realpath "${1:?usage: test.sh|bench.sh path/to/ntksvm}")
here=$(cd "$(dirname "$0")" && pwd)
deploy=$(cd "$here/../../deploy/slurm" && pwd)
repo=$(cd "$here/../../../.." && pwd)
: "${NTKSVM_MNIST_DIR:?set NTKSVM_MNIST_DIR to the folder with the MNIST IDX files}"
export NTKSVM_MNIST_DIR
TIMEOUT=${TIMEOUT:-600} # seconds to wait for a job
t_start=$(date +%s)

say() { printf "[${name:-slurm} %3ds] %s\n" $(($(date +%s) - t_start)) "$*"; }
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

