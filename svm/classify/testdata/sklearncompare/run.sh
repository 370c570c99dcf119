#!/usr/bin/env bash
# Compare ntksvm's class weights and probabilities with scikit-learn's on
# the same precomputed kernel, on a benchmark folder (default
# $NTKSVM_DATASETS_DIR): classweight.py (dual objectives of the weighted
# SVM, three binary datasets) and probability.py (log-loss and expected
# calibration error of cv --probability against SVC(probability=True), every
# dataset, mean over the splits). Installs Debian's python3-sklearn when
# missing. Usage: run.sh [DIR] [classweight|probability] [script flags]
set -euo pipefail
cd "$(dirname "$0")/../../../.."
dir=${1:-${NTKSVM_DATASETS_DIR:?set NTKSVM_DATASETS_DIR or pass the folder}}
which=${2:-both}
shift 2 || shift $# || true
if ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ntksvm" ./cmd/ntksvm
go build -o "$tmp/dual" ./svm/classify/testdata/sklearncompare/dual
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
here=svm/classify/testdata/sklearncompare
echo "load: $(uptime)"
if [ "$which" = both ] || [ "$which" = classweight ]; then
	/usr/bin/python3 "$here/classweight.py" "$dir" --dual "$tmp/dual" "$@"
fi
if [ "$which" = both ] || [ "$which" = probability ]; then
	/usr/bin/python3 "$here/probability.py" "$dir" --ntksvm "$tmp/ntksvm" "$@"
fi
echo "load: $(uptime)"
