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
// The extra threads are persistent workers that, after each share of
// work, spin for up to 100 µs (yielding to any other runnable goroutine)
// before they park, so that back-to-back calls start at once.
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

// parallel runs fn(0), …, fn(n-1) on n goroutines, the caller's and n-1
// workers of a persistent pool, and returns when all are done. A worker
// that has just finished a share spins for poolSpin, yielding its thread
// to any other runnable goroutine as it does, before it parks: the next
// call then starts at once rather than after the operating system wakes a
// thread (16–35 µs on the VM of the benchmarks, against 2–4 µs through a
// spinning worker), which is what lets products of about 96³ to 256³ use
// two cores. While one call uses the pool, another (a concurrent caller, or a
// call made from inside fn) starts goroutines of its own instead.
func parallel(n int, fn func(w int)) {
	if n <= 1 {
		fn(0)
		return
	}
	if !pool.busy.CompareAndSwap(false, true) {
		parallelGo(n, fn)
		return
	}
	defer pool.busy.Store(false)
	ws, tasks := pool.get(n - 1)
	var pending atomic.Int64
	pending.Store(int64(n - 1))
	for i, w := range ws {
		tasks[i] = poolTask{fn: fn, w: i + 1, pending: &pending}
		w.job.Store(&tasks[i])
		if w.parked.Load() {
			select {
			case w.wake <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
	}
	fn(0)
	for i := 0; pending.Load() > 0; i++ {
		if i >= 64 {
			runtime.Gosched()
		}
	}
}

// parallelGo is parallel on goroutines started for the call.
func parallelGo(n int, fn func(w int)) {
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

// poolSpin is how long a pool worker waits for its next share, spinning,
// before it parks.
const poolSpin = 100 * time.Microsecond

// pool is parallel's pool of workers.
var pool workerPool

// workerPool holds the workers of parallel; busy is set while a call uses
// them.
type workerPool struct {
	busy    atomic.Bool
	mu      sync.Mutex
	workers []*poolWorker
	tasks   []poolTask
}

// get returns the first n workers, starting any that do not exist yet,
// and n task slots. The caller holds busy, so the slots are its own.
func (p *workerPool) get(n int) ([]*poolWorker, []poolTask) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.workers) < n {
		w := &poolWorker{wake: make(chan struct{}, 1), index: len(p.workers)}
		p.workers = append(p.workers, w)
		go w.loop()
	}
	if len(p.tasks) < n {
		p.tasks = make([]poolTask, n)
	}
	return p.workers[:n], p.tasks[:n]
}

// poolTask is one share of a parallel call: fn(w), after which the worker
// counts pending down (its last access to the task).
type poolTask struct {
	fn      func(int)
	w       int
	pending *atomic.Int64
}

// poolWorker runs the tasks stored in job. parked is set while it waits
// on wake (or is about to); a caller that stores a job and then sees
// parked sends a wake-up. Both are sequentially consistent atomics, so a
// job stored before the worker sets parked is seen by its check after.
type poolWorker struct {
	job    atomic.Pointer[poolTask]
	parked atomic.Bool
	wake   chan struct{}
	index  int // the worker runs share index+1
}

// loop runs the worker: it takes tasks while they come, spins for
// poolSpin after each (only workers that have a processor of their own
// beside the caller's: with more workers than GOMAXPROCS−1 the others
// park at once), then parks until woken.
func (w *poolWorker) loop() {
	for {
		if w.index < runtime.GOMAXPROCS(0)-1 {
			deadline := time.Now().Add(poolSpin)
			for i := 1; ; i++ {
				if t := w.job.Swap(nil); t != nil {
					w.run(t)
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
		if t := w.job.Swap(nil); t != nil {
			w.parked.Store(false)
			w.run(t)
			continue
		}
		<-w.wake
		w.parked.Store(false)
	}
}

// run runs task t and counts it done.
func (w *poolWorker) run(t *poolTask) {
	t.fn(t.w)
	t.pending.Add(-1)
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
