#!/bin/bash
# bench.sh NTKSVM: wall time of the NTK Gram of MNIST 0/1 (the first
# $FIRST points, default all 12,665) in one process against 4, 8 and 16
# tiles as a Slurm array on the one-node cluster of cluster.sh, and the
# per-task overhead: the same tiles run one after another outside Slurm
# (process start, loading and hashing the data, writing and checksumming
# the block), a resubmitted array whose tiles are all done (Slurm's
# scheduling plus loading and verifying), and the collect step. Before
# them, 16 empty tasks (Slurm alone). SIZES="4 8 16" are the tile counts;
# SIZES="" measures the empty tasks only.
set -euo pipefail
name=bench-slurm
. "$(dirname "$0")/cluster.sh" "${1:?usage: bench.sh path/to/ntksvm}"

data=(--data mnist01)
[ -n "${FIRST:-}" ] && data+=(--first "$FIRST")
export DATA=mnist01
sec() { date +%s.%N; }
dt() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }
cd "$work/out"
say "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
t0=$(sec)
arr=$(sbatch --parsable --array=0-15 --wrap=true)
wait_jobs "$arr"
say "16 empty tasks (true) as an array: $(dt "$t0" "$(sec)") s wall"
[ "${SIZES-x}" = "" ] && exit 0
for r in 1 2; do
	t0=$(sec)
	"$NTKSVM" kernel "${data[@]}" --out "$work/ref.npy" 2>/dev/null | sed 's/^/    /'
	say "single process, run $r: $(dt "$t0" "$(sec)") s wall"
done
for n in ${SIZES:-4 8 16}; do
	export NTILES=$n
	t0=$(sec)
	arr=$(sbatch --parsable --array=0-$((n - 1)) --export=ALL,TILES="$work/t$n" "$deploy/tiles.sbatch")
	wait_jobs "$arr"
	t1=$(sec)
	job_ok "$arr"
	comp=$(cat ntksvm-tiles-"${arr}"_*.out | awk '/computed in/ { c += $(NF-10); w += $(NF-4) } END { printf "%.1f s computing, %.1f s writing", c, w }')
	say "$n tiles as a Slurm array: $(dt "$t0" "$t1") s wall ($comp, summed over tasks)"
	t0=$(sec)
	arr=$(sbatch --parsable --array=0-$((n - 1)) --export=ALL,TILES="$work/t$n" "$deploy/tiles.sbatch")
	wait_jobs "$arr"
	say "  the array again, every tile done: $(dt "$t0" "$(sec)") s wall"
	t0=$(sec)
	"$NTKSVM" kernel --collect "$work/t$n" "${data[@]}" --out "$work/c.npy" >/dev/null
	say "  collect (verify $n tiles, write $(stat -c %s "$work/c.npy") bytes): $(dt "$t0" "$(sec)") s"
	cmp "$work/c.npy" "$work/ref.npy" || fail "the collected Gram differs"
	rm -rf "$work/c.npy" "$work/seq"
	t0=$(sec)
	for ((i = 0; i < n; i++)); do "$NTKSVM" kernel "${data[@]}" --tile "$i/$n" --out "$work/seq" >"$work/seq-$i.log" 2>/dev/null; done
	comp=$(cat "$work"/seq-*.log | awk '/computed in/ { c += $(NF-10); w += $(NF-4) } END { printf "%.1f s computing, %.1f s writing", c, w }')
	say "  the $n tiles one after another without Slurm: $(dt "$t0" "$(sec)") s wall ($comp)"
	rm -rf "$work"/seq* "$work/t$n"
done
