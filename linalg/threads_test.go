package linalg

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSetThreads(t *testing.T) {
	defer SetThreads(0)
	SetThreads(3)
	if got := Threads(); got != 3 {
		t.Fatalf("after SetThreads(3): Threads() = %d", got)
	}
	SetThreads(-1)
	if got, want := Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("after SetThreads(-1): Threads() = %d, want GOMAXPROCS %d", got, want)
	}
}

func TestEvenCuts(t *testing.T) {
	tests := []struct {
		n, q, parts int
		want        []int
	}{
		{100, 4, 1, []int{0, 100}},
		{100, 4, 2, []int{0, 48, 100}},
		{10, 4, 3, []int{0, 4, 8, 10}},
		{128, 14, 2, []int{0, 70, 128}},
		{3, 4, 2, []int{0, 0, 3}},
	}
	for _, tc := range tests {
		if got := evenCuts(tc.n, tc.q, tc.parts); !slices.Equal(got, tc.want) {
			t.Errorf("evenCuts(%d, %d, %d) = %v, want %v", tc.n, tc.q, tc.parts, got, tc.want)
		}
	}
}

// checkParallel runs parallel(n, ·) and reports an error unless every
// share ran once and all had finished when it returned.
func checkParallel(n int) error {
	counts := make([]atomic.Int32, n)
	var done atomic.Int32
	parallel(n, func(w int) {
		counts[w].Add(1)
		done.Add(1)
	})
	if got := done.Load(); got != int32(n) {
		return fmt.Errorf("parallel(%d) returned after %d shares", n, got)
	}
	for w := range counts {
		if c := counts[w].Load(); c != 1 {
			return fmt.Errorf("parallel(%d): share %d ran %d times", n, w, c)
		}
	}
	return nil
}

// TestParallelPool runs parallel back to back (workers spinning), after
// the workers have parked, with more shares than processors, from
// concurrent callers and from inside a share (nested), which take
// goroutines of their own while the pool is busy.
func TestParallelPool(t *testing.T) {
	for round := range 200 {
		if err := checkParallel(1 + round%9); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * poolSpin) // the workers park
	for _, n := range []int{2, 2*runtime.GOMAXPROCS(0) + 3} {
		if err := checkParallel(n); err != nil {
			t.Fatal(err)
		}
	}

	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 50 {
				if err := checkParallel(1 + n%5); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()

	var inner atomic.Int32
	parallel(3, func(w int) {
		parallel(4, func(int) { inner.Add(1) })
	})
	if got := inner.Load(); got != 12 {
		t.Fatalf("nested parallel ran %d inner shares, want 12", got)
	}
}

// TestParallelPoolDataVisible checks that what the caller wrote before
// parallel is seen by the shares, and what the shares wrote is seen by the
// caller after (run with -race, which knows the atomics as synchronization).
func TestParallelPoolDataVisible(t *testing.T) {
	in := make([]int, 64)
	out := make([]int, 64)
	for round := range 100 {
		for i := range in {
			in[i] = round + i
		}
		parallel(4, func(w int) {
			for i := w; i < len(in); i += 4 {
				out[i] = 2 * in[i]
			}
		})
		for i, v := range out {
			if v != 2*(round+i) {
				t.Fatalf("round %d: out[%d] = %d, want %d", round, i, v, 2*(round+i))
			}
		}
	}
}

// checkParallelN runs parallelN(shares, threads, ·) and reports an error
// unless every share ran once and all had finished when it returned.
func checkParallelN(shares, threads int) error {
	counts := make([]atomic.Int32, shares)
	var done atomic.Int32
	parallelN(shares, threads, func(w int) {
		counts[w].Add(1)
		done.Add(1)
	})
	if got := done.Load(); got != int32(shares) {
		return fmt.Errorf("parallelN(%d, %d) returned after %d shares", shares, threads, got)
	}
	for w := range counts {
		if c := counts[w].Load(); c != 1 {
			return fmt.Errorf("parallelN(%d, %d): share %d ran %d times", shares, threads, w, c)
		}
	}
	return nil
}

// TestParallelNShares runs more shares than threads, back to back, from
// concurrent callers and nested, and checks that each share runs once.
func TestParallelNShares(t *testing.T) {
	for round := range 300 {
		if err := checkParallelN(1+round%17, 1+round%4); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 100 {
				if err := checkParallelN(1+(n+g)%11, 1+n%3); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var inner atomic.Int32
	counts := make([]atomic.Int32, 5)
	parallelN(5, 2, func(w int) {
		counts[w].Add(1)
		parallelN(7, 3, func(int) { inner.Add(1) })
	})
	if got := inner.Load(); got != 35 {
		t.Fatalf("nested parallelN ran %d inner shares, want 35", got)
	}
	for w := range counts {
		if c := counts[w].Load(); c != 1 {
			t.Fatalf("nested parallelN: outer share %d ran %d times", w, c)
		}
	}
}

// TestParallelNCallerClaims checks that the caller does not wait for a
// helper that has not started: with one processor, the woken worker
// cannot run until the caller lets go of it, so the caller must run every
// share itself and never wait (a pool that handed fixed shares to its
// workers would wait in every call).
func TestParallelNCallerClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("changes GOMAXPROCS")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	time.Sleep(3 * poolSpin) // the workers park
	calls0, shares0, waits0 := poolCounters.calls.Load(), poolCounters.callerShares.Load(), poolCounters.waits.Load()
	const calls, shares = 100, 6
	var x atomic.Int64
	for range calls {
		parallelN(shares, 2, func(w int) { x.Add(int64(w)) })
	}
	if got, want := x.Load(), int64(calls*shares*(shares-1)/2); got != want {
		t.Fatalf("sum of share indices %d, want %d", got, want)
	}
	dc := poolCounters.calls.Load() - calls0
	ds := poolCounters.callerShares.Load() - shares0
	dw := poolCounters.waits.Load() - waits0
	t.Logf("%d calls: caller ran %d of %d shares and waited in %d", dc, ds, calls*shares, dw)
	// A preemption of the caller (every 10 ms at most) can let the worker
	// in; 100 calls take far less than that.
	if dw > calls/10 || ds < calls*shares*9/10 {
		t.Fatalf("caller ran %d of %d shares and waited in %d of %d calls", ds, calls*shares, dw, calls)
	}
}

// TestParallelNCallerParks makes a share outlast the caller's spinning,
// so that the caller parks and is woken by the share's runner.
func TestParallelNCallerParks(t *testing.T) {
	for range 5 {
		var started atomic.Bool
		var sum atomic.Int64
		parallelN(2, 2, func(w int) {
			if !started.Swap(true) {
				time.Sleep(5 * poolSpin) // the first share claimed is slow
			}
			sum.Add(int64(w + 1))
		})
		if got := sum.Load(); got != 3 {
			t.Fatalf("sum %d, want 3", got)
		}
	}
}
