#!/bin/sh
# run.sh compares "ntksvm bench gemm" with OpenBLAS on the same shapes, 1 and
# 2 threads, OpenBLAS with its default core type and with
# OPENBLAS_CORETYPE=SkylakeX, and prints ours/OpenBLAS ratios.
#
# Usage: linalg/testdata/blascompare/run.sh [paper|sweep|small] [RUNS]
#   paper (default): the shapes of the paper's experiments (SGEMM 2048³,
#   128×784×10000, 128×10000×10000, Gram 12665×784, DGEMM 2048³ and
#   128×10000×10000, plus SyrkLower 12665×784 against ?syrk like for like);
#   sweep: square 64…4096 in float32 and float64;
#   small: 64³ and 256³ in both types, a quick check of the plumbing.
#   RUNS (default 5) timed runs per shape; medians are compared.
# Needs gcc, Debian's libopenblas-dev and Go. Raw JSON lines are kept in
# $OUT (default a temporary directory), whose path is printed at the end.
set -eu

mode=${1:-paper}
ours_extra=""
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
rm -f "$out/ours.jsonl" "$out/default.jsonl" "$out/skylakex.jsonl"

case $mode in
paper)
	shapes="gemm:float32:2048:2048:2048 gemm:float32:128:784:10000 gemm:float32:128:10000:10000
gram:float32:12665:784:12665 gemm:float64:2048:2048:2048 gemm:float64:128:10000:10000
syrk:float32:12665:784:12665"
	ours_flags=""
	# linalg.Gram also fills the upper triangle, which ?syrk does not: the
	# extra syrk row compares like with like.
	ours_extra="--shapes syrk:12665x784 --float32"
	;;
sweep)
	shapes=""
	for dt in float32 float64; do
		for s in 64 128 256 512 1024 2048 4096; do
			shapes="$shapes gemm:$dt:$s:$s:$s"
		done
	done
	ours_flags="--sweep"
	;;
small)
	shapes="gemm:float32:64:64:64 gemm:float32:256:256:256 gemm:float64:64:64:64 gemm:float64:256:256:256"
	ours_flags="--shapes 64x64x64,256x256x256"
	;;
*)
	echo "usage: $0 [paper|sweep|small] [RUNS]" >&2
	exit 2
	;;
esac

echo "== building the OpenBLAS driver and ntksvm" >&2
gcc -O2 -Wall -o "$out/blasbench" "$here/bench.c" -lopenblas
(cd "$root" && go build -o "$out/ntksvm" ./cmd/ntksvm)

for t in 1 2; do
	echo "== ntksvm, $t thread(s)" >&2
	# shellcheck disable=SC2086 # ours_flags is a word list
	"$out/ntksvm" bench gemm $ours_flags --threads "$t" --runs "$runs" --json | tee -a "$out/ours.jsonl" >&2
	if [ -n "$ours_extra" ]; then
		# shellcheck disable=SC2086
		"$out/ntksvm" bench gemm $ours_extra --threads "$t" --runs "$runs" --json | tee -a "$out/ours.jsonl" >&2
	fi
	echo "== OpenBLAS default core type, $t thread(s)" >&2
	# shellcheck disable=SC2086
	OPENBLAS_NUM_THREADS=$t "$out/blasbench" "$runs" $shapes | tee -a "$out/default.jsonl" >&2
	echo "== OpenBLAS SkylakeX, $t thread(s)" >&2
	# shellcheck disable=SC2086
	OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=$t "$out/blasbench" "$runs" $shapes | tee -a "$out/skylakex.jsonl" >&2
done

# Join the three files on (op, dtype, m, k, n, threads) and print the table.
awk '
function field(line, key,    re, s) {
	re = "\"" key "\":(\"[^\"]*\"|[-0-9.e+]+)"
	if (!match(line, re)) return ""
	s = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	gsub(/"/, "", s)
	return s
}
{
	k = field($0, "op") " " field($0, "dtype") " " field($0, "m") " " field($0, "k") " " field($0, "n") " " field($0, "threads")
	g = field($0, "gflops")
	if (FILENAME ~ /ours/) { ours[k] = g; isa[k] = field($0, "impl"); order[++n] = k }
	else if (FILENAME ~ /default/) { def[k] = g; defname = field($0, "impl") }
	else { skx[k] = g }
}
END {
	printf "%-5s %-8s %6s %6s %6s %3s %-7s %8s %8s %8s %7s %7s\n", "op", "dtype", "M", "K", "N", "thr", "ours", "GFLOP/s", "default", "SkylakeX", "ratio", "ratioSX"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, f, " ")
		d = def[k] + 0; s = skx[k] + 0
		printf "%-5s %-8s %6d %6d %6d %3d %-7s %8.1f %8.1f %8.1f %7s %7s\n", f[1], f[2], f[3], f[4], f[5], f[6], isa[k], ours[k], d, s,
			((d > 0) ? sprintf("%.2f", ours[k] / d) : "-"), ((s > 0) ? sprintf("%.2f", ours[k] / s) : "-")
	}
	print "default core type: " defname "; ratio = ours / OpenBLAS default, ratioSX = ours / OpenBLAS SkylakeX"
}' "$out/ours.jsonl" "$out/default.jsonl" "$out/skylakex.jsonl"
echo "raw JSON lines: $out" >&2
