package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/asm"
)

// redoRun runs parallelRedo(shares, threads, ·) over out, where share w
// sets out[w] to w+1 (in place, or privately and then committed), and
// reports an error unless each share was committed once and out is right
// when it returns.
func redoRun(shares, threads int) error {
	out := make([]int, shares)
	commits := make([]atomic.Int32, shares)
	parallelRedo(shares, threads, func(w int) {
		commits[w].Add(1)
		out[w] = w + 1
	}, func(w int, s shareSlot) {
		v := w + 1 // the private buffer
		if s.settled() {
			return
		}
		if s.commit() {
			commits[w].Add(1)
			out[w] = v
		}
	})
	for w, v := range out {
		if v != w+1 || commits[w].Load() != 1 {
			return fmt.Errorf("parallelRedo(%d, %d): share %d: %d commits, value %d", shares, threads, w, commits[w].Load(), v)
		}
	}
	return nil
}

// TestParallelRedo runs parallelRedo with and without helpers that stall
// now and then, and checks that every share is committed exactly once.
func TestParallelRedo(t *testing.T) {
	defer func() { shareHook = nil }()
	tests := []struct {
		name  string
		stall time.Duration // every 7th helper share sleeps this long
	}{
		{"no-stall", 0},
		{"stall=200µs", 200 * time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			shareHook = nil
			if tc.stall > 0 {
				shareHook = func(helper bool) {
					if helper && n.Add(1)%7 == 0 {
						time.Sleep(tc.stall)
					}
				}
			}
			for round := range 300 {
				if err := redoRun(1+round%13, 1+round%3); err != nil {
					t.Fatal(err)
				}
			}
			shareHook = nil
			quiesceHelpers()
		})
	}
}

// stallFirstHelper sets shareHook so that the caller's first share waits
// (up to a second) until a helper has claimed a share, and that helper
// stalls in its share until the caller has computed and committed it
// (up to a second), then for d more. It returns functions that report
// whether the helper stalled and whether it has finished stalling.
func stallFirstHelper(d time.Duration) (entered, finished func() bool) {
	var in, stalled, out atomic.Bool
	unshy()
	shareHook = func(helper bool) {
		if helper {
			if !stalled.Swap(true) {
				takeovers := poolCounters.takeovers.Load()
				in.Store(true)
				for t0 := time.Now(); poolCounters.takeovers.Load() == takeovers && time.Since(t0) < time.Second; {
					time.Sleep(20 * time.Microsecond)
				}
				time.Sleep(d)
				out.Store(true)
			}
			return
		}
		for t0 := time.Now(); !in.Load() && time.Since(t0) < time.Second; {
			time.Sleep(10 * time.Microsecond)
		}
	}
	return in.Load, out.Load
}

// unshy makes callers hand their calls to every worker again (see
// poolWorker.loop).
func unshy() {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for _, w := range pool.workers {
		w.shyUntil.Store(0)
	}
}

// TestPoolWorkerShy checks that a worker whose shares are computed by the
// caller twice in a row is left out of the calls that follow, for
// poolShy, and then takes part again.
func TestPoolWorkerShy(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs a worker that spins")
	}
	defer func() { shareHook = nil }()
	defer unshy()
	shy0 := poolCounters.shyParks.Load()
	calls := 0 // it may have been starved once already
	for poolCounters.shyParks.Load() == shy0 && calls <= poolStarved {
		calls++
		entered, _ := stallFirstHelper(0)
		err := redoRun(4, 2)
		shareHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if !entered() {
			t.Skip("no helper claimed a share within a second")
		}
		quiesceHelpers()
		// The worker decides after it has left its share.
		for t0 := time.Now(); poolCounters.shyParks.Load() == shy0 && time.Since(t0) < 10*time.Millisecond; {
			time.Sleep(50 * time.Microsecond)
		}
	}
	if got := poolCounters.shyParks.Load() - shy0; got != 1 {
		t.Fatalf("worker stopped spinning %d times after %d calls it did not help with, want 1", got, calls)
	}
	tShy := time.Now()
	slow := func(int) { time.Sleep(200 * time.Microsecond) }
	shares0, n := poolCounters.callerShares.Load(), 0
	for ; n < 5 && time.Since(tShy) < poolShy/4; n++ { // a loaded machine may sleep long
		parallelN(4, 2, slow)
	}
	if got := poolCounters.callerShares.Load() - shares0; got != int64(4*n) {
		t.Fatalf("while the worker is shy the caller ran %d of %d shares, want all", got, 4*n)
	}
	time.Sleep(poolShy)
	shares0 = poolCounters.callerShares.Load()
	for range 5 {
		parallelN(4, 2, slow)
	}
	if got := poolCounters.callerShares.Load() - shares0; got == 20 {
		t.Fatalf("after poolShy the caller still ran all 20 shares")
	}
}

// TestParallelRedoTakeover stalls a helper inside its share and checks
// that the caller computes the share itself and returns without waiting
// for the helper (except under the race detector, where it waits).
func TestParallelRedoTakeover(t *testing.T) {
	defer func() { shareHook = nil }()
	for range 3 {
		entered, finished := stallFirstHelper(100 * time.Millisecond)
		redos0, takeovers0 := poolCounters.redos.Load(), poolCounters.takeovers.Load()
		err := redoRun(4, 2)
		returnedFirst := !finished()
		shareHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if !entered() {
			t.Skip("no helper claimed a share within a second")
		}
		redos, takeovers := poolCounters.redos.Load()-redos0, poolCounters.takeovers.Load()-takeovers0
		if takeovers != 1 || redos != 1 {
			t.Fatalf("caller computed %d shares again and committed %d, want 1 and 1", redos, takeovers)
		}
		if returnedFirst == raceEnabled {
			t.Fatalf("returned before the stalled helper: %v, want %v", returnedFirst, !raceEnabled)
		}
		quiesceHelpers()
		if !finished() {
			t.Fatal("quiesceHelpers returned before the stalled helper had finished")
		}
		if n := pool.stragglers.Load(); n != 0 {
			t.Fatalf("%d stragglers after quiesceHelpers", n)
		}
	}
}

// TestGemmRedo checks that products whose shares parallelRedo runs (beta
// = 0, direct and packed paths) are bitwise those of one thread, with
// helpers that run normally and with a helper stalled in its share so
// that the caller computes the share again and commits its own copy.
func TestGemmRedo(t *testing.T) {
	defer func() { shareHook = nil }()
	shapes := []struct{ m, n, k int }{
		{97, 131, 89},   // direct, 2 threads
		{131, 127, 129}, // direct
		{257, 131, 203}, // packed (B rows too wide or k·n past L2 for the direct kernels: either way split)
		{129, 1031, 67}, // packed: B too wide for the direct kernels
		{301, 263, 277}, // packed
		{513, 17, 1025}, // packed, narrow C
	}
	rng := rand.New(rand.NewPCG(5, 7))
	for _, sh := range shapes {
		for _, opA := range []Op{NoTrans, Trans} {
			for _, opB := range []Op{NoTrans, Trans} {
				name := fmt.Sprintf("m=%d,n=%d,k=%d,tA=%v,tB=%v", sh.m, sh.n, sh.k, opA, opB)
				t.Run(name+"/float32", func(t *testing.T) { checkGemmRedo[float32](t, rng, sh.m, sh.n, sh.k, opA, opB) })
				t.Run(name+"/float64", func(t *testing.T) { checkGemmRedo[float64](t, rng, sh.m, sh.n, sh.k, opA, opB) })
			}
		}
	}
}

func checkGemmRedo[T Float](t *testing.T, rng *rand.Rand, m, n, k int, opA, opB Op) {
	ar, ac := m, k
	if opA {
		ar, ac = k, m
	}
	br, bc := k, n
	if opB {
		br, bc = n, k
	}
	a := randMatrix[T](rng, ar, ac, 3)
	b := randMatrix[T](rng, br, bc, 1)
	const alpha = 1.5
	want := randMatrix[T](rng, m, n, 2)
	want.Data[0] = T(math.NaN()) // beta = 0 ignores what C held
	if err := gemmWith(gemmConfig{threads: 1}, opA, opB, alpha, a, b, 0, want); err != nil {
		t.Fatal(err)
	}
	for _, stall := range []bool{false, true} {
		for _, ks := range []*asm.Kernels{nil} {
			got := randMatrix[T](rng, m, n, 2)
			got.Data[1] = T(math.Inf(1))
			var entered func() bool
			redos0, takeovers0 := poolCounters.redos.Load(), poolCounters.takeovers.Load()
			calls0 := poolCounters.calls.Load()
			if stall {
				entered, _ = stallFirstHelper(0)
			}
			err := gemmWith(gemmConfig{kern: ks, threads: 2, split: true}, opA, opB, alpha, a, b, 0, got)
			shareHook = nil
			if err != nil {
				t.Fatal(err)
			}
			quiesceHelpers()
			if i := firstBitDiff(got, want); i >= 0 {
				t.Fatalf("stall=%v: element %d (row %d, col %d) is %v, one thread gives %v",
					stall, i, i/m, i%m, got.Data[i], want.Data[i])
			}
			if stall && entered() && poolCounters.takeovers.Load() == takeovers0 {
				t.Fatalf("a helper stalled, yet the caller took over no share (%d calls, %d redos)",
					poolCounters.calls.Load()-calls0, poolCounters.redos.Load()-redos0)
			}
		}
	}
}

// redoCounts returns the pool's redos, takeovers and shyParks counters
// for BenchmarkPoolProducts (testdata/poolbench has a stand-in for
// revisions without them).
func redoCounts() (redos, takeovers, shyParks int64) {
	return poolCounters.redos.Load(), poolCounters.takeovers.Load(), poolCounters.shyParks.Load()
}

// firstBitDiff returns the first index (in Data) where the m×n matrices
// x and y differ bitwise, or -1.
func firstBitDiff[T Float](x, y Matrix[T]) int {
	for i := range x.Rows {
		for j := range x.Cols {
			u, v := x.Data[i*x.Stride+j], y.Data[i*y.Stride+j]
			if u != v && !(u != u && v != v) {
				return i*x.Stride + j
			}
		}
	}
	return -1
}
