#!/bin/sh
# The exact SVM solve, ntksvm's svm.SolveDual against scikit-learn's libsvm
# (SVC, kernel='precomputed'), on the same in-memory NTK Gram of MNIST 0/1,
# in alternated rounds; and, separately, what reading the Gram costs: our
# .npy (linalg.ReadNpy, numpy.load) against libsvm's text format.
#
#   NTKSVM_MNIST_DIR=... svm/testdata/libsvmcompare/run.sh
#   ROUNDS=5 RUNS=5 LAMBDA=0.064 TEXT=1 DATA=/tmp/libsvmcompare PYTHON=/usr/bin/python3 svm/testdata/libsvmcompare/run.sh
#
# Needs Go, python3 with numpy and scikit-learn (Debian python3-sklearn),
# bc, and for TEXT=1 optionally libsvm's svm-train (Debian libsvm-tools).
# The Gram (1.28 GB, 4 GB more with TEXT=1) is written once into $DATA and
# reused; nothing is written inside the repository. Prints `uptime`, the
# JSON lines of every round, and the median over rounds of each side's
# median solve time and their ratio.
set -eu
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}
LAMBDA=${LAMBDA:-0.064}
TEXT=${TEXT:-0}
DATA=${DATA:-/tmp/libsvmcompare}
PYTHON=${PYTHON:-/usr/bin/python3} # Debian's, where python3-sklearn installs
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
here=$root/svm/testdata/libsvmcompare
bin=$DATA/libsvmcompare
mkdir -p "$DATA"
(cd "$root" && go build -o "$bin" ./svm/testdata/libsvmcompare)
if [ ! -f "$DATA/K.npy" ] || { [ "$TEXT" = 1 ] && [ ! -f "$DATA/K.libsvm" ]; }; then
	textflag=
	[ "$TEXT" = 1 ] && textflag=-text
	"$bin" -write "$DATA" $textflag
fi
C=$("$PYTHON" -c "print(1/$LAMBDA)")
pytext=
[ "$TEXT" = 1 ] && pytext=--text
echo "load before: $(uptime)"
: >"$DATA/rounds.jsonl"
for r in $(seq "$ROUNDS"); do
	# Each side reads K.npy from the page cache: without this, the side
	# that runs after the other's 4 GB text read (or after memory pressure
	# from elsewhere) reads it from the disk and the comparison is of the
	# disk, not of the readers.
	cat "$DATA/K.npy" >/dev/null
	"$bin" -solve "$DATA" -lambda "$LAMBDA" -runs "$RUNS" | tee -a "$DATA/rounds.jsonl"
	cat "$DATA/K.npy" >/dev/null
	"$PYTHON" "$here/compare.py" "$DATA" --C "$C" --runs "$RUNS" $pytext | tee -a "$DATA/rounds.jsonl"
	pytext= # the text file is read in the first round only
done
if [ "$TEXT" = 1 ] && command -v svm-train >/dev/null; then
	# libsvm's own reader: svm-train reads the whole file before it checks
	# its parameters, so with -c 0 it parses and stops.
	t0=$(date +%s.%N)
	svm-train -t 4 -c 0 "$DATA/K.libsvm" "$DATA/unused.model" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "{\"side\": \"svm-train\", \"read_text_seconds\": $(echo "$t1 - $t0" | bc)}" | tee -a "$DATA/rounds.jsonl"
fi
echo "load after: $(uptime)"
"$PYTHON" - "$DATA/rounds.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ours = [r for r in rows if r["side"] == "ntksvm"]
st = [r for r in rows if r["side"] == "svm-train"]
lib = [r for r in rows if r["side"] == "libsvm"]
ratios = [l["solve_seconds"] / o["solve_seconds"] for o, l in zip(ours, lib)]
m = statistics.median
print(f"solve, median over {len(ratios)} rounds: ntksvm {m(r['solve_seconds'] for r in ours):.3f} s, "
      f"libsvm {m(r['solve_seconds'] for r in lib):.3f} s, libsvm/ntksvm {m(ratios):.2f}x (per round: "
      + ", ".join(f"{x:.2f}" for x in ratios) + ")")
print(f"dual objective: ntksvm {ours[-1]['dual']:.10g}, libsvm {lib[-1]['dual']:.10g}; "
      f"support vectors {ours[-1]['support_vectors']} / {lib[-1]['support_vectors']}; "
      f"iterations {ours[-1]['iterations']} / {lib[-1]['iterations']}")
print(f"read K.npy: linalg.ReadNpy {m(r['read_npy_seconds'] for r in ours):.2f} s, "
      f"numpy.load {m(r['read_npy_seconds'] for r in lib):.2f} s")
t = [r["read_text_seconds"] for r in lib if "read_text_seconds" in r]
if t:
    print(f"read K.libsvm (text) with sklearn load_svmlight_file: {t[0]:.1f} s")
if st:
    print(f"read K.libsvm (text) with libsvm's svm-train -c 0 (parses, then refuses C = 0): {st[0]['read_text_seconds']:.1f} s")
PY
