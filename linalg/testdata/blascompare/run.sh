#!/bin/sh
# run.sh compares "ntksvm bench gemm" with OpenBLAS on the same shapes, 1 and
# 2 threads, OpenBLAS with its default core type and with
# OPENBLAS_CORETYPE=SkylakeX, and prints ours/OpenBLAS ratios.
#
# Usage: linalg/testdata/blascompare/run.sh [paper|sweep|small] [RUNS] [ROUNDS]
#   paper (default): the shapes of the paper's experiments (SGEMM 2048³,
#   128×784×10000, 128×10000×10000, Gram 12665×784, DGEMM 2048³ and
#   128×10000×10000, plus SyrkLower 12665×784 against ?syrk like for like);
#   sweep: square 64…4096 in float32 and float64;
#   small: 64³ and 256³ in both types, a quick check of the plumbing.
#   RUNS (default 5) timed runs per shape and program, of which each side
#   reports the median; ROUNDS (default 3) repetitions of the whole
#   sequence ours, OpenBLAS default, OpenBLAS SkylakeX. The table gives the
#   median over rounds of each GFLOP/s figure and of each round's ratio,
#   so that a machine whose speed drifts between minutes (a shared VM)
#   distorts both sides alike. THREADS (default "1 2") the thread counts.
# Needs gcc, Debian's libopenblas-dev and Go. Raw JSON lines are kept in
# $OUT (default a temporary directory), whose path is printed at the end.
set -eu

mode=${1:-paper}
ours_extra=""
runs=${2:-5}
rounds=${3:-3}
threads=${THREADS:-1 2}
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

# tag prefixes each JSON line with the round it belongs to.
tag() { sed "s/^{/{\"round\":$1,/"; }

for r in $(seq "$rounds"); do
	for t in $threads; do
		echo "== round $r: ntksvm, $t thread(s)" >&2
		# shellcheck disable=SC2086 # ours_flags is a word list
		"$out/ntksvm" bench gemm $ours_flags --threads "$t" --runs "$runs" --json | tag "$r" | tee -a "$out/ours.jsonl" >&2
		if [ -n "$ours_extra" ]; then
			# shellcheck disable=SC2086
			"$out/ntksvm" bench gemm $ours_extra --threads "$t" --runs "$runs" --json | tag "$r" | tee -a "$out/ours.jsonl" >&2
		fi
		echo "== round $r: OpenBLAS default core type, $t thread(s)" >&2
		# shellcheck disable=SC2086
		OPENBLAS_NUM_THREADS=$t "$out/blasbench" "$runs" $shapes | tag "$r" | tee -a "$out/default.jsonl" >&2
		echo "== round $r: OpenBLAS SkylakeX, $t thread(s)" >&2
		# shellcheck disable=SC2086
		OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=$t "$out/blasbench" "$runs" $shapes | tag "$r" | tee -a "$out/skylakex.jsonl" >&2
	done
done

# Join the three files on (op, dtype, m, k, n, threads) and round, and print
# medians over the rounds.
awk '
function field(line, key,    re, s) {
	re = "\"" key "\":(\"[^\"]*\"|[-0-9.e+]+)"
	if (!match(line, re)) return ""
	s = substr(line, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	gsub(/"/, "", s)
	return s
}
# median of the n values v[1..n] (sorts v).
function median(v, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
	if (n == 0) return 0
	return (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
}
{
	k = field($0, "op") " " field($0, "dtype") " " field($0, "m") " " field($0, "k") " " field($0, "n") " " field($0, "threads")
	r = field($0, "round"); g = field($0, "gflops") + 0
	if (r > nr) nr = r
	if (FILENAME ~ /ours/) {
		if (!(k in isa)) order[++n] = k
		ours[k, r] = g; isa[k] = field($0, "impl")
	} else if (FILENAME ~ /default/) { def[k, r] = g; defname = field($0, "impl") }
	else { skx[k, r] = g }
}
END {
	printf "%-5s %-8s %6s %6s %6s %3s %-7s %8s %8s %8s %7s %7s\n", "op", "dtype", "M", "K", "N", "thr", "ours", "GFLOP/s", "default", "SkylakeX", "ratio", "ratioSX"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, f, " ")
		no = nd = ns = nrd = nrs = 0
		delete vo; delete vd; delete vs; delete rd; delete rs
		for (r = 1; r <= nr; r++) {
			o = ((k, r) in ours) ? ours[k, r] : 0
			d = ((k, r) in def) ? def[k, r] : 0
			s = ((k, r) in skx) ? skx[k, r] : 0
			if (o > 0) vo[++no] = o
			if (d > 0) vd[++nd] = d
			if (s > 0) vs[++ns] = s
			if (o > 0 && d > 0) rd[++nrd] = o / d
			if (o > 0 && s > 0) rs[++nrs] = o / s
		}
		printf "%-5s %-8s %6d %6d %6d %3d %-7s %8.1f %8.1f %8.1f %7s %7s\n", f[1], f[2], f[3], f[4], f[5], f[6], isa[k],
			median(vo, no), median(vd, nd), median(vs, ns),
			(nrd ? sprintf("%.2f", median(rd, nrd)) : "-"), (nrs ? sprintf("%.2f", median(rs, nrs)) : "-")
	}
	print "default core type: " defname "; " nr " round(s); GFLOP/s = median over rounds; ratio = median over rounds of ours / OpenBLAS default, ratioSX = of ours / OpenBLAS SkylakeX"
}' "$out/ours.jsonl" "$out/default.jsonl" "$out/skylakex.jsonl"
echo "raw JSON lines: $out" >&2
