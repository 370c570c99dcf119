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
