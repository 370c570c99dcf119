package classify

import (
	"context"
	"sync"
	"unsafe"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// pairBytes is the memory one one-vs-one sub-problem of m points takes
// when it is solved on a dense Gram of its own: the Gram, its points'
// inputs gathered as T and the product's packed copy of them, the
// solver's vectors and the view's row cache.
func pairBytes(m, d int, elem int64) int64 {
	mm := int64(m) * int64(m)
	return mm*elem + 2*int64(m)*int64(d)*elem + ondemand.SolverBytes(m) + min(cacheBytes, mm*8)
}

// pairRoom returns the memory the dense Grams of the one-vs-one
// sub-problems may take on the on-demand route (Plan.PairBytes), 0 where
// every sub-problem reads the shared on-demand Gram (one-vs-rest, two
// classes, or Options.rowsOnly).
func (o *Options) pairRoom(n, nclass int, avail, fixed int64) int64 {
	if o.Scheme != OneVsOne || nclass <= 2 || o.rowsOnly {
		return 0
	}
	return max(avail-fixed-ondemand.SolverBytes(n)-int64(n)*12, 0)
}

// splitPairs returns the one-vs-one sub-problems among units that fit
// room on a dense Gram of their own, and how many of them are solved at
// once (each with its own Gram, all within room).
func splitPairs[T linalg.Float](units []unit, d int, room int64, threads int) (dense []int, workers int) {
	var z T
	elem := int64(unsafe.Sizeof(z))
	var most int64
	for ui, u := range units {
		if u.neg < 0 {
			continue
		}
		if b := pairBytes(len(u.idx), d, elem); b <= room {
			dense = append(dense, ui)
			most = max(most, b)
		}
	}
	if len(dense) == 0 {
		return nil, 0
	}
	return dense, int(min(int64(max(threads, 1)), int64(len(dense)), room/most))
}

// fitPairs fits the one-vs-one sub-problems units[ui], ui in which, each
// on a dense Gram of its own points only, workers at a time, and calls
// finished(ui) as each is solved (one call at a time; an error stops the
// others and is returned). The Gram of a pair of classes is about a fifth
// of the rows of all the points and each of its entries is computed once,
// through the GEMM, where the shared on-demand Gram computes whole rows of
// all n points, several times over when its cache cannot hold them. The sub-problem and its solver are the
// same as on the shared Gram (entries equal to rounding); each result
// depends on its own points only, so not on workers or the thread count.
func fitPairs[T linalg.Float](ctx context.Context, spec ntk.Spec, x linalg.Matrix[T], units []unit, which []int, workers int, y []int, c float64, o *Options, finished func(ui int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex
		next int
		ferr error
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(which) || ferr != nil {
			return 0, false
		}
		next++
		return which[next-1], true
	}
	finish := func(ui int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			// Kept even after another's error: a checkpoint of a
			// cancelled fit keeps every sub-problem solved.
			err = finished(ui)
		}
		if err != nil && ferr == nil {
			ferr = err
			cancel()
		}
	}
	threads := max(o.threads()/workers, 1)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf pairBuf[T]
			for {
				ui, ok := take()
				if !ok {
					return
				}
				finish(ui, fitPair(ctx, spec, x, &units[ui], y, c, o.Machine, threads, &buf, o.cw))
			}
		}()
	}
	wg.Wait()
	return ferr
}

// pairBuf is one worker's memory for the pairs it solves, reused from
// one to the next: a new n²-sized Gram for every pair would leave the
// previous ones to the collector, which, under a memory limit, lets such
// garbage grow up to the limit.
type pairBuf[T linalg.Float] struct {
	x, k []T
}

// grow returns s with room for n elements, reallocated only to grow.
func grow[T linalg.Float](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// identity returns the indices 0, 1, …, n−1.
func identity(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// fitPair solves one sub-problem on the dense Gram of its points.
func fitPair[T linalg.Float](ctx context.Context, spec ntk.Spec, x linalg.Matrix[T], u *unit, y []int, c float64, m Machine, threads int, buf *pairBuf[T], cw []float64) error {
	n := len(u.idx)
	buf.x = grow(buf.x, n*x.Cols)
	buf.k = grow(buf.k, n*n)
	xp := linalg.Matrix[T]{Rows: n, Cols: x.Cols, Stride: x.Cols, Data: buf.x}
	for r, i := range u.idx {
		copy(xp.Row(r), x.Row(i))
	}
	k := linalg.Matrix[T]{Rows: n, Cols: n, Stride: n, Data: buf.k}
	if err := ntk.FillGram(ctx, spec, xp, ntk.Options{Threads: threads}, k); err != nil {
		return err
	}
	local := identity(n)
	if err := fitUnit(ctx, newView(k, local, local), u, y, m, c, nil, nil, pointWeights(cw, y, u.idx)); err != nil {
		return err
	}
	u.kernel, u.points, u.dual, u.ka = nil, nil, nil, nil
	return nil
}
