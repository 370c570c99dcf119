#!/usr/bin/env bash
# Compare ntksvm's cross-validated NTK classifier with scikit-learn on a
# benchmark folder (default $NTKSVM_DATASETS_DIR), same splits and folds,
# interleaved, two threads each. Installs Debian's python3-sklearn when
# missing. Usage: run.sh [DIR] [compare.py flags, e.g. --names iris,wine]
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
dir=${1:-${NTKSVM_DATASETS_DIR:?set NTKSVM_DATASETS_DIR or pass the folder}}
shift || true
if ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
go build -o bin/ntksvm ./cmd/ntksvm
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
exec /usr/bin/python3 cmd/internal/experiment/benchdata/compare/compare.py "$dir" --ntksvm bin/ntksvm "$@"
