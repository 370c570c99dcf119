#!/bin/sh
# Compare ntksvm's NTK regression (svm/regress) with scikit-learn's
# KernelRidge and SVR on the same precomputed NTK, grid and folds, and with
# RandomForestRegressor(500), on data sets Debian's python3-sklearn
# installs (read from its files, nothing copied into the repository).
#
#   svm/regress/testdata/sklearncompare/run.sh [diabetes] [boston]
#
# Needs Go and Debian's python3-sklearn (installed when missing), used
# through /usr/bin/python3 (PYTHON= to change). Exits 1 when a predictions
# check is above 1e-6.
set -eu
PYTHON=${PYTHON:-/usr/bin/python3}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
here=$root/svm/regress/testdata/sklearncompare
if ! "$PYTHON" -c 'import sklearn' 2>/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
bin=$(mktemp -d)/sklearncompare
(cd "$root" && go build -o "$bin" ./svm/regress/testdata/sklearncompare && go build -o "$bin-ntksvm" ./cmd/ntksvm)
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
echo "load: $(uptime)"
status=0
for d in ${*:-diabetes}; do
	"$PYTHON" "$here/compare.py" --dataset "$d" --go "$bin" --ntksvm "$bin-ntksvm" || status=1
	echo
done
rm -r "$(dirname "$bin")"
exit $status
