#!/bin/sh
# run.sh times one training step of the paper's Fig. 1 network (L = 2 hidden
# layers of m = 10,000, n = 128, d = 784, float32, full batch: forward,
# backward and the SGD update with the penalty) in ntksvm
# (go test -bench BenchmarkNetworkStep ./svm) and in PyTorch (step.py),
# interleaved, with 1 and 2 threads, PyTorch's OpenBLAS with its default core
# type and with OPENBLAS_CORETYPE=SkylakeX, and prints torch/ntksvm ratios
# (> 1: ntksvm is faster).
#
# Usage: cmd/internal/experiment/equiv/testdata/torchcompare/run.sh [RUNS] [ROUNDS]
#   RUNS (default 3) timed steps per program and setting, after one warm-up;
#   each side reports the median. ROUNDS (default 2) repetitions of the whole
#   sequence. REG (default paper) the penalty: paper or theory. THREADS
#   (default "1 2") the thread counts. PYTHON (default /usr/bin/python3, the
#   one Debian's python3-torch installs into).
# Raw JSON lines are kept in $OUT (default a temporary directory).
set -eu

runs=${1:-3}
rounds=${2:-2}
reg=${REG:-paper}
threads=${THREADS:-1 2}
py=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../../.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
rm -f "$out/results.jsonl"

"$py" -c 'import torch' 2>/dev/null || {
	echo "$0: $py cannot import torch: apt-get install -y python3-torch" >&2
	exit 1
}
echo "== building the svm benchmark binary" >&2
(cd "$root" && go test -c -o "$out/svm.test" ./svm)

ours() { # threads
	"$out/svm.test" -test.run '^$' -test.bench "BenchmarkNetworkStep/reg=$reg/" \
		-test.benchtime "${runs}x" -test.cpu "$1" |
		awk -v t="$1" -v r="$reg" '/ns\/op/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ns/op") s = $i / 1e9;
			printf "{\"impl\": \"ntksvm\", \"threads\": %d, \"coretype\": \"-\", \"reg\": \"%s\", \"seconds\": %.6f}\n", t, r, s }'
}

for round in $(seq "$rounds"); do
	for t in $threads; do
		echo "== round $round, $t thread(s): ntksvm" >&2
		ours "$t" | sed "s/^{/{\"round\": $round, /" | tee -a "$out/results.jsonl" >&2
		for ct in default SkylakeX; do
			echo "== round $round, $t thread(s): torch, OpenBLAS core type $ct" >&2
			if [ "$ct" = default ]; then
				env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$t" OMP_NUM_THREADS="$t" \
					"$py" "$here/step.py" --threads "$t" --runs "$runs" --reg "$reg"
			else
				OPENBLAS_CORETYPE=$ct OPENBLAS_NUM_THREADS="$t" OMP_NUM_THREADS="$t" \
					"$py" "$here/step.py" --threads "$t" --runs "$runs" --reg "$reg"
			fi | sed "s/^{/{\"round\": $round, /" | tee -a "$out/results.jsonl" >&2
		done
	done
done

"$py" - "$out/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("threads  ntksvm s  torch s (default)  torch s (SkylakeX)  ratio default  ratio SkylakeX   (median over rounds; ratio = torch/ntksvm per round)")
for t in sorted({r["threads"] for r in rows}):
    def sec(impl, ct=None):
        return {r["round"]: r["seconds"] for r in rows
                if r["threads"] == t and r["impl"] == impl and (ct is None or r["coretype"] == ct)}
    ours, d, s = sec("ntksvm"), sec("torch", "default"), sec("torch", "SkylakeX")
    rd = [d[k] / ours[k] for k in ours if k in d]
    rs = [s[k] / ours[k] for k in ours if k in s]
    med = lambda v: statistics.median(v) if v else float("nan")
    print(f"{t:7d}  {med(list(ours.values())):8.3f}  {med(list(d.values())):17.3f}  {med(list(s.values())):18.3f}  {med(rd):13.2f}  {med(rs):14.2f}")
PY
echo "raw results in $out" >&2
