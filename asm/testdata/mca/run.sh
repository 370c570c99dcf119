#!/bin/sh
# run.sh predicts the throughput of every loop of the NEON kernels with
# llvm-mca on Cortex-A72, Neoverse N1 (also with the wide front end of the
# Cortex-A76 class), Neoverse V1 and V2, and prints FLOP/cycle and the
# share of each core's FMA peak per loop and model (see main.go for the
# peaks assumed and how loops are found).
#
# Usage: asm/testdata/mca/run.sh [ITERATIONS]
#   ITERATIONS (default 300) llvm-mca iterations per loop.
# Needs Go and, installed here with apt-get when missing (as root), Debian's
# llvm-22 (llvm-mca; older releases lack the Neoverse V2 model and model
# N1 differently) and binutils-aarch64-linux-gnu (the disassembler).
set -eu

iters=${1:-300}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mca=/usr/lib/llvm-22/bin/llvm-mca
objdump=aarch64-linux-gnu-objdump

need=""
[ -x "$mca" ] || need="$need llvm-22"
command -v "$objdump" >/dev/null 2>&1 || need="$need binutils-aarch64-linux-gnu"
if [ -n "$need" ]; then
	echo "installing$need" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
GOARCH=arm64 go test -c -o "$tmp/asm.test" ./asm
go run ./asm/testdata/mca -bin "$tmp/asm.test" -dir asm -objdump "$objdump" -mca "$mca" -iterations "$iters"
