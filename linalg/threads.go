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
// by at most the one share it has started; for Gemm with beta = 0 up to
// about 512³ not even that: the caller computes that share again itself
// (the worker's copy is discarded; it may go on reading A and B for a
// while after Gemm has returned, never writing anything the caller sees).
// A worker that has not helped with two calls in a row (its thread kept
// from running by other processes) stops spinning and is left out of
// calls for 20 ms, so that it does not take the processor from the caller.
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

// parallelRedo is parallelN for shares that may be computed twice, so
// that a share a helper has started is not lost when the operating system
// deschedules the helper's thread (for milliseconds when another process
// wants its core). inPlace(w) computes share w where it belongs;
// private(w, s) computes it into a buffer of its own, then calls
// s.commit(), and copies the buffer into place if and only if that
// reports true, which it does for the first thread to call it; it may
// stop early, and discard its buffer, once s.settled() reports true. The caller
// runs the shares it claims in place and each helper its own privately.
// When the caller has run out of shares to claim and has waited for a
// helper's share longer than redoWait times its own shares took on
// average (at least redoMinWait), it computes that share privately too;
// the first of the two to finish commits, the other discards its buffer.
// The call then returns without waiting for the helper, which may go on
// reading the operands of private (never writing anything but its own
// buffer) until its share ends: see quiesceHelpers. Under the race
// detector the caller waits for it, so that a write to the operands after
// the call is not reported as racing with it.
func parallelRedo(shares, threads int, inPlace func(w int), private func(w int, s shareSlot)) {
	threads = min(threads, shares)
	if threads <= 1 {
		for w := range shares {
			inPlace(w)
		}
		return
	}
	c := &poolCall{fn: inPlace, private: private, n: int64(shares)}
	c.state = make([]atomic.Int32, shares)
	c.inside.Store(1)
	c.run(threads)
}

// parallelN runs the shares fn(0), …, fn(shares-1), each exactly once, on
// the caller's goroutine and up to threads-1 helpers, and returns when all
// have returned. The shares are claimed in order from one atomic counter
// by whoever gets there first, helper or caller: the caller never waits on
// a share no one has started, only on shares that are running (spinning,
// then yielding, then parking). The helpers are the workers of a
// persistent pool, which spin for poolSpin after each call before they
// park: the next call then starts at once rather than after the operating
// system wakes a thread (16–35 µs on the VM of the benchmarks, against 2–4
// µs through a spinning worker), which is what lets products of about 96³
// to 256³ use two cores. While one call uses the pool, another (a
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
	c.run(threads)
}

// run runs the call on the caller's goroutine and threads-1 helpers.
func (c *poolCall) run(threads int) {
	poolCounters.calls.Add(1)
	if pool.busy.CompareAndSwap(false, true) {
		c.start = poolClock()
		for _, w := range pool.get(threads - 1) {
			if shy := w.shyUntil.Load(); shy != 0 && c.start < shy {
				continue
			}
			w.job.Store(c)
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
		go func() { c.work() }()
	}
	c.finish()
}

// poolCall is one call of parallelN or parallelRedo. next is the next
// share to claim, done counts the shares that have returned (with private,
// been committed and copied). A helper may take a call after all its
// shares have been claimed (even after the call has returned): it then
// claims nothing and leaves.
//
// With private (parallelRedo), state[w] says who commits share w: 0 no
// one yet, shareCaller or shareHelper. inside counts the caller, until it
// returns, and the helpers that may be running a share; the one that takes
// it to 0 after the caller returned leaves the count of stragglers.
type poolCall struct {
	start   int64 // poolClock when the call was handed to the pool's workers
	fn      func(int)
	private func(w int, s shareSlot)
	n       int64
	next    atomic.Int64
	done    atomic.Int64
	state   []atomic.Int32
	inside  atomic.Int64
	waiter  atomic.Bool   // the caller is parked, or about to, on wake
	wake    chan struct{} // set by the caller before it sets waiter
}

// The values of poolCall.state.
const (
	sharePending int32 = iota
	shareCaller        // the caller computes or commits the share
	shareHelper        // a helper commits it
)

// shareSlot is share w of parallelRedo call c as one thread computes it
// privately: by the caller (who is shareCaller) or by a helper.
type shareSlot struct {
	c   *poolCall
	w   int
	who int32
}

// commit reports whether this thread is the first to commit the share;
// it must then copy its buffer into place, and not otherwise.
func (s shareSlot) commit() bool {
	return s.c.state[s.w].CompareAndSwap(sharePending, s.who)
}

// settled reports whether another thread has committed the share: this
// thread's buffer will not be used, and its computation may stop.
func (s shareSlot) settled() bool {
	st := s.c.state[s.w].Load()
	return st != sharePending && st != s.who
}

// shareDone counts a finished share and wakes a parked caller after the
// last.
func (c *poolCall) shareDone() {
	if c.done.Add(1) == c.n && c.waiter.Load() {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// work is a helper's side of a call: it claims and runs shares until none
// is left. It returns how many it claimed and how many of those it
// committed (all, without private).
func (c *poolCall) work() (claimed, committed int) {
	if c.private != nil {
		if c.inside.Add(1) == 1 {
			// The caller has returned: every share is claimed and done.
			c.inside.Add(-1)
			return 0, 0
		}
		defer c.leave()
	}
	for {
		w := c.next.Add(1) - 1
		if w >= c.n {
			return claimed, committed
		}
		claimed++
		if h := shareHook; h != nil {
			h(true)
		}
		if c.private == nil {
			c.fn(int(w))
		} else if c.private(int(w), shareSlot{c, int(w), shareHelper}); c.state[w].Load() != shareHelper {
			continue // the caller committed it
		}
		committed++
		c.shareDone()
	}
}

// leave is how a helper, or the returning caller, leaves a parallelRedo
// call: the last to leave after the caller ends the call's straggling.
func (c *poolCall) leave() {
	if c.inside.Add(-1) == 0 {
		pool.stragglers.Add(-1)
	}
}

// finish is the caller's side of a call: it claims and runs shares like
// any helper (in place), then waits for the shares others started:
// spinning, then yielding its thread to other goroutines, then, after
// poolSpin, parking until the last share's runner wakes it. With private
// it computes a helper's share that is late itself (see parallelRedo),
// and parks only after that.
func (c *poolCall) finish() {
	var mine int64
	var t0 time.Time
	if c.private != nil {
		t0 = time.Now()
		defer c.callerLeave()
	}
	for {
		w := c.next.Add(1) - 1
		if w >= c.n {
			break
		}
		mine++
		if h := shareHook; h != nil {
			th := time.Now()
			h(false)
			t0 = t0.Add(time.Since(th)) // not part of the share's time
		}
		if c.private != nil {
			c.state[w].Store(shareCaller)
		}
		c.fn(int(w))
		c.done.Add(1)
	}
	poolCounters.callerShares.Add(mine)
	if c.done.Load() == c.n {
		return
	}
	poolCounters.waits.Add(1)
	var deadline, redoAt time.Time
	redone := false
	if c.private != nil {
		now := time.Now()
		per := redoMinWait
		if mine > 0 {
			per = max(per, time.Duration(float64(now.Sub(t0))/float64(mine)*redoWait))
		}
		redoAt = now.Add(per)
	}
	for i := 0; c.done.Load() < c.n; i++ {
		switch {
		case i < 64:
			continue
		case i == 64:
			deadline = time.Now().Add(poolSpin)
		case i%16 == 0:
			now := time.Now()
			if c.private != nil && !redone && now.After(redoAt) {
				c.redo()
				redone = true
				deadline = time.Now().Add(poolSpin)
				break
			}
			if now.Before(deadline) || c.private != nil && !redone {
				break
			}
			poolCounters.parks.Add(1)
			c.wake = make(chan struct{}, 1)
			c.waiter.Store(true)
			if c.done.Load() < c.n {
				<-c.wake
			}
			return
		}
		runtime.Gosched()
	}
}

// redo computes, privately, every share that no one has committed yet.
// Those are shares that helpers claimed and have not finished.
func (c *poolCall) redo() {
	for w := range c.state {
		if c.state[w].Load() != sharePending {
			continue
		}
		poolCounters.redos.Add(1)
		if c.private(w, shareSlot{c, w, shareCaller}); c.state[w].Load() == shareCaller {
			poolCounters.takeovers.Add(1)
			c.done.Add(1)
		}
	}
}

// callerLeave is how the caller leaves a parallelRedo call: under the
// race detector it first waits for the helpers to leave.
func (c *poolCall) callerLeave() {
	if raceEnabled {
		for c.inside.Load() > 1 {
			time.Sleep(10 * time.Microsecond)
		}
	}
	pool.stragglers.Add(1)
	c.leave()
}

// shareHook, when not nil, is called by each thread just before it runs a
// share of parallelN or parallelRedo, with helper false on the caller's
// goroutine. Tests use it to stall a helper.
var shareHook func(helper bool)

// quiesceHelpers waits until no helper is running a share of a
// parallelRedo call that has returned. A helper that was overtaken reads
// the operands of its share until it ends; memory that a call may have
// read must not be unmapped before this returns.
func quiesceHelpers() {
	for pool.stragglers.Load() > 0 {
		time.Sleep(20 * time.Microsecond)
	}
}

// redoWait is how many times the average time of the caller's own shares
// it waits for a helper's share before computing it itself, and
// redoMinWait the least it waits.
const (
	redoWait    = 1.25
	redoMinWait = 5 * time.Microsecond
)

// poolCounters counts what parallelN did, for benchmarks and tests: calls
// with more than one thread, those that ran on goroutines of their own
// (the pool being busy), shares the callers ran, calls whose caller had to
// wait for a share another thread had started, and calls whose caller
// parked doing so; and how often a worker parked. A caller that ran more
// than one share of a call took over a share that a static split would
// have left to a helper that had not started it.
// redos counts the shares a caller computed again because a helper was
// late, takeovers those of them it committed first, and shyParks how
// often a worker stopped spinning because it did not help.
var poolCounters struct {
	calls, goCalls, callerShares, waits, parks, workerParks atomic.Int64
	redos, takeovers, shyParks                              atomic.Int64
}

// poolSpin is how long a pool worker waits for its next call, spinning,
// before it parks, and how long a caller waits for running shares before
// it parks.
const poolSpin = 100 * time.Microsecond

// pool is parallelN's pool of workers.
var pool workerPool

// workerPool holds the workers of parallelN; busy is set while a call uses
// them. stragglers counts the parallelRedo calls that have returned while
// a helper may still be running one of their shares.
type workerPool struct {
	busy       atomic.Bool
	stragglers atomic.Int64
	mu         sync.Mutex
	workers    []*poolWorker
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
//
// shyUntil, when not 0, is the poolClock until which callers leave the
// worker out (see loop).
type poolWorker struct {
	job      atomic.Pointer[poolCall]
	parked   atomic.Bool
	wake     chan struct{}
	index    int
	shyUntil atomic.Int64
}

// loop runs the worker: it helps with calls while they come, spins for
// poolSpin after each (only workers that have a processor of their own
// beside the caller's: with more workers than GOMAXPROCS−1 the others
// park at once), then parks until woken.
//
// A worker whose thread the operating system keeps from running (another
// process wants the core) does not help: it takes calls late and its
// shares are computed again by the caller; and while it spins it takes
// the processor from the caller whenever the two share a core. So after
// poolStarved calls in a row in which it committed no share, having
// claimed one or taken the call more than poolLate after it was handed
// out, it parks, and callers leave it out for poolShy; the first call
// after that wakes it again.
func (w *poolWorker) loop() {
	starved := 0
	for {
		if w.index < runtime.GOMAXPROCS(0)-1 && !w.shy() {
			deadline := time.Now().Add(poolSpin)
			for i := 1; ; i++ {
				if c := w.job.Swap(nil); c != nil {
					late := poolClock()-c.start > int64(poolLate)
					claimed, committed := c.work()
					if committed > 0 || claimed == 0 && !late {
						starved = 0
					} else if starved++; starved >= poolStarved {
						starved = 0
						w.shyUntil.Store(poolClock() + int64(poolShy))
						poolCounters.shyParks.Add(1)
						break
					}
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

// shy reports whether callers leave the worker out now.
func (w *poolWorker) shy() bool {
	shy := w.shyUntil.Load()
	return shy != 0 && poolClock() < shy
}

// poolClock returns monotonic nanoseconds since the package started.
func poolClock() int64 { return int64(time.Since(poolEpoch)) }

var poolEpoch = time.Now()

// poolLate, poolStarved and poolShy are the rule by which a worker that
// does not help stops spinning (see poolWorker.loop). A spinning worker
// takes a call 1–4 µs after it is handed out, so poolLate is well past
// that; poolShy is a few time slices of the Linux scheduler.
const (
	poolLate    = 50 * time.Microsecond
	poolStarved = 2
	poolShy     = 20 * time.Millisecond
)

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
