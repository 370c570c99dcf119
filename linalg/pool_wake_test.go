package linalg

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolWakeUp makes many two-thread calls whose second share lasts
// about as long as the caller spins before it parks (poolSpin), so that
// shares keep finishing just as the caller parks, and calls that arrive
// just as the worker parks: a lost wake-up on either side (one thread
// missing the other's flag while the other misses its count or job) would
// hang a call for ever. The hang seen under qemu-user (the caller parked
// on a call whose last share had finished; see poolWorker) is rare: this
// test did not reproduce it in 120,000 calls under qemu, so it guards the
// protocol's logic rather than proving the emulator case.
func TestPoolWakeUp(t *testing.T) {
	calls := 4000
	if testing.Short() {
		calls = 1000
	}
	done := make(chan struct{})
	var sum atomic.Int64
	go func() {
		defer close(done)
		for i := range calls {
			d := poolSpin * time.Duration(80+i%41) / 100
			parallelN(2, 2, func(w int) {
				if w == 1 {
					for t0 := time.Now(); time.Since(t0) < d; {
					}
				}
				sum.Add(int64(w))
			})
			if i%3 == 0 {
				time.Sleep(poolSpin * time.Duration(80+i%41) / 100)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("a call has not returned after 2 minutes (%d shares done)", sum.Load())
	}
	if got, want := sum.Load(), int64(calls); got != want {
		t.Fatalf("shares sum %d, want %d", got, want)
	}
}
