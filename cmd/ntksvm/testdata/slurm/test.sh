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
#  2. Submits the array again into a new tile directory, kills tile 0 with
#     SIGKILL half-way through writing its block (held there by the test
#     hook $NTKSVM_TEST_HOLD_TILE, so the timing does not depend on the
#     load), checks that it left no block, that collect refuses the
#     directory naming tile 0, resubmits index 0 alone with a new dependent
#     collect + fit job, and checks both results again.
#  3. Submits the cross-validation of "ntksvm cv" on MNIST's first 1,000
#     points as an array of 8 tasks (cv-tasks.sbatch) and the collect and
#     refit job after it (cv-collect.sbatch), and checks that the table and
#     the model are bit for bit those of "ntksvm cv" in one process.
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

say "2. the array again; tile 0 killed half-way through writing its block"
mkdir -p "$work/run2"
tiles2="$work/tiles2"
# Tile 0 runs with the test hook $NTKSVM_TEST_HOLD_TILE: once half of its
# block's bytes are in the temporary file it writes its PID to the marker
# and waits, so the kill lands in the middle of the block whatever the
# machine's load.
marker="$work/tile0.held"
arr=$(sbatch --parsable --array=1-7 --export=ALL,TILES="$tiles2" "$deploy/tiles.sbatch")
arr0=$(sbatch --parsable --array=0 --export=ALL,NTKSVM_TEST_HOLD_TILE="$marker",TILES="$tiles2" "$deploy/tiles.sbatch")
fit=$(sbatch --parsable --dependency=afterok:"$arr":"$arr0" --export=ALL,TILES="$tiles2",OUT="$work/run2" "$deploy/collect-fit.sbatch")
deadline=$(($(date +%s) + TIMEOUT))
until [ -s "$marker" ]; do
	[ "$(date +%s)" -lt $deadline ] || fail "tile 0 did not reach the middle of its block in ${TIMEOUT}s"
	squeue -h -j "$arr0" | grep -q . || fail "tile 0's job $arr0 ended before the middle of its block"
	sleep 0.1
done
pid=$(cat "$marker")
tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "--out $tiles2" || fail "PID $pid in $marker is not tile 0's task"
tmp=$(compgen -G "$tiles2/.block-0000.npy.tmp-*") || fail "tile 0 holds, but no partial block-0000.npy is there"
part=$(stat -c %s "$tmp")
[ ! -e "$tiles2/block-0000.npy" ] && [ ! -e "$tiles2/block-0000.json" ] || fail "tile 0 holds, but its block or record is there already"
kill -KILL "$pid"
say "  killed tile 0 (SIGKILL to PID $pid) with $part bytes of its block written to $(basename "$tmp")"
wait_jobs "$arr" "$arr0"
job_ok "$arr"
[ ! -e "$tiles2/block-0000.npy" ] && [ ! -e "$tiles2/block-0000.json" ] || fail "the killed tile 0 left a block or record"
say "  tile 0's job $arr0: $(scontrol -o show job "$arr0" | grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+' | tr '\n' ' ')"
say "  the dependent fit job: $(squeue -h -j "$fit" -o '%T (%r)')"
if "$NTKSVM" kernel --collect "$tiles2" "${data[@]}" --out "$work/run2/K.npy" >"$work/log/collect2.log" 2>&1; then
	fail "collect accepted a directory without tile 0"
fi
grep -qE 'tile 0: block-0000\.npy \(rows 0…1407\) is missing; run tile 0/8' "$work/log/collect2.log" ||
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

say "3. cross-validation as an array: MNIST's first 1,000 points (10 classes), 2 depths × 3 C × 3 folds × 45 class pairs in 8 tasks, then collect + refit (afterok)"
cv=(--data mnist --first 1000 --depth 1-2 --C 1e-1:1e1:3 --folds 3 --sigma-b 0)
(cd "$work" && "$NTKSVM" cv "${cv[@]}" --out "$work/ref-cv.model" >"$work/log/ref-cv.log" 2>&1) ||
	fail "ntksvm cv: $(tail -3 "$work/log/ref-cv.log")"
mkdir -p "$work/run3"
t0=$(date +%s.%N)
arr=$(DATA=mnist FIRST=1000 CV_FLAGS="${cv[*]:4}" NTASKS=8 TASKS="$work/cv" sbatch --parsable --array=0-7 --export=ALL "$deploy/cv-tasks.sbatch")
fit=$(DATA=mnist FIRST=1000 CV_FLAGS="${cv[*]:4}" TASKS="$work/cv" OUT="$work/run3" sbatch --parsable --dependency=afterok:"$arr" --export=ALL "$deploy/cv-collect.sbatch")
wait_jobs "$arr" "$fit"
t1=$(date +%s.%N)
job_ok "$arr"
job_ok "$fit"
say "  array $arr and collect $fit done in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s: $(grep -h 'cells from' "$work/out/ntksvm-cv-fit-$fit.out")"
cmp "$work/run3/model.ntksvm" "$work/ref-cv.model" || fail "the model of the cross-validation array differs from ntksvm cv's"
table() { grep -E '^(ntk|nngp) ' "$1"; }
[ "$(table "$work/out/ntksvm-cv-fit-$fit.out")" = "$(table "$work/log/ref-cv.log")" ] && [ -n "$(table "$work/log/ref-cv.log")" ] ||
	fail "the table of the cross-validation array differs from ntksvm cv's"
say "  the table and the model ($(stat -c %s "$work/run3/model.ntksvm") bytes) are bit for bit those of ntksvm cv: $(grep chosen "$work/log/ref-cv.log" | sed 's/  */ /g')"
