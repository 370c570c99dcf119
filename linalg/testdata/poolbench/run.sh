#!/bin/sh
# Runs BenchmarkPoolProducts (2-thread 64³–512³ products, RUNS timed one by
# one) for the working tree and, if a revision is given, for that revision
# too, in alternated rounds, each round once with the machine as it is and
# once with a second process (`yes`) pinned to CPU 1 keeping that core busy.
#
#   linalg/testdata/poolbench/run.sh            # this tree only
#   linalg/testdata/poolbench/run.sh 0be974c    # against that revision
#   ROUNDS=5 RUNS=200 BUSY="0 1" linalg/testdata/poolbench/run.sh 0be974c
#
# Prints `uptime` before and after, the raw benchmark lines to $OUT (a
# temporary directory by default), and a table: per build, busy core or not,
# and shape, the median over rounds of the median, p95 and max µs of one
# product, max/median, and the pool's counters (per call: shares the caller
# ran itself, waits for a share another thread had started, parks).
set -eu
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-200}
BUSY=${BUSY:-"0 1"}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
here=$root/linalg/testdata/poolbench
OUT=${OUT:-$(mktemp -d /tmp/poolbench.XXXXXX)}
mkdir -p "$OUT"

(cd "$root" && go test -c -o "$OUT/after.test" ./linalg)
builds=after
if [ $# -ge 1 ]; then
	src=$OUT/before-src
	rm -rf "$src" && mkdir -p "$src"
	git -C "$root" archive "$1" | tar -x -C "$src"
	cp "$root/linalg/pool_bench_test.go" "$src/linalg/"
	# A revision without the pool's counters gets zero ones.
	if ! grep -q poolCounters "$src/linalg/threads.go"; then
		cp "$here/counters_shim.go.txt" "$src/linalg/poolcounters_shim_test.go"
	fi
	(cd "$src" && go test -c -o "$OUT/before.test" ./linalg)
	builds="before after"
fi

echo "load before: $(uptime)"
for r in $(seq "$ROUNDS"); do
	for busy in $BUSY; do
		pid=
		if [ "$busy" = 1 ]; then
			taskset -c 1 yes >/dev/null &
			pid=$!
			sleep 0.2
		fi
		for b in $builds; do
			"$OUT/$b.test" -test.run '^$' -test.bench PoolProducts -test.benchtime "${RUNS}x" |
				grep '^BenchmarkPoolProducts' | sed "s/^/$b busy=$busy round=$r /" >>"$OUT/raw.txt"
		done
		if [ -n "$pid" ]; then
			kill "$pid"
			wait "$pid" 2>/dev/null || true
		fi
	done
done
echo "load after: $(uptime)"
echo "raw lines: $OUT/raw.txt"
awk -f "$here/table.awk" "$OUT/raw.txt"
