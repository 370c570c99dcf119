package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// threads is the thread count set by SetThreads; 0 means GOMAXPROCS.
var threads atomic.Int64

// SetThreads sets how many goroutines Gemm, Gram, SyrkLower and Gemv may use
// at once for one call. n ≤ 0 restores the default, runtime.GOMAXPROCS(0)
// at the time of each call. Results do not depend on the thread count: the
// work is split over blocks of C only, never over the summation index.
// The extra threads are persistent workers that, after each call, spin for
// up to 100 µs (yielding to any other runnable goroutine) before they park,
// so that back-to-back calls start at once. The shares of a call are
// claimed by whichever thread gets to them first, the caller's included, so
// a worker whose thread the operating system has descheduled delays a call
// by at most the one share it has started.
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

// parallel runs fn(0), …, fn(n-1), each exactly once, on up to n
// goroutines, and returns when all are done. It is parallelN(n, n, fn).
func parallel(n int, fn func(w int)) {
	parallelN(n, n, fn)
}

// parallelN runs the shares fn(0), …, fn(shares-1), each exactly once, on
// the caller's goroutine and up to threads-1 helpers, and returns when all
// have returned. The shares are claimed in order from one atomic counter
// by whoever gets there first, helper or caller: the caller never waits on
// a share no one has started, only on shares that are running (spinning,
// then yielding, then parking). The helpers are the workers of a
// persistent pool, which spin for poolSpin after each call before they
// park: the next call then starts at once rather than after the operating
// system wakes a thread, several times slower than a spinning worker's
// hand-over (docs/performance.md, "Thread thresholds"), which is what
// lets products of about 96³ to 256³ use two cores. While one call uses the pool, another (a
// concurrent caller, or a call made from inside fn) uses goroutines started
// for it instead, which claim shares the same way. Which thread runs a
// share does not change what it computes: results do not depend on it.
func parallelN(shares, threads int, fn func(w int)) {
	threads = min(threads, shares)
	if threads <= 1 {
		for w := range shares {
			fn(w)
		}
		return
	}
	c := &poolCall{fn: fn, n: int64(shares)}
	poolCounters.calls.Add(1)
	if pool.busy.CompareAndSwap(false, true) {
		for _, w := range pool.get(threads - 1) {
			// Swap, not Store: see poolWorker.
			w.job.Swap(c)
			if w.parked.Load() {
				select {
				case w.wake <- struct{}{}:
				default: // a wake-up is already pending
				}
			}
		}
		c.finish()
		pool.busy.Store(false)
		return
	}
	poolCounters.goCalls.Add(1)
	for range threads - 1 {
		go c.work()
	}
	c.finish()
}

// poolCall is one call of parallelN. next is the next share to claim, done
// counts the shares that have returned. A helper may take a call after all
// its shares have been claimed (even after the call has returned): it then
// claims nothing and leaves.
type poolCall struct {
	fn     func(int)
	n      int64
	next   atomic.Int64
	done   atomic.Int64
	waiter atomic.Bool   // the caller is parked, or about to, on wake
	wake   chan struct{} // set by the caller before it sets waiter
}

// work claims and runs shares until none is left.
func (c *poolCall) work() {
	for {
		w := c.next.Add(1) - 1
		if w >= c.n {
			return
		}
		c.fn(int(w))
		if c.done.Add(1) == c.n && c.waiter.Load() {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
}

// finish is the caller's side of a call: it claims and runs shares like
// any helper, then waits for the shares others started: spinning, then
// yielding its thread to other goroutines, then, after poolSpin, parking
// until the last share's runner wakes it.
func (c *poolCall) finish() {
	var mine int64
	for {
		w := c.next.Add(1) - 1
		if w >= c.n {
			break
		}
		mine++
		c.fn(int(w))
		c.done.Add(1)
	}
	poolCounters.callerShares.Add(mine)
	if c.done.Load() == c.n {
		return
	}
	poolCounters.waits.Add(1)
	var deadline time.Time
	for i := 0; c.done.Load() < c.n; i++ {
		switch {
		case i < 64:
			continue
		case i == 64:
			deadline = time.Now().Add(poolSpin)
		case i%16 == 0 && time.Now().After(deadline):
			poolCounters.parks.Add(1)
			c.wake = make(chan struct{}, 1)
			c.waiter.Swap(true) // not Store: see poolWorker
			if c.done.Load() < c.n {
				<-c.wake
			}
			return
		}
		runtime.Gosched()
	}
}

// poolCounters counts what parallelN did, for benchmarks and tests: calls
// with more than one thread, those that ran on goroutines of their own
// (the pool being busy), shares the callers ran, calls whose caller had to
// wait for a share another thread had started, and calls whose caller
// parked doing so; and how often a worker parked. A caller that ran more
// than one share of a call took over a share that a static split would
// have left to a helper that had not started it.
var poolCounters struct {
	calls, goCalls, callerShares, waits, parks, workerParks atomic.Int64
}

// poolSpin is how long a pool worker waits for its next call, spinning,
// before it parks, and how long a caller waits for running shares before
// it parks.
const poolSpin = 100 * time.Microsecond

// pool is parallelN's pool of workers.
var pool workerPool

// workerPool holds the workers of parallelN; busy is set while a call uses
// them.
type workerPool struct {
	busy    atomic.Bool
	mu      sync.Mutex
	workers []*poolWorker
}

// get returns the first n workers, starting any that do not exist yet.
func (p *workerPool) get(n int) []*poolWorker {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.workers) < n {
		w := &poolWorker{wake: make(chan struct{}, 1), index: len(p.workers)}
		p.workers = append(p.workers, w)
		go w.loop()
	}
	return p.workers[:n]
}

// poolWorker takes the calls stored in job. parked is set while it waits
// on wake (or is about to); a caller that stores a job and then sees
// parked sends a wake-up. Both are sequentially consistent atomics, so a
// job stored before the worker sets parked is seen by its check after.
// The caller stores the job with Swap, a read-modify-write, rather than
// Store: Go's atomics are sequentially consistent on real hardware, but an
// emulator may translate a store-release followed by a load-acquire
// (arm64's STLR, LDAR) into a plain store and load that its host reorders
// (qemu-user on x86), and then the caller can miss parked while the
// worker misses the job, and both wait for ever. poolCall's waiter and
// done are the same pattern.
type poolWorker struct {
	job    atomic.Pointer[poolCall]
	parked atomic.Bool
	wake   chan struct{}
	index  int
}

// loop runs the worker: it helps with calls while they come, spins for
// poolSpin after each (only workers that have a processor of their own
// beside the caller's: with more workers than GOMAXPROCS−1 the others
// park at once), then parks until woken.
func (w *poolWorker) loop() {
	for {
		if w.index < runtime.GOMAXPROCS(0)-1 {
			deadline := time.Now().Add(poolSpin)
			for i := 1; ; i++ {
				if c := w.job.Swap(nil); c != nil {
					c.work()
					deadline = time.Now().Add(poolSpin)
					continue
				}
				if i%64 == 0 {
					if time.Now().After(deadline) {
						break
					}
					runtime.Gosched() // let any runnable goroutine have the thread
				}
			}
		}
		w.parked.Store(true)
		if c := w.job.Swap(nil); c != nil {
			w.parked.Store(false)
			c.work()
			continue
		}
		poolCounters.workerParks.Add(1)
		<-w.wake
		w.parked.Store(false)
	}
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
