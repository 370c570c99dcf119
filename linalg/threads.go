package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// threads is the thread count set by SetThreads; 0 means GOMAXPROCS.
var threads atomic.Int64

// SetThreads sets how many goroutines Gemm, Gram, SyrkLower and Gemv may use
// at once for one call. n ≤ 0 restores the default, runtime.GOMAXPROCS(0)
// at the time of each call. Results do not depend on the thread count: the
// work is split over blocks of C only, never over the summation index.
func SetThreads(n int) {
	threads.Store(int64(max(n, 0)))
}

// Threads returns the thread count the next call will use.
func Threads() int {
	if n := threads.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// parallel runs fn(0), …, fn(n-1) on n goroutines (the caller's among them)
// and returns when all are done.
func parallel(n int, fn func(w int)) {
	if n <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for w := 1; w < n; w++ {
		go func() {
			defer wg.Done()
			fn(w)
		}()
	}
	fn(0)
	wg.Wait()
}

// evenCuts splits [0, n) into parts ranges whose boundaries are multiples of
// q (except the last, n): cuts[i] is the start of range i, cuts[parts] = n.
// Ranges get equal numbers of q-blocks, ±1.
func evenCuts(n, q, parts int) []int {
	blocks := (n + q - 1) / q
	cuts := make([]int, parts+1)
	for i := 1; i < parts; i++ {
		cuts[i] = min(blocks*i/parts*q, n)
	}
	cuts[parts] = n
	return cuts
}
