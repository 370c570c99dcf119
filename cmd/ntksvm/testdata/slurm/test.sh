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
# from $NTKSVM_MNIST_DIR (required); KEEP=1 keeps the
# directory for inspection.
set -euo pipefail
name=test-slurm
. "$(dirname "$0")/cluster.sh" "${1:?usage: test.sh path/to/ntksvm}"

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
	local log0="$work/out/ntksvm-tiles-${arr0}_0.out" deadline=$(($(date +%s) + TIMEOUT)) p pid=""
	# The task's process (the batch step execs ntksvm), found before its
	# block starts by the tile directory (unique to this run) on its command
	# line and its array job in its environment, so that the kill follows
	# the first progress line at once.
	until [ -n "$pid" ] && grep -qE 'tile 0/8 rows: [0-9]+%' "$log0" 2>/dev/null; do
		[ "$(date +%s)" -lt $deadline ] || fail "tile 0 never started its block"
		if [ -z "$pid" ]; then
			for p in $(ls /proc | grep -E '^[0-9]+$'); do
				if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF -- "--out $1" &&
					tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qx "SLURM_ARRAY_JOB_ID=$arr0"; then
					pid=$p
				fi
			done
		fi
		sleep 0.02
	done
	kill -KILL "$pid"
	progress=$(grep -oE 'tile 0/8 rows: [0-9]+% [0-9/]+' "$log0" | tail -1)
	wait_jobs "$arr" "$arr0"
	if [ -e "$1/block-0000.json" ]; then
		say "  tile 0 finished its block before it was killed; again"
		scancel "$fit"
		return 1
	fi
	where="computing it"
	compgen -G "$1/.block-0000.npy.tmp-*" >/dev/null && where="writing it"
	say "  killed tile 0 (SIGKILL to PID $pid) while $where, after \"$progress\""
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
