#!/usr/bin/env bash
# Ten-class MNIST on the first N training images: ntksvm against NumPy +
# scikit-learn's SVC(kernel='precomputed') on the same NTK, same run, two
# threads each (see mnist.py). Installs Debian's python3-sklearn when
# missing. Usage: mnist.sh [--first N] [--depth L] [--C C] [--mnist-dir D]
set -euo pipefail
cd "$(dirname "$0")/../../../../.."
if ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
go build -o bin/ntksvm ./cmd/ntksvm
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
exec /usr/bin/python3 cmd/internal/experiment/benchdata/compare/mnist.py --ntksvm bin/ntksvm "$@"
